import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { withSession } from '../session.js';

export function submitCommand(context: CliContext): Command {
  return new Command('submit')
    .description('screen an event: show the decision, score, rule matches and list matches')
    .argument('<file>', 'a JSON file holding one event, or - to read it from stdin')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl submit examples/review.json
  $ cat event.json | fraudctl submit -
  $ fraudctl submit event.json --json | jq .actionType
`,
    )
    .action(async (file: string, _options: unknown, command: Command) => {
      const { submitEvent } = await import('../events/event-commands.js');
      await withSession(context, command, (session) => submitEvent(session, file));
    });
}
