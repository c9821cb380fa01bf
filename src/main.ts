import { VERSION } from './process/version.js';
import type { CliContext } from './process/cli-context.js';
import { CliError, ExitCode, type ExitCodeValue } from './errors/cli-error.js';
import { enableCompileCache } from './startup/compile-cache.js';
import { sym, useSymbolsFor } from './render/symbols.js';
import { currentShell, useShell, useShellFor } from './render/shell-command.js';
import { hasStrandedCalls } from './process/stranded-calls.js';

/*
 * The entry point: runs the command tree (program.ts), and is the one place that turns an
 * outcome into an exit code and an error into the words a user sees. It loads little itself:
 * a bare `--version` is answered here, and everything else is loaded once the compile cache is on.
 */

/** `fraudctl --version` or `-V` and nothing else: what commander would print, without loading it. */
function isVersionOnly(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V');
}

function describe(error: unknown, debug: boolean): { message: string; code: ExitCodeValue } {
  if (error instanceof CliError) {
    const hint = error.hint ? `\n${error.hint}` : '';
    return {
      message: `error: ${error.message}${hint}${debug && error.stack ? `\n${error.stack}` : ''}`,
      code: error.exitCode,
    };
  }
  const e = error as Error;
  return {
    message: `error: ${e?.message ?? String(error)}${debug ? `\n${e?.stack ?? ''}` : '\n(run with --debug for details)'}`,
    code: ExitCode.FAILURE,
  };
}

export async function main(argv: readonly string[], context: CliContext): Promise<ExitCodeValue> {
  if (isVersionOnly(argv)) {
    context.stdout.write(`${VERSION}\n`);
    return ExitCode.OK;
  }
  enableCompileCache(context.env);
  // The choices below last as long as the command: a caller that runs many commands in one
  // process (the tests) has its own marks and dialect back after each.
  const before = { symbols: { ...sym }, shell: currentShell() };
  try {
    return await chooseAndRun(argv, context);
  } finally {
    Object.assign(sym, before.symbols);
    useShell(before.shell);
  }
}

async function chooseAndRun(argv: readonly string[], context: CliContext): Promise<ExitCodeValue> {
  // Before the command tree loads: the marks every renderer draws with follow the locale.
  useSymbolsFor(context.env, process.platform);
  // And every hint is written for the shell it will be pasted into (POSIX, PowerShell, cmd.exe).
  try {
    useShellFor(context.env, context.platform ?? process.platform);
  } catch (error) {
    context.stderr.write(`${describe(error, false).message}\n`);
    return ExitCode.USAGE;
  }
  const { buildProgram, CommanderError } = await import('./program.js');
  const program = buildProgram(context, argv);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed help, the version, or what was wrong with the arguments.
      return error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    const { message, code } = describe(error, context.debug || argv.includes('--debug'));
    context.stderr.write(`${message}\n`);
    return code;
  }
}

/**
 * What ends a command as Ctrl-C does (CliContext.waitForShutdown). On Windows, where Node emits
 * what the console sends as signals: Ctrl-Break is SIGBREAK (elsewhere nothing sends it, and
 * listening for it is harmless), and closing the console window is SIGHUP, the hang-up (Windows
 * ends the process a few seconds later, whatever it is doing: about 10 s, Node's documentation
 * says). SIGTERM never comes from outside there: another process's kill is TerminateProcess,
 * which no listener sees.
 */
export const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];

/** The terminal hung up: SIGHUP came, or writing to it failed with EIO. */
let hungUp = false;
/** SIGTERM came (kill, systemd, cron's timeout): an interrupted command then exits as one ended by it. */
let terminated = false;
let terminalGone = false;

/** Exit code when stdout's reader went away: what a Unix tool killed by SIGPIPE reports (128 + 13). */
const EXIT_STDOUT_CLOSED = 141;
/** Exit code after a hang-up where no SIGHUP can end the process (Windows): what a shell reports for one (128 + 1). */
export const EXIT_HUNG_UP = 129;
/**
 * Exit code of a command stopped by SIGTERM (128 + 15), after finishing as on Ctrl-C: what
 * systemd and cron expect of a process they asked to stop (130 would say Ctrl-C).
 */
