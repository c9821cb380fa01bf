import { PassThrough, Writable } from 'node:stream';
import type { CliContext } from '../../src/process/cli-context.js';
import { main } from '../../src/main.js';
import { useCli } from './cli-against-sandbox.js';
import { cliEnv, runCli, type CliResult } from './cli.js';
import { DEMO_KEY, type TestSandbox } from './sandbox.js';

/*
 * fraudctl run in this process, through main() (the command tree, its work, the exit code it
 * gives) with streams and an environment of the test's own, against a real sandbox on an
 * ephemeral port: what a process test checks, without starting a process per run. A run can be
 * given a terminal's width (stdout then says it is a TTY of that many columns); signals, pipes
 * and real terminals still need a process (test/support/cli.ts, script-terminal.ts).
 */

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessRunOptions {
  env?: Record<string, string>;
  /** stdout is a terminal this wide. */
  columns?: number;
  /** What stdin holds (a pipe's or a file's contents): nothing unless given, as runCli's. */
  input?: string | Buffer;
}

/** A stream that keeps what is written to it. */
function sink(tty: { columns: number } | null): Writable & { text: string; isTTY?: boolean; columns?: number } {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      stream.text += chunk.toString();
      done();
    },
  }) as Writable & { text: string; isTTY?: boolean; columns?: number };
  stream.text = '';
  if (tty !== null) Object.assign(stream, { isTTY: true, columns: tty.columns, rows: 50 });
  return stream;
}

/**
 * While commands run in-process: what they write past their context, to this process's own
 * stdout or stderr or through console, which a process test would have seen in its output and
 * which no test here would. A command writes only to the streams it is given; such a write fails
 * the run. Counted, for runs side by side.
 */
let running = 0;
const strayWrites: string[] = [];
const originals = { stdout: process.stdout.write, stderr: process.stderr.write, console: { ...console } };

function watchStrayWrites(): () => string[] {
  if (running++ === 0) {
    strayWrites.length = 0;
    const keep = (where: string) => (chunk: unknown) => {
      strayWrites.push(`${where}: ${String(chunk)}`);
      return true;
    };
    process.stdout.write = keep('process.stdout') as typeof process.stdout.write;
    process.stderr.write = keep('process.stderr') as typeof process.stderr.write;
    for (const name of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
      console[name] = (...values: unknown[]) =>
        void strayWrites.push(`console.${name}: ${values.map(String).join(' ')}`);
    }
  }
  return () => {
    const seen = [...strayWrites];
    if (--running === 0) {
      process.stdout.write = originals.stdout;
      process.stderr.write = originals.stderr;
      Object.assign(console, originals.console);
    }
    return seen;
  };
}

/** Runs `args` as `fraudctl` would, in this process. */
export async function runInProcess(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { columns?: number; input?: string | Buffer } = {},
): Promise<InProcessResult> {
  const stdout = sink(options.columns === undefined ? null : { columns: options.columns });
  const stderr = sink(null);
  // Ended, as a process's stdin is at the end of its pipe: a command that reads it gets what there is.
  const stdin = new PassThrough();
  stdin.end(options.input ?? '');
  const context: CliContext = {
    stdin,
    stdout,
    stderr,
    env,
    debug: false,
    waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    onStdoutClosed: () => () => {},
  };
  const stopWatching = watchStrayWrites();
  const code = await main(args, context).finally(() => {
    const stray = stopWatching();
    if (stray.length > 0) throw new Error(`fraudctl ${args.join(' ')} wrote past its streams: ${stray.join(' | ')}`);
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

export interface InProcessCli {
  sb: TestSandbox;
  dir: string;
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  run(args: readonly string[], options?: InProcessRunOptions): Promise<InProcessResult>;
  /** The same run as a process of the built CLI, for what needs one (the bundle, a process's exit, signals). */
  runProcess(args: string[], options?: { env?: Record<string, string>; input?: string | Buffer }): Promise<CliResult>;
}

/** One sandbox for the file, and fraudctl run in-process pointed at it with the demo key, in a home of its own. */
export function useSandboxInProcess(): InProcessCli {
  const cli = useCli({ sb: {} });
  const sb = cli.sandboxes.sb;
  const env = (extra: Record<string, string> = {}) =>
    cliEnv({
      HOME: cli.dir,
      XDG_CONFIG_HOME: `${cli.dir}/config`,
      XDG_DATA_HOME: `${cli.dir}/data`,
      FRAUDCTL_BASE_URL: sb.url,
      FRAUDCTL_API_KEY: DEMO_KEY,
      ...extra,
    });
  return {
    sb,
    dir: cli.dir,
    env,
    run: (args, { env: extra, ...options } = {}) => runInProcess(args, env(extra), options),
    runProcess: (args, { env: extra, input } = {}) =>
      runCli(args, { env: env(extra), ...(input !== undefined ? { input } : {}) }),
  };
}
