import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { withSession } from '../session.js';

export function showCommand(context: CliContext): Command {
  return new Command('show')
    .description('show an event: decision and state, user, shipping, billing, and its items')
    .argument('<eventId>', 'the event id')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl show ord-1002
  $ fraudctl show ord-1002 --json | jq .state
  $ fraudctl show ord-1002 --profile prod
`,
    )
    .action(async (eventId: string, _options: unknown, command: Command) => {
      const { showEvent } = await import('../events/event-commands.js');
      await withSession(context, command, (session) => showEvent(session, eventId));
    });
}
