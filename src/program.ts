import { Command, InvalidArgumentError, Option } from 'commander';
import { VERSION } from './process/version.js';
import type { CliContext } from './process/cli-context.js';
import { sandboxCommand } from './commands/sandbox/command.js';
import { submitCommand } from './commands/submit/command.js';
import { showCommand } from './commands/show/command.js';
import { alertsCommand } from './commands/alerts/command.js';
import { setStateCommand } from './commands/set-state/command.js';
import { reviewCommand } from './commands/review/command.js';
import { loginCommand } from './commands/login/command.js';
import { logoutCommand } from './commands/logout/command.js';
import { configCommand } from './commands/config/command.js';
import { completionCommand, completeCommand } from './commands/completion/command.js';
import { doctorCommand } from './commands/doctor/command.js';
import { logCommand } from './commands/log/command.js';
import { historyCommand } from './commands/history/command.js';
import { reportCommand } from './commands/report/command.js';
import { evaluateCommand } from './commands/evaluate/command.js';
import { helpCommand } from './commands/help/command.js';
import { topicsHelp } from './help-topics/topic-names.js';
import { exitCodeLines } from './errors/exit-codes.js';

/*
 * The command tree: commander, the global options and every command's definition. main.ts
 * loads it for everything but a bare `--version`, after the compile cache is on.
 */

export { CommanderError } from 'commander';

function parseTimeout(value: string): number {
  const seconds = Number(value);
  if (!(seconds > 0) || !Number.isFinite(seconds))
    throw new InvalidArgumentError('the timeout is a positive number of seconds');
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

/** The commands, by name, in the order help lists them. */
const COMMANDS: Record<string, (context: CliContext) => Command> = {
  submit: submitCommand,
  show: showCommand,
  alerts: alertsCommand,
  'set-state': setStateCommand,
  review: reviewCommand,
  log: logCommand,
  history: historyCommand,
  report: reportCommand,
  evaluate: evaluateCommand,
  login: loginCommand,
  logout: logoutCommand,
  config: configCommand,
  doctor: doctorCommand,
  completion: completionCommand,
  sandbox: sandboxCommand,
  // Hidden: what the completion scripts ask for at each Tab (profile names).
  __complete: completeCommand,
};

/** The global options that take a value: the word after one is not a command. */
const OPTIONS_WITH_VALUE = new Set(['--base-url', '--profile', '--timeout']);

/**
 * The command argv runs, when that is certain: the first word that is neither an option nor a
 * global option's value names one. Only that command is then defined (defining all of them is
 * a measurable part of a command's start, bench:startup) and commander parses argv the same.
 * `completion` (it prints the whole tree) and `__complete words` (it answers from it), `help`, root help (`--help` before the command), an unknown word (commander
 * suggests the nearest command), `--` or no command at all get the whole tree.
 */
export function commandToRun(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    // `--` ends the options; root help (`fraudctl --help submit`) lists every command.
    if (word === '--' || word === '--help' || word === '-h') return undefined;
    if (word.startsWith('-')) {
      if (OPTIONS_WITH_VALUE.has(word)) i++;
      continue;
    }
    // `__complete words` answers from the whole tree too.
    const wholeTree = word === 'completion' || (word === '__complete' && argv[i + 1] === 'words');
    return Object.hasOwn(COMMANDS, word) && !wholeTree ? word : undefined;
  }
  return undefined;
}

/** The command tree; given `argv`, only as much of it as argv can reach (commandToRun). */
export function buildProgram(context: CliContext, argv?: readonly string[]): Command {
  const program = new Command('fraudctl')
    .description('Screen transaction events and review fraud decisions from the terminal.')
    .version(VERSION, '-V, --version')
    .addOption(new Option('--base-url <url>', 'the service to talk to (env FRAUDCTL_BASE_URL)'))
    .addOption(new Option('--profile <name>', 'the configured profile to use (env FRAUDCTL_PROFILE)'))
    .addOption(
      new Option(
        '--timeout <seconds>',
        'give up on a request after this long (env FRAUDCTL_TIMEOUT; default 30)',
      ).argParser(parseTimeout),
    )
    .option('--json', "print the service's JSON on stdout instead of tables")
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-input', 'never prompt: missing input is an error')
    .option('--debug', 'show stack traces and request logs (key redacted) on stderr')
    .option(
      '--insecure-http',
      'allow http:// to a host that is not this machine: the API key then travels in clear text',
    )
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => context.stdout.write(s),
      writeErr: (s) => context.stderr.write(s),
      // As wide as the terminal the help goes to (commander would ask this process's own stdout);
      // off a terminal, commander's 80.
      getOutHelpWidth: () => (context.stdout.isTTY && context.stdout.columns ? context.stdout.columns : 80),
      getErrHelpWidth: () => (context.stderr.isTTY && context.stderr.columns ? context.stderr.columns : 80),
    })
    .addHelpText('before', EXAMPLES)
    .addHelpText('after', () => `\nExit codes:\n${exitCodeLines('brief')}\n${topicsHelp()}`)
    // `fraudctl help` takes a topic as well as a command (commands/help/).
    .helpCommand(false);
  program.hook('preAction', (root) => {
    context.debug = Boolean(root.opts<{ debug?: boolean }>().debug);
  });
  const only = argv && commandToRun(argv);
  for (const [name, make] of Object.entries(COMMANDS)) {
    if (only === undefined || name === only) program.addCommand(make(context), { hidden: name.startsWith('__') });
  }
  if (only === undefined) program.addCommand(helpCommand(context));
  // Sub-commands report usage errors through the same exit path as the root.
  const inherit = (command: Command) => {
    for (const sub of command.commands) {
      // Every command's help lists the global options it accepts too, as gh's "inherited flags" do.
      sub
        .exitOverride()
        .showHelpAfterError('(run with --help for usage)')
        .configureOutput(program.configureOutput())
        .configureHelp({ showGlobalOptions: true });
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}
