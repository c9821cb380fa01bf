import { Command } from 'commander';
import type { CliContext } from '../process/cli-context.js';
import { withSession } from '../session.js';
import { showAlerts } from '../events/event-commands.js';
import { checkIdArguments } from '../id-lists/id-arguments.js';

/** Runs the work for one checked id; replaced in tests (test/commands/flag-parsing.test.ts). */
export type AlertsRun = (command: Command, eventId: string) => Promise<void>;

export function alertsCommand(context: CliContext, run?: AlertsRun): Command {
  const runWork: AlertsRun =
    run ?? ((command, eventId) => withSession(context, command, (session) => showAlerts(session, eventId)));
  return new Command('alerts')
    .description("show an event's risk assessment: decision, score, alerts by score, list matches")
    .argument('<eventId>', 'the event id')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl alerts ord-1002
  $ fraudctl alerts ord-1002 --json | jq '.alerts[].ruleId'
`,
    )
    .action(async (eventId: string, _options: unknown, command: Command) => {
      checkIdArguments([eventId]);
      await runWork(command, eventId);
    });
}
