import { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import type { GlobalOptions } from '../../session.js';
import type { LoginOptions } from './options.js';

export type { LoginOptions } from './options.js';

/*
 * `login`: argv → one LoginOptions value; then the work (run.ts), import()ed when it runs, with
 * its dependencies built from the process and the global flags (deps.ts). `run` is injectable,
 * so a test checks argv → options in-process without doing the work.
 */

export type LoginRun = (command: Command, options: LoginOptions) => Promise<void>;

export function loginCommand(context: CliContext, run?: LoginRun): Command {
  const runWork: LoginRun =
    run ??
    (async (command, options) => {
      const [{ run: login }, { loginDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      // The key's check takes this run's --timeout, --debug and --no-input too.
      return login(options, loginDeps(context, command.optsWithGlobals<GlobalOptions>()));
    });
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
    .action(async (flags: { insecureStorage?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      return runWork(command, {
        profile: globals.profile ?? null,
        baseUrl: globals.baseUrl || null,
        insecureHttp: globals.insecureHttp === true,
        insecureStorage: flags.insecureStorage === true,
      });
    });
}
