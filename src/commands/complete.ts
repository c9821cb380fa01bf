import { Argument, Command } from 'commander';
import type { CliContext } from '../cli-context.js';

/*
 * `fraudctl __complete profiles`: hidden, for the completion scripts (src/completion/), which ask
 * it for the values that change (profile names) each time Tab is pressed, as gh's `__complete`.
 */
export function completeCommand(context: CliContext): Command {
  return new Command('__complete')
    .description('values for shell completion (used by the scripts of fraudctl completion)')
    .addArgument(new Argument('<what>').choices(['profiles']))
    .action(async (what: 'profiles') => {
      const { completionValues } = await import('../completion/completion-values.js');
      const values = completionValues(what, context.env);
      if (values.length > 0) context.stdout.write(`${values.join('\n')}\n`);
    });
}
