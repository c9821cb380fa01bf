import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN, nodeWarnings } from './cli.js';
import { need } from './prerequisites.js';

/*
 * A program on a real pseudo-terminal of a given size, through tmux: keys in (send-keys), the
 * rendered screen out (capture-pane), as a person would see it — what "fits 80×24" needs.
 * Each terminal has its own tmux server (its own socket), so tests run in parallel and a test
 * never touches a developer's tmux. Waits poll the screen until the text is there or the time
 * is up, and a failure shows the screen: no fixed sleeps.
 *
 * Needs tmux: a test that starts a terminal is skipped, naming it, where tmux cannot run
 * (prerequisites.ts); CI installs it.
 */

const run = promisify(execFile);

export interface PtyOptions {
  env: NodeJS.ProcessEnv;
  width?: number;
  height?: number;
  /** A file whose content is the program's stdin (keys then come from the terminal, /dev/tty). */
  stdinFile?: string;
  /** How long any one wait may take (default 10 s). */
  timeoutMs?: number;
  /** A file that gets every byte the program writes to the terminal, from its first (tmux pipe-pane). */
  recordTo?: string;
}

export interface Pty {
  /** The screen now: `height` lines, trailing spaces trimmed. */
  screen(withHistory?: boolean): Promise<string>;
  /** Waits until the screen matches, and returns it; fails showing the screen. */
  waitFor(pattern: RegExp | string, what?: string): Promise<string>;
  /** Keys, as tmux send-keys names them: literal text, or `Enter`, `Escape`, `C-c`, `Down`… */
  send(...keys: string[]): Promise<void>;
  /** Literal text, typed as it is. */
  type(text: string): Promise<void>;
  /**
   * Text pasted as a terminal pastes it (tmux paste-buffer -p): between ESC[200~ and ESC[201~
   * when the program turned bracketed paste on, as plain keys otherwise; line breaks as CR.
   */
  paste(text: string): Promise<void>;
  /** Resizes the terminal (the program gets SIGWINCH). */
  resize(width: number, height: number): Promise<void>;

  /** Waits for the program to end: its exit code and the last screen. */
  exited(): Promise<{ code: number; screen: string }>;
  /** The terminal's title (what an OSC 0/2 sequence would set). */
  title(): Promise<string>;
  /** Process ids: the pane's shell (the session leader) and the program it runs, for tests that watch a signal reach it. */
  pids(): Promise<{ shell: number; program: number }>;
  /** Ends the terminal and its tmux server (always call it: afterEach or finally). */
  kill(): Promise<void>;
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `node bin/fraudctl.js …args` on a new terminal (80×24 unless told). */
export function startOnTerminal(args: readonly string[], options: PtyOptions): Promise<Pty> {
  return startProgramOnTerminal([process.execPath, BIN, ...args], options);
}

/** Starts any program (`argv[0]` found on the test's PATH) on a new terminal: a shell, for completion. */
export async function startProgramOnTerminal(argv: readonly string[], options: PtyOptions): Promise<Pty> {
  need('tmux');
  const width = options.width ?? 80;
  const height = options.height ?? 24;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const name = join(tmpdir(), `fraudctl-pty-${randomUUID()}`);
  const socket = `${name}.sock`;
  // The exit code, written by the shell when the program ends (tmux's own pane_dead_status can lag behind the pane's death).
  const statusFile = `${name}.status`;
  const env = Object.entries({ TERM: 'xterm-256color', ...options.env })
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => quote(`${k}=${v}`));
  // env -i: exactly the test's environment; the pane stays (remain-on-exit) so its last screen can be read.
  // The shell outlives a Ctrl-C (C-c) sent to the program's process group, as a user's shell
  // does, to write the program's exit status: a trap (not an ignored signal) is not inherited.
  const command = [
    'trap',
    ':',
    'INT;',
    'env',
    '-i',
    ...env,
    ...argv.map(quote),
    ...(options.stdinFile ? ['<', quote(options.stdinFile)] : []),
    ';',
    'echo',
    '$?',
    '>',
    quote(`${statusFile}.tmp`),
    '&&',
    'mv',
    quote(`${statusFile}.tmp`),
    quote(statusFile),
  ].join(' ');
  const tmux = (...a: string[]) =>
    run('tmux', ['-S', socket, ...a], { env: { PATH: process.env.PATH, TERM: 'xterm-256color' } });
  // remain-on-exit in the same tmux command, so that even a program that ends at once keeps its pane and exit status.
  // The pipe is set up in the same command list, before tmux reads the first byte of the program's output.
  const record =
    options.recordTo !== undefined ? [';', 'pipe-pane', '-o', '-t', 'pty', `cat >> ${quote(options.recordTo)}`] : [];
  await tmux(
    'new-session',
    '-d',
    '-x',
    String(width),
    '-y',
    String(height),
    '-s',
    'pty',
    `sh -c ${quote(command)}`,
    ';',
    'set-option',
    '-t',
    'pty',
    'remain-on-exit',
    'on',
    ...record,
  );
  let killed = false;

