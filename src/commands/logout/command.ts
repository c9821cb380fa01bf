import { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import type { GlobalOptions } from '../../session.js';
import type { LogoutOptions } from './options.js';

export type { LogoutOptions } from './options.js';

/*
 * `logout`: argv → one LogoutOptions value; then the work (run.ts), import()ed when it runs, with
 * its dependencies built from the process (deps.ts). `run` is injectable, so a test checks argv →
 * options in-process without doing the work.
 */

export type LogoutRun = (command: Command, options: LogoutOptions) => Promise<void>;

export function logoutCommand(context: CliContext, run?: LogoutRun): Command {
  const runWork: LogoutRun =
    run ??
    (async (_command, options) => {
      const [{ run: logout }, { logoutDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return logout(options, logoutDeps(context));
    });
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
      const { profile } = command.optsWithGlobals<GlobalOptions>();
      return runWork(command, { profile: profile ?? null });
    });
}
