import { Argument, Command } from 'commander';
import type { CliContext } from '../process/cli-context.js';
import { UsageError } from '../errors/cli-error.js';
// Imported, not import()ed: it is small, and a chunk of its own would split settings.ts (which
// it shares with the command tree) into a file every command then loads (ARCHITECTURE.md).
import { completionValues } from '../completion/completion-values.js';

/*
 * Hidden, for the completion scripts (src/completion/), as gh's `__complete`:
 * - `fraudctl __complete profiles`: the values that change (profile names), which the bash, zsh
 *   and fish scripts ask for each time Tab is pressed;
 * - `fraudctl __complete words :WORD...`: what can replace the last word, given the words typed
 *   after `fraudctl` (each with a leading ':', the last the one being typed, `:` when empty), for
 *   PowerShell's script, which leaves the rules to fraudctl. One candidate a line; none when the
 *   shell should complete a file name.
 */
export function completeCommand(context: CliContext): Command {
  return new Command('__complete')
    .description('values for shell completion (used by the scripts of fraudctl completion)')
    .addArgument(new Argument('<what>').choices(['profiles', 'words']))
    .addArgument(new Argument('[words...]'))
    .action(async (what: 'profiles' | 'words', words: string[], _options: unknown, command: Command) => {
      let values: string[];
      if (what === 'profiles') {
        values = completionValues(what, context.env);
      } else {
        const bare = words.map((word) => {
          if (!word.startsWith(':'))
            throw new UsageError(`__complete words takes each word with a leading ':' (got ${JSON.stringify(word)})`);
          return word.slice(1);
        });
        const { completeWords } = await import('../completion/completion-words.js');
        values = completeWords(command.parent!, bare.length > 0 ? bare : [''], () =>
          completionValues('profiles', context.env),
        );
      }
      if (values.length > 0) context.stdout.write(`${values.join('\n')}\n`);
    });
}