export const EXIT_TERMINATED = 143;

/**
 * A closed stdout or stderr (`fraudctl … | head -1`) ends the process at once and quietly, as
 * SIGPIPE ends other Unix tools, whatever it was writing: nobody is left to read it. This is the
 * one place besides main's return that ends the process. A command may take over stdout's case
 * (CliContext.onStdoutClosed); other write failures (a full disk) are one line on stderr, exit 1.
 */
function watchOutputStreams(): (handler: () => void) => () => void {
  let stdoutHandler: (() => void) | null = null;
  // EIO: the terminal hung up (its window closed): nobody is reading there either.
  const closed = (error: NodeJS.ErrnoException) =>
    error.code === 'EPIPE' || error.code === 'EIO' || error.code === 'ERR_STREAM_DESTROYED';
  // After a hang-up any failed write means the terminal is gone, whatever the error says (a
  // closed console window on Windows, a pipe's reader that went with the ssh session): the
  // command goes on with its shutdown (review gives its claims back) instead of ending at once.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EIO' || hungUp) terminalGone = true;
    if (closed(error) || terminalGone) {
      if (stdoutHandler) return stdoutHandler();
      // A command waiting for a shutdown signal gets its SIGHUP and finishes (or, past one, is
      // finishing); any other ends now.
      if (terminalGone) {
        if (!hungUp && process.listenerCount('SIGHUP') === 0) void endAsHungUp();
        return;
      }
      process.exit(EXIT_STDOUT_CLOSED);
    }
    process.stderr.write(`error: cannot write to stdout: ${error.code ?? error.message}\n`);
    process.exit(ExitCode.FAILURE);
  });
  // A terminal that hung up (EIO) takes stderr with it: what is left to say is dropped, and the
  // command finishes its shutdown (SIGHUP) instead of stopping at its first message.
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EIO' || hungUp) terminalGone = true;
    if (!terminalGone) process.exit(EXIT_STDOUT_CLOSED);
  });
  return (handler) => {
    stdoutHandler = handler;
    return () => {
      if (stdoutHandler === handler) stdoutHandler = null;
    };
  };
}

/**
 * Straight to file descriptor 1, without Node's stdout stream: making that stream costs more
 * than the rest of `--version` (bench:startup). False when the write fails or is short (stdout
 * closed, a full non-blocking pipe): the caller then goes the usual way.
 */
function writeStdoutSync(text: string): boolean {
  try {
    return process.getBuiltinModule('node:fs').writeSync(1, text) === Buffer.byteLength(text);
  } catch {
    return false;
  }
}

/**
 * fraudctl decides colour itself (render/colours.ts: NO_COLOR wins over FORCE_COLOR). With both
 * set, Node 22+ warns "The 'NO_COLOR' env is ignored due to the 'FORCE_COLOR' env being set" as
 * soon as a module loads its own colour support (node:assert does, under Fastify), a warning
 * about Node's colours that fraudctl never uses. The command keeps the environment as it was;
 * the process's own loses NO_COLOR, so Node has nothing to warn about.
 */
function quietColourVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.NO_COLOR === undefined || env.FORCE_COLOR === undefined) return env;
  const kept = { ...env };
  delete env.NO_COLOR;
  return kept;
}