  // With history (-S -): when the program ends, tmux's "Pane is dead" line scrolls the screen up by one.
  const screen = async (withHistory = false) => {
    const { stdout } = await tmux('capture-pane', '-p', '-t', 'pty', ...(withHistory ? ['-S', '-'] : []));
    return stdout
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .trimEnd();
  };
  const dead = async (): Promise<number | null> => {
    try {
      return Number((await readFile(statusFile, 'utf8')).trim());
    } catch {
      return null;
    }
  };
  const poll = async <T>(check: () => Promise<T | undefined>, what: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (let delay = 10; ; delay = Math.min(100, delay * 2)) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the screen:\n${await screen()}`);
      }
      await pause(delay);
    }
  };

  return {
    screen: (withHistory) => screen(withHistory),
    waitFor: (pattern, what) =>
      poll(
        async () => {
          const text = await screen();
          const warnings = nodeWarnings(text);
          if (warnings.length > 0) throw new Error(`Node warning on the terminal: ${warnings.join(' | ')}`);
          return (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) ? text : undefined;
        },
        what ?? `${String(pattern)}`,
      ),
    send: async (...keys) => {
      await tmux('send-keys', '-t', 'pty', ...keys);
    },
    type: async (text) => {
      await tmux('send-keys', '-t', 'pty', '-l', text);
    },
    exited: () =>
      poll(async () => {
        const code = await dead();
        if (code === null) return undefined;
        // The shell writes the status file after the program ends; its last output is on the pane by then.
        const text = (await screen(true)).replace(/\n*Pane is dead.*$/, '');
        const warnings = nodeWarnings(text);
        if (warnings.length > 0) throw new Error(`Node warning on the terminal: ${warnings.join(' | ')}`);
        return { code, screen: text };
      }, 'the program to exit'),
    paste: async (text) => {
      await tmux('set-buffer', '-b', 'paste', '--', text);
      await tmux('paste-buffer', '-p', '-d', '-b', 'paste', '-t', 'pty');
    },
    resize: async (w, h) => {
      await tmux('resize-window', '-t', 'pty', '-x', String(w), '-y', String(h));
    },
    title: async () => (await tmux('display-message', '-p', '-t', 'pty', '#{pane_title}')).stdout.trim(),
    pids: async () => {
      const shell = Number((await tmux('display-message', '-p', '-t', 'pty', '#{pane_pid}')).stdout.trim());
      // `env` execs the program: the shell's one child.
      const program = await poll(async () => {
        const children = await readFile(`/proc/${shell}/task/${shell}/children`, 'utf8').catch(() => '');
        return children.trim() === '' ? undefined : Number(children.trim().split(/\s+/)[0]);
      }, 'the program to start');
      return { shell, program };
    },
    kill: async () => {
      if (killed) return;
      killed = true;
      await tmux('kill-server').catch(() => {});
      await Promise.all([
        rm(statusFile, { force: true }),
        rm(`${statusFile}.tmp`, { force: true }),
        rm(socket, { force: true }),
      ]);
    },
  };
}
