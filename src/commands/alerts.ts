import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { withSession } from '../session.js';
import { showAlerts } from '../events/event-commands.js';
import { checkIdArguments } from '../id-lists/id-arguments.js';

export function alertsCommand(context: CliContext): Command {
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
      await withSession(context, command, (session) => showAlerts(session, eventId));
    });
}
