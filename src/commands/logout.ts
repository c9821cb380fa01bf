import { Command } from 'commander';
import type { CliContext } from '../process/cli-context.js';
import { withSession } from '../session.js';
import { logout } from '../login/logout.js';

export function logoutCommand(context: CliContext): Command {
  return new Command('logout')
    .description('forget the API key stored for a profile (its URL and settings stay)')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl logout                   # the active profile
  $ fraudctl logout --profile prod
`,
    )
    .action(async (_options: unknown, command: Command) => {
      await withSession(context, command, (session) => logout(session));
    });
}
