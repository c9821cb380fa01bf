import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { withSession } from '../session.js';
import { login } from '../login/login.js';

export function loginCommand(context: CliContext): Command {
  return new Command('login')
    .description('store an API key for a profile, after checking it against the service')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl login --profile prod --base-url https://fraud.example.com   # asks for the key, hidden
  $ pass show fraud/prod-key | fraudctl login --profile prod             # reads the key from stdin
  $ fraudctl login --profile sandbox                                     # the embedded sandbox's key

The key is never taken as an argument, so it stays out of shell history and process lists.
`,
    )
    .action(async (_options: unknown, command: Command) => {
      await withSession(context, command, (session) => login(session));
    });
}
