import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Runs bin/fraudctl.js as a user would: a real process, with an environment of the test's
 * choosing (nothing inherited but PATH, so a developer's own settings cannot leak in).
 */

export const BIN = fileURLToPath(new URL('../../bin/fraudctl.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Node's own warnings in what a fraudctl process wrote on stderr (`(node:1234) [DEP0137]
 * DeprecationWarning: …`, `(node:1234) Warning: …`): a warning in a process under test fails
 * the test, as one in the test process fails the run (no-warnings.ts).
 */
export function nodeWarnings(stderr: string): string[] {
  return stderr.split(/\r?\n/).filter((line) => /^\(node:\d+\) (\[\w+\] )?\w*Warning: /.test(line));
}

function failOnWarnings(args: readonly string[], result: CliResult): CliResult {
  const warnings = nodeWarnings(result.stderr);
  if (warnings.length > 0)
    throw new Error(`fraudctl ${args.join(' ')} printed a Node warning: ${warnings.join(' | ')}`);
  return result;
}

/**
 * The compile cache (src/startup/compile-cache.ts) the processes of a run share: under the temp
 * directory, not the developer's ~/.cache, and warm after the first process, as a user's is.
 */
const SHARED_CACHE = join(tmpdir(), `fraudctl-test-cache-${process.getuid?.() ?? 'user'}`);

/**
 * Node options of the harness for the processes under test, none unless it sets them: the
 * Windows job under Wine preloads a shim of its own in each (.ci/windows, .ci/wine/keep-alive.mjs).
 */
const HARNESS_NODE_OPTIONS = process.env.FRAUDCTL_TEST_NODE_OPTIONS
  ? { NODE_OPTIONS: process.env.FRAUDCTL_TEST_NODE_OPTIONS }
  : {};

export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // Hints in POSIX sh on every platform (the suite's expectations are written in it); the tests of
  // the PowerShell and cmd.exe dialects set FRAUDCTL_SHELL, or remove it to have the shell found.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NO_COLOR: '1',
    XDG_CACHE_HOME: SHARED_CACHE,
    FRAUDCTL_SHELL: 'sh',
    ...HARNESS_NODE_OPTIONS,
    ...extra,
  };
  // A test's own preload (clock-step.ts, peak-memory.ts) comes on top of the harness's.
  if (HARNESS_NODE_OPTIONS.NODE_OPTIONS && extra.NODE_OPTIONS)
    env.NODE_OPTIONS = `${HARNESS_NODE_OPTIONS.NODE_OPTIONS} ${extra.NODE_OPTIONS}`;
  return env;
}

/**
 * Under Wine (the Windows job) a process now and then fails to start at all: STATUS_DLL_INIT_FAILED
 * (0xC0000142) before any of fraudctl ran, about once in 8,000 starts. Such a start is made again,
 * once; a real Windows never sees it, and any other exit is the test's to judge.
 */
const WINE_DID_NOT_START = 0xc0000142;
const underWine = process.platform === 'win32' && process.env.FRAUDCTL_TEST_UNDER_WINE === '1';

export async function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string | Buffer; timeoutMs?: number } = {},
): Promise<CliResult> {
  const result = await runCliOnce(args, options);
  return underWine && result.code === WINE_DID_NOT_START && result.stdout === '' && result.stderr === ''
    ? runCliOnce(args, options)
    : result;
}

function runCliOnce(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string | Buffer; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: options.env ?? cliEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      try {
        resolve(failOnWarnings(args, { code, signal, stdout, stderr }));
      } catch (e) {
        reject(e as Error);
      }
    });
    // A process that ends (or is killed) before reading all its input closes the pipe: not the test's failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

export interface ServingProcess {
  url: string;
  child: ChildProcessWithoutNullStreams;
  output(): { stdout: string; stderr: string };
  /** Sends `signal` and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

/** Starts `fraudctl sandbox serve …` and waits for the line that gives its URL. */
export function startServe(args: string[], env: NodeJS.ProcessEnv = cliEnv()): Promise<ServingProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', ...args], { env });
    let stdout = '';
    let stderr = '';
    const ended = new Promise<CliResult>((done, fail) =>
      child.on('close', (code, signal) => {
        try {
          done(failOnWarnings(['sandbox', 'serve', ...args], { code, signal, stdout, stderr }));
        } catch (e) {
          fail(e as Error);
        }
      }),
    );
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m && stdout.includes('Press Ctrl-C to stop.')) {
        resolve({
          url: m[1]!,
          child,
          output: () => ({ stdout, stderr }),
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return ended;
          },
        });
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    ended.then((r) => reject(new Error(`sandbox serve ended before listening (code ${r.code}): ${r.stderr}`)), reject);
  });
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** Resolves when the process has ended. */
  done: Promise<CliResult>;
  output(): { stdout: string; stderr: string };
}

/**
 * Starts `fraudctl …` and returns at once, for tests that signal or kill it mid-run.
 * `keepStdinOpen`: stdin is left open for the test to write to and end.
 */
export function startCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; keepStdinOpen?: boolean } = {},
): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], { env: options.env ?? cliEnv() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      try {
        resolve(failOnWarnings(args, { code, signal, stdout, stderr }));
      } catch (e) {
        reject(e as Error);
      }
    });
  });
  // A process killed before reading all its input closes the pipe: not the test's failure.
  child.stdin.on('error', () => {});
  if (!options.keepStdinOpen) child.stdin.end(options.input ?? '');
  return { child, done, output: () => ({ stdout, stderr }) };
}
