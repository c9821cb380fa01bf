import { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { withSession } from '../../session.js';
import { checkIdArguments } from '../../id-lists/id-arguments.js';
import type { HistoryOptions } from './options.js';

export type { HistoryOptions } from './options.js';

/*
 * `history ID --log FILE…`: argv → one HistoryOptions value (--log takes several files at once or
 * repeated); then one event's story from the action logs and its state now (run.ts), import()ed
 * when it runs, with its deps built from the process and the session (deps.ts). `run` is
 * injectable: a test checks argv → options without doing the work.
 */

export type HistoryRun = (command: Command, options: HistoryOptions) => Promise<void>;

export function historyCommand(context: CliContext, run?: HistoryRun): Command {
  const runWork: HistoryRun =
    run ??
    (async (command, options) => {
      const [{ run: history }, { historyDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return withSession(context, command, (session) => history(options, historyDeps(context, session)));
    });
  return new Command('history')
    .description(
      'the story of one event: every action the --log files record on it (who, what, from and to, comment, reason, outcome) in time order, then its state now',
    )
    .argument('<eventId>', 'the event id')
    .requiredOption(
      '--log <files...>',
      'the action logs to read (review --log, set-state --log); several after one --log, or --log again',
    )
    .option(
      '--include-unverified',
      "also tell actions from lines that break the log's hash chain (edited, inserted, written before lines were chained), " +
        'marked UNVERIFIED',
    )
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl history ord-1002 --log team.log
  $ fraudctl history ord-1002 --log monday.log tuesday.log      # several logs, several analysts
  $ fraudctl history ord-1002 --log ann.log --log bob.log --json
`,
    )
    .addHelpText(
      'after',
      `
Each action is one line: its time (UTC), the analyst, profile and host that took it, what was
done (claim, release, approve, decline, escalate, fraud, comment, skip, set-state) and from
which state to which, how it ended, then its comment and reason. A change is logged before it is
sent and again with its outcome: the two lines read as one action; one whose outcome never came
is "outcome unknown (the session ended before the answer)" (its state now says whether it
landed). Then the event now, read once from the service (or the embedded sandbox).

Each line is checked against its log's hash chain (as fraudctl log verify does): a line that
breaks it (edited, removed, reordered, inserted, or written by a fraudctl that did not chain its
lines) is named (file:line and kind) and nothing is told, exit 1, before the service is asked;
--include-unverified tells the story with the actions from such lines marked UNVERIFIED (--json:
each action's unverified). CR LF endings and a missing last line feed are read, with a note; a
line cut short or of NUL bytes (a crash) is skipped with a note.

Lines about other events are skipped; lines that are not log lines are named in a note and
skipped. Logs written against another service than this run's are said in a note. When the
event cannot be read now (the service down, not found, another service), the story is told
all the same, then "now: not read", and the exit code is the failure's. A log that cannot be read
is exit 2, before the service is asked. --json: {id, actions: [...], now} (now: null when not read).
`,
    )
    .action(async (eventId: string, flags: { log: string[]; includeUnverified?: boolean }, command: Command) => {
      checkIdArguments([eventId]);
      const globals = command.optsWithGlobals<{ json?: boolean; color?: boolean }>();
      await runWork(command, {
        eventId,
        logs: flags.log,
        includeUnverified: flags.includeUnverified === true,
        json: globals.json === true,
        noColor: globals.color === false,
      });
    });
}
