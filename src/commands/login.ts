import { Command } from 'commander';
import type { CliContext } from '../process/cli-context.js';
import { withSession } from '../session.js';
import { login } from '../login/login.js';

export function loginCommand(context: CliContext): Command {
  return new Command('login')
    .description('store an API key for a profile, after checking it against the service')
    .option(
      '--insecure-storage',
      'keep the key in the config file (plain text, mode 0600) instead of the credential store',
    )
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl login --profile prod --base-url https://fraud.example.com   # asks for the key, hidden
  $ pass show fraud/prod-key | fraudctl login --profile prod             # reads the key from stdin
  $ fraudctl login --profile local --base-url http://127.0.0.1:8787       # a sandbox serve of your own
  $ fraudctl login --profile ci --insecure-storage < key.txt             # in the config file, not the store

The key is never taken as an argument, so it stays out of shell history and process lists.
It is kept in the system's credential store (Keychain, Credential Manager, Secret Service) when
one is usable, else in the config file (mode 0600); where there is no store (SSH, CI), commands
can take the key from FRAUDCTL_API_KEY instead. The key is for the profile's URL and is sent
nowhere else; that URL is set by --base-url only (FRAUDCTL_BASE_URL is not used by login).

The built-in profile "sandbox" (the embedded sandbox, used when nothing is configured) needs no
login: it uses its demo merchant's key, the public default or FRAUDCTL_SANDBOX_KEY when set.
`,
    )
    .action(async (options: { insecureStorage?: boolean }, command: Command) => {
      await withSession(context, command, (session) =>
        login(session, { insecureStorage: options.insecureStorage === true }),
      );
    });
}
