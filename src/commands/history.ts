import { Command } from 'commander';
import type { CliContext } from '../process/cli-context.js';
import { withSession } from '../session.js';
import { checkIdArguments } from '../id-lists/id-arguments.js';

/*
 * `history ID --log FILE…`: one event's story from the action logs, then its state now
 * (src/event-history/). --log takes several files at once or repeated; the work is loaded when
 * it runs.
 */

export function historyCommand(context: CliContext): Command {
  return new Command('history')
    .description('the story of one event: every action the --log files record on it (who, what, from and to, comment, reason, outcome) in time order, then its state now')
    .argument('<eventId>', 'the event id')
    .requiredOption('--log <files...>', 'the action logs to read (review --log, set-state --log); several after one --log, or --log again')
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

Lines about other events are skipped; lines that are not log lines (torn, edited) are named in a
note and skipped. Logs written against another service than this run's are said in a note. A log
that cannot be read is exit 2, before the service is asked. --json: {id, actions: [...], now}.
`,
    )
    .action(async (eventId: string, flags: { log: string[] }, command: Command) => {
      checkIdArguments([eventId]);
      const { showHistory } = await import('../event-history/show-history.js');
      await withSession(context, command, (session) => showHistory(session, eventId, flags.log));
    });
}