/** Runs the CLI for this process; used by bin/fraudctl.js. */
export async function runProcess(): Promise<void> {
  const argv = process.argv.slice(2);
  if (isVersionOnly(argv) && writeStdoutSync(`${VERSION}\n`)) {
    process.exitCode = ExitCode.OK;
    return;
  }
  const onStdoutClosed = watchOutputStreams();
  const env = quietColourVariables(process.env);
  const context: CliContext = {
    onStdoutClosed,
    // A getter: Node makes process.stdin when first asked for it, and for a file or a pipe that
    // costs streams most commands never read (bench:startup).
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env,
    debug: false,
    // SIGHUP too: a terminal closed or an ssh session dropped must end a command as Ctrl-C
    // does (the review queue gives its claims back), not kill it where it stands. On Windows,
    // Ctrl-Break (SIGBREAK) as Ctrl-C, and a console window closed (SIGHUP) as a hang-up.
    waitForShutdown: () =>
      new Promise((resolve) => {
        const on = (signal: NodeJS.Signals) => {
          for (const s of SHUTDOWN_SIGNALS) process.off(s, on);
          hungUp ||= signal === 'SIGHUP';
          terminated ||= signal === 'SIGTERM';
          resolve(signal);
        };
        for (const s of SHUTDOWN_SIGNALS) process.on(s, on);
      }),
  };
  const code = await main(argv, context);
  process.exitCode = code === ExitCode.INTERRUPTED && terminated ? EXIT_TERMINATED : code;
  if (hungUp || terminalGone) await endAsHungUp();
  else if (hasStrandedCalls()) await endPastStrandedCalls(process.exitCode);
}

/** What flushed() needs of a stream (process.stdout and process.stderr have it). */
export interface Flushable {
  readonly writableLength: number;
  readonly destroyed: boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * Before the process ends itself: whatever `streams` still hold (a pipe on some systems is
 * written asynchronously) goes first, waiting at most `limitMs` for a reader that does not read.
 */
export async function flushed(streams: readonly Flushable[], limitMs = 1000): Promise<void> {
  await Promise.all(
    streams.map((stream) =>
      stream.writableLength > 0 && !stream.destroyed
        ? new Promise((resolve) => {
            const timer = setTimeout(resolve, limitMs);
            stream.once('drain', () => resolve(clearTimeout(timer)));
          })
        : undefined,
    ),
  );
}

/** What ending the process takes of `process` (a stand-in in tests, for the other platform's branch). */
export interface ProcessEnd {
  readonly pid: number;
  kill(pid: number, signal: NodeJS.Signals): unknown;
  exit(code: number): unknown;
  removeAllListeners(event: NodeJS.Signals): unknown;
  execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => unknown;
}

/**
 * The command is over, its error said, but a credential-store call it gave up on is still
 * running in libuv's thread pool (stranded-calls.ts): the process would live until that call
 * returns (an unlock prompt nobody answers: never), and process.exit() would wait for it too.
 * Replacing the process image ends every thread at once: process.execve (Node >= 22.15) runs
 * `sh -c 'exit N'` in its place, so the shell still sees the command's own exit code. Without it
 * (Node 20) the process ends by SIGTERM, as a timeout(1) would end it: status 143, a failure all
 * the same. Not on Windows: there is no execve, and a kill of itself is TerminateProcess, which
 * reports 1 whatever the command's code; the Credential Manager never prompts, so the call
 * returns and the process then ends as usual, with the command's own exit code.
 */
export async function endPastStrandedCalls(
  code: number,
  platform: NodeJS.Platform = process.platform,
  proc: ProcessEnd = process,
): Promise<void> {
  if (platform === 'win32') return;
  await flushed([process.stdout, process.stderr]);
  try {
    proc.execve?.('/bin/sh', ['sh', '-c', `exit ${code}`], {});
  } catch {
    // No /bin/sh: ended as on Node 20.
  }
  proc.removeAllListeners('SIGTERM');
  proc.kill(proc.pid, 'SIGTERM');
}

/**
 * After a hang-up the command has finished its shutdown: the process then ends by SIGHUP itself,
 * as any program on a closed terminal does (status 129 to a shell). Exiting normally instead
 * makes Node 20 abort on its way out (exit 134), when it cannot reset the vanished terminal's
 * modes. Where SIGHUP is ignored (nohup), the process goes on to exit as usual. On Windows (the
 * console window closed) a process cannot send itself SIGHUP (ENOSYS): it exits with 129.
 */
export async function endAsHungUp(
  platform: NodeJS.Platform = process.platform,
  proc: ProcessEnd = process,
): Promise<void> {
  await flushed([process.stdout]);
  if (platform === 'win32') {
    proc.exit(EXIT_HUNG_UP);
    return;
  }
  proc.removeAllListeners('SIGHUP');
  proc.kill(proc.pid, 'SIGHUP');
}
