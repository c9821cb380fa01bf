import { Command, InvalidArgumentError, Option } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { UsageError } from '../../errors/cli-error.js';
import { withSession, type GlobalOptions } from '../../session.js';
import { stateFromTyped } from '../../state-changes/state-names.js';
import { concurrencyOption, givenOnCommandLine } from '../number-options.js';
import { idArguments } from '../../id-lists/id-arguments.js';
import { run as show } from './run.js';
import { showDeps } from './deps.js';
import type { ShowOptions } from './options.js';

export type { ShowOptions } from './options.js';

/*
 * `show`: argv → one ShowOptions value, one of three forms (one event, a watch of one, a list of
 * many), decided here with the flag combinations checked; then the work (run.ts), with its
 * dependencies built from the process and the session (deps.ts). run.ts is loaded with the
 * command, not import()ed: `show ID` is the start-up to keep short (the watch's and the list's
 * code is import()ed by run.ts). `run` is injectable, so a test checks argv → options in-process.
 */

/** The flags as commander gives them. */
interface ShowFlags {
  from?: string;
  csv?: boolean;
  concurrency: number;
  watch?: boolean;
  interval: number;
  until?: string;
  forceState?: boolean;
}

/** Runs the work; replaced in tests. */
export type ShowRun = (command: Command, options: ShowOptions) => Promise<void>;

function interval(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1) throw new InvalidArgumentError('the interval is a number of seconds, at least 1');
  return n;
}

/** Which of the three forms the arguments ask for, or a usage error naming the clash. */
function mode(
  ids: readonly string[],
  options: ShowFlags,
  given: (name: string) => boolean,
  json: boolean,
): 'one' | 'list' | 'watch' {
  if (json && options.csv) throw new UsageError('--json and --csv cannot be combined: pick one output format');
  if (ids.length === 0 && options.from === undefined)
    throw new UsageError(
      'show needs an event id, or --from FILE (- for stdin)',
      'e.g. fraudctl show ord-1002, or fraudctl show --from ids.txt',
    );
  if (options.watch) {
    if (ids.length !== 1 || options.from !== undefined)
      throw new UsageError('--watch follows one event: give exactly one id, and no --from');
    if (options.csv) throw new UsageError('--watch and --csv cannot be combined');
    if (given('concurrency')) throw new UsageError('--concurrency is for many ids, not --watch');
    if (options.forceState && options.until === undefined) throw new UsageError('--force-state goes with --until');
    return 'watch';
  }
  if (given('interval') || options.until !== undefined)
    throw new UsageError(`${given('interval') ? '--interval' : '--until'} goes with --watch`);
  if (options.forceState) throw new UsageError('--force-state goes with --watch --until');
  return ids.length === 1 && options.from === undefined && !options.csv ? 'one' : 'list';
}

export function showCommand(context: CliContext, run?: ShowRun): Command {
  const runWork: ShowRun =
    run ??
    ((command, options) => withSession(context, command, (session) => show(options, showDeps(context, session))));
  return new Command('show')
    .description(
      'show events: one in full, many as a table (or JSON Lines, CSV), or watch one until its review is done',
    )
    .argument('[eventIds...]', 'event ids')
    .option(
      '--from <file>',
      'also the ids in FILE (one or more per line; # comments), a CSV file (its id column) or a submit --out ' +
        'results file; - for stdin',
    )
    .option('--csv', 'many ids: CSV with a header row, for spreadsheets')
    .addOption(concurrencyOption('many ids: requests in flight at once').default(8))
    .option('--watch', 'one id: print a line each time its state, decision or comments change, until a final state')
    .addOption(
      new Option('--interval <seconds>', '--watch: seconds between checks (at least 1)').argParser(interval).default(5),
    )
    .option(
      '--until <state>',
      '--watch: stop when the event reaches this state (instead of any final state); any case, approved or in-review',
    )
    .option('--force-state', '--until: watch for the state as typed, even one this build does not know')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl show ord-1002
  $ fraudctl show ord-1002 --json | jq .state
  $ fraudctl show ord-1002 ord-1003 ord-1004              # one row each
  $ fraudctl show --from orders.txt                        # ids one per line (# comments)
  $ fraudctl show --from export.csv                        # a spreadsheet's CSV: its id column
  $ fraudctl show --from results.jsonl --csv > orders.csv  # the ids of a submit --out file
  $ jq -r .id orders.jsonl | fraudctl show --from - --json   # JSON Lines, one per id
  $ fraudctl show ord-1002 --watch                         # until APPROVED, DECLINED or FRAUD_CONFIRMED
  $ fraudctl show ord-1002 --watch --interval 30 --until in-review
`,
    )
    .addHelpText(
      'after',
      `
One id is shown in full. More than one (or --from, or --csv): a row per id in input order, then
a count line. Exit 0 when every id was found, 4 when some were not found or invalid (an id the
service calls malformed, an input line without an id), otherwise the code of the worst failure
(5 refused, 6 unavailable, 1 other); a refused key (3) stops at once. --watch exits 0 at a final state (or --until's), 130 on Ctrl-C.
`,
    )
    .action(async (typed: string[], flags: ShowFlags, command: Command) => {
      const ids = idArguments(typed);
      const globals = command.optsWithGlobals<GlobalOptions>();
      const json = globals.json === true;
      const noColor = globals.color === false;
      const form = mode(ids, flags, (name) => givenOnCommandLine(command, name), json);
      if (form === 'one') return runWork(command, { form, eventId: ids[0]!, json, noColor });
      if (form === 'watch') {
        // The same words as set-state --state: any case and separators, a typo refused with a suggestion.
        const until =
          flags.until === undefined ? null : stateFromTyped(flags.until, flags.forceState === true, 'watch for');
        return runWork(command, { form, eventId: ids[0]!, intervalSeconds: flags.interval, until, json, noColor });
      }
      return runWork(command, {
        form,
        ids,
        from: flags.from ?? null,
        format: json ? 'json' : flags.csv ? 'csv' : 'table',
        concurrency: flags.concurrency,
        noColor,
      });
    });
}
