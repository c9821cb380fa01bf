import { closeSync, openSync } from 'node:fs';
import { emitKeypressEvents } from 'node:readline';
import { ReadStream, WriteStream } from 'node:tty';
import type { CliContext } from '../process/cli-context.js';
import type { Key } from './queue-model.js';
import type { KeySource, Screen } from './queue-loop.js';

/*
 * The terminal for the queue: keys from stdin when it is a terminal, otherwise from the
 * controlling terminal (/dev/tty, as `git add -p` does, so ids can be piped in; on Windows the
 * console's own input and output, CONIN$ and CONOUT$, as Git for Windows opens them in place of
 * /dev/tty, the screen then drawn on CONOUT$); the screen on stdout, in the alternate screen with the cursor hidden and bracketed paste on (a paste is
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

type ScreenStream = NodeJS.WritableStream & {
  columns?: number;
  rows?: number;
  on(event: 'resize', cb: () => void): unknown;
  off(event: 'resize', cb: () => void): unknown;
};

/** Keys to read, and the screen to draw on when it is not stdout (Windows' CONOUT$). */
export interface OpenedKeys {
  stream: KeyStream;
  screen?: ScreenStream;
  close(): void;
}

/** The terminal's devices when stdin is not one: keys, and the screen when it must be opened too. */
export function terminalDevices(platform: NodeJS.Platform): { keys: string; screen?: string } {
  return platform === 'win32' ? { keys: 'CONIN$', screen: 'CONOUT$' } : { keys: '/dev/tty' };
}

/**
 * Where keys will come from, opened now so that a missing terminal is reported before any work;
 * otherwise the device that could not be opened. The platform is the context's (tests ask for
 * Windows' devices on any platform), `open` fs.openSync but for tests.
 */
export function openKeyStream(
  context: Pick<CliContext, 'stdin' | 'platform'>,
  open: typeof openSync = openSync,
): OpenedKeys | { unavailable: string; for: 'keys' | 'screen' } {
  const stdin = context.stdin as KeyStream;
  if (stdin.isTTY && typeof stdin.setRawMode === 'function') return { stream: stdin, close: () => stdin.pause() };
  const devices = terminalDevices(context.platform ?? process.platform);
  const fds: number[] = [];
  const wanted: [string, 'r' | 'w', 'keys' | 'screen'][] = [[devices.keys, 'r', 'keys']];
  if (devices.screen) wanted.push([devices.screen, 'w', 'screen']);
  for (const [device, flags, use] of wanted) {
    try {
      fds.push(open(device, flags));
    } catch {
      for (const fd of fds) closeSync(fd);
      return { unavailable: device, for: use };
    }
  }
  // The streams own the descriptors: destroying them closes them.
  const keys = new ReadStream(fds[0]!);
  const screen = fds[1] === undefined ? undefined : new WriteStream(fds[1]);
  return {
    stream: keys,
    ...(screen ? { screen } : {}),
    close: () => {
      keys.destroy();
      screen?.destroy();
    },
  };
}

export function openTerminal(context: Pick<CliContext, 'stdout'>, keyStream: OpenedKeys): Terminal {
  const out = keyStream.screen ?? (context.stdout as ScreenStream);
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
