import { openSync } from 'node:fs';
import { emitKeypressEvents } from 'node:readline';
import { ReadStream } from 'node:tty';
import type { CliContext } from '../cli-context.js';
import type { Key } from './queue-model.js';
import type { KeySource, Screen } from './queue-loop.js';

/*
 * The terminal for the queue: keys from stdin when it is a terminal, otherwise from the
 * controlling terminal (/dev/tty, as `git add -p` does, so ids can be piped in); the screen on
 * stdout, in the alternate screen with the cursor hidden and bracketed paste on (a paste is
 * handed over whole, as text, never as keys). `restore()` undoes all of it (raw mode
 * off, cursor shown, main screen back) and closes what was opened; it is safe to call twice,
 * and the caller calls it on every way out.
 */

// Bracketed paste on (?2004h) with the screen, off (?2004l) when it is given back: a paste then
// arrives between ESC[200~ and ESC[201~ and is handed over whole, never as keys.
const ENTER = '\x1b[?1049h\x1b[?25l\x1b[?2004h\x1b[H\x1b[2J';
const LEAVE = '\x1b[?2004l\x1b[?25h\x1b[?1049l';

type KeyStream = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(on: boolean): unknown; isRaw?: boolean };

export interface Terminal {
  keys: KeySource;
  screen: Screen;
  /**
   * Settles when the keys end before restore(): the terminal hung up (its window closed, an ssh
   * session dropped). Nothing else then keeps the process alive, so the session must end itself.
   */
  hungUp: Promise<void>;
  restore(): void;
}

/** Where keys will come from, opened now so that a missing terminal is reported before any work. */
export function openKeyStream(context: CliContext): { stream: KeyStream; close(): void } | null {
  const stdin = context.stdin as KeyStream;
  if (stdin.isTTY && typeof stdin.setRawMode === 'function') return { stream: stdin, close: () => stdin.pause() };
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r');
  } catch {
    return null;
  }
  // The stream owns the descriptor: destroying it closes it.
  const tty = new ReadStream(fd);
  return { stream: tty, close: () => tty.destroy() };
}

export function openTerminal(context: CliContext, keyStream: { stream: KeyStream; close(): void }): Terminal {
  const out = context.stdout as NodeJS.WritableStream & { columns?: number; rows?: number; on(event: 'resize', cb: () => void): unknown; off(event: 'resize', cb: () => void): unknown };
  const input = keyStream.stream;
  let entered = false;
  let restored = false;
  let listener: ((text: string | undefined, key: Key | undefined) => void) | null = null;

  const keys: KeySource = {
    start(onKey, onPaste) {
      // A lone Esc is told from the start of an escape sequence by a pause: 50 ms, not readline's 500.
      emitKeypressEvents(input, { escapeCodeTimeout: 50 } as unknown as Parameters<typeof emitKeypressEvents>[1]);
      input.setRawMode?.(true);
      // readline names the brackets of a paste (paste-start, paste-end); what comes between them is
      // gathered and handed over as one paste.
      let paste: string[] | null = null;
      listener = (text, key) => {
        if (key?.name === 'paste-start') {
          paste = [];
          return;
        }
        if (key?.name === 'paste-end') {
          const whole = paste?.join('') ?? '';
          paste = null;
          if (onPaste) onPaste(whole);
          return;
        }
        if (paste) {
          paste.push(key?.name === 'return' || key?.name === 'enter' ? '\n' : (text ?? key?.sequence ?? ''));
          return;
        }
        onKey(text, key ?? { sequence: text });
      };
      input.on('keypress', listener);
      input.resume();
      return () => {
        if (listener) input.off('keypress', listener);
        listener = null;
      };
    },
  };

  const screen: Screen = {
    size: () => ({ width: out.columns ?? 80, height: out.rows ?? 24 }),
    draw(frame) {
      if (!entered) {
        entered = true;
        out.write(ENTER);
      }
      // Home, each line cleared to its end, and everything below the frame cleared: one write.
      out.write(`\x1b[H${frame.split('\n').join('\x1b[K\r\n')}\x1b[K\x1b[J`);
    },
    onResize(callback) {
      out.on('resize', callback);
      return () => out.off('resize', callback);
    },
  };

  // The last resort, for an exception that escapes everything else and ends the process: the
  // terminal is still given back (tty writes are synchronous, so this lands before the exit).
  const onExit = () => terminal.restore();
  process.once('exit', onExit);

  const hungUp = new Promise<void>((resolve) => {
    const gone = () => {
      if (!restored) resolve();
    };
    input.once('end', gone);
    input.once('close', gone);
    input.once('error', gone);
  });

  const terminal: Terminal = {
    keys,
    screen,
    hungUp,
    restore() {
      if (restored) return;
      restored = true;
      process.off('exit', onExit);
      if (listener) input.off('keypress', listener);
      try {
        input.setRawMode?.(false);
      } finally {
        keyStream.close();
        if (entered) out.write(LEAVE);
      }
    },
  };
  return terminal;
}
