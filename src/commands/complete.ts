import { Argument, Command } from 'commander';
import type { CliContext } from '../cli-context.js';
// Imported, not import()ed: it is small, and a chunk of its own would split settings.ts (which
// it shares with the command tree) into a file every command then loads (ARCHITECTURE.md).
import { completionValues } from '../completion/completion-values.js';

/*
 * `fraudctl __complete profiles`: hidden, for the completion scripts (src/completion/), which ask
 * it for the values that change (profile names) each time Tab is pressed, as gh's `__complete`.
 */
export function completeCommand(context: CliContext): Command {
  return new Command('__complete')
    .description('values for shell completion (used by the scripts of fraudctl completion)')
    .addArgument(new Argument('<what>').choices(['profiles']))
    .action((what: 'profiles') => {
      const values = completionValues(what, context.env);
      if (values.length > 0) context.stdout.write(`${values.join('\n')}\n`);
    });
}
