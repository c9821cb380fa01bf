import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import type { CliContext } from './cli-context.js';
import { CliError, ExitCode, type ExitCodeValue } from './errors/cli-error.js';
import { sandboxCommand } from './commands/sandbox.js';
import { submitCommand } from './commands/submit.js';
import { showCommand } from './commands/show.js';
import { alertsCommand } from './commands/alerts.js';
import { setStateCommand } from './commands/set-state.js';
import { reviewCommand } from './commands/review.js';
import { loginCommand } from './commands/login.js';
import { logoutCommand } from './commands/logout.js';
import { configCommand } from './commands/config.js';
import { completionCommand } from './commands/completion.js';
import { doctorCommand } from './commands/doctor.js';

/*
 * The entry point: builds the command tree, runs it, and is the one place that turns an
 * outcome into an exit code and an error into the words a user sees.
 */

const EXIT_CODES_HELP = `
Exit codes:
  0    ok
  1    other failure
  2    usage: bad arguments, options or configuration
  3    authentication or authorisation (401/403)
  4    not found
  5    rejected by the service (400/409/413/415/422)
  6    unavailable (429/502/503/504, network, timeout)
  130  interrupted
  141  stdout closed by its reader (| head)
`;

function parseTimeout(value: string): number {
  const seconds = Number(value);
  if (!(seconds > 0) || !Number.isFinite(seconds)) throw new InvalidArgumentError('the timeout is a positive number of seconds');
  return seconds;
}

const EXAMPLES = `
Examples:
  $ fraudctl submit examples/review.json        # screen an event (on the embedded sandbox until you log in)
  $ fraudctl show ord-1002
  $ fraudctl alerts ord-1002
  $ fraudctl set-state ord-1002 --state APPROVED --comments "verified"
  $ fraudctl login --profile prod --base-url https://fraud.example.com
`;

export function buildProgram(context: CliContext): Command {
  const program = new Command('fraudctl')
    .description('Screen transaction events and review fraud decisions from the terminal.')
    .version(pkg.version, '-V, --version')
    .addOption(new Option('--base-url <url>', 'the service to talk to (env FRAUDCTL_BASE_URL)'))
    .addOption(new Option('--profile <name>', 'the configured profile to use (env FRAUDCTL_PROFILE)'))
    .addOption(new Option('--timeout <seconds>', 'give up on a request after this long (env FRAUDCTL_TIMEOUT; default 30)').argParser(parseTimeout))
    .option('--json', 'print the service\'s JSON on stdout instead of tables')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-input', 'never prompt: missing input is an error')
    .option('--debug', 'show stack traces and request logs (key redacted) on stderr')
    .option('--insecure-http', 'allow http:// to a host that is not this machine: the API key then travels in clear text')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => context.stdout.write(s),
      writeErr: (s) => context.stderr.write(s),
    })
    .addHelpText('before', EXAMPLES)
    .addHelpText('after', EXIT_CODES_HELP);
  program.hook('preAction', (root) => {
    context.debug = Boolean(root.opts<{ debug?: boolean }>().debug);
  });
  for (const make of [submitCommand, showCommand, alertsCommand, setStateCommand, reviewCommand, loginCommand, logoutCommand, configCommand, doctorCommand, completionCommand, sandboxCommand]) {
    program.addCommand(make(context));
  }
  // Sub-commands report usage errors through the same exit path as the root.
  const inherit = (command: Command) => {
    for (const sub of command.commands) {
      // Every command's help lists the global options it accepts too, as gh's "inherited flags" do.
      sub.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(program.configureOutput()).configureHelp({ showGlobalOptions: true });
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

function describe(error: unknown, debug: boolean): { message: string; code: ExitCodeValue } {
  if (error instanceof CliError) {
    const hint = error.hint ? `\n${error.hint}` : '';
    return { message: `error: ${error.message}${hint}${debug && error.stack ? `\n${error.stack}` : ''}`, code: error.exitCode };
  }
  const e = error as Error;
  return {
    message: `error: ${e?.message ?? String(error)}${debug ? `\n${e?.stack ?? ''}` : '\n(run with --debug for details)'}`,
    code: ExitCode.FAILURE,
  };
}

export async function main(argv: readonly string[], context: CliContext): Promise<ExitCodeValue> {
  const program = buildProgram(context);
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

/** Exit code when stdout's reader went away: what a Unix tool killed by SIGPIPE reports (128 + 13). */
const EXIT_STDOUT_CLOSED = 141;

/**
 * A closed stdout or stderr (`fraudctl … | head -1`) ends the process at once and quietly, as
 * SIGPIPE ends other Unix tools, whatever it was writing: nobody is left to read it. This is the
 * one place besides main's return that ends the process. A command may take over stdout's case
 * (CliContext.onStdoutClosed); other write failures (a full disk) are one line on stderr, exit 1.
 */
function watchOutputStreams(): (handler: () => void) => () => void {
  let stdoutHandler: (() => void) | null = null;
  const closed = (error: NodeJS.ErrnoException) => error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED';
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (closed(error)) {
      if (stdoutHandler) return stdoutHandler();
      process.exit(EXIT_STDOUT_CLOSED);
    }
    process.stderr.write(`error: cannot write to stdout: ${error.code ?? error.message}\n`);
    process.exit(ExitCode.FAILURE);
  });
  process.stderr.on('error', () => process.exit(EXIT_STDOUT_CLOSED));
  return (handler) => {
    stdoutHandler = handler;
    return () => {
      if (stdoutHandler === handler) stdoutHandler = null;
    };
  };
}

/** Runs the CLI for this process; used by bin/fraudctl.js. */
export async function runProcess(): Promise<void> {
  const onStdoutClosed = watchOutputStreams();
  const context: CliContext = {
    onStdoutClosed,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    debug: false,
    waitForShutdown: () =>
      new Promise((resolve) => {
        const on = (signal: NodeJS.Signals) => {
          process.off('SIGINT', on);
          process.off('SIGTERM', on);
          resolve(signal);
        };
        process.on('SIGINT', on);
        process.on('SIGTERM', on);
      }),
  };
  process.exitCode = await main(process.argv.slice(2), context);
}
