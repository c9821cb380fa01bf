import { Argument, Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { UsageError } from '../../errors/cli-error.js';
import { SHELLS, type CompletionOptions } from './options.js';

export type { CompletionOptions } from './options.js';

/*
 * `completion SHELL`, and the hidden `__complete` that the scripts it prints call back (as gh's
 * `__complete`): one room, as the two halves of one protocol. Each: argv → one
 * CompletionOptions value; then the work (run.ts), import()ed when it runs, with its
 * dependencies built from the process and the command tree (deps.ts). `run` is injectable, so
 * a test checks argv → options without doing the work.
 * - `fraudctl __complete profiles`: the values that change (profile names), which the bash, zsh
 *   and fish scripts ask for each time Tab is pressed;
 * - `fraudctl __complete words :WORD...`: what can replace the last word, given the words typed
 *   after `fraudctl` (each with a leading ':', the last the one being typed, `:` when empty), for
 *   PowerShell's script, which leaves the rules to fraudctl.
 */

export type CompletionRun = (command: Command, options: CompletionOptions) => Promise<void>;

function realRun(context: CliContext): CompletionRun {
  return async (command, options) => {
    const [{ run }, { completionDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
    return run(options, completionDeps(context, command.parent!));
  };
}

export function completionCommand(context: CliContext, run?: CompletionRun): Command {
  const runWork = run ?? realRun(context);
  return new Command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'before',
      `Examples:
  $ source <(fraudctl completion bash)                            # in ~/.bashrc
  $ fraudctl completion zsh > "\${fpath[1]}/_fraudctl"
  $ fraudctl completion fish > ~/.config/fish/completions/fraudctl.fish
  PS> fraudctl completion powershell | Out-String | Invoke-Expression   # in $PROFILE
`,
    )
    .action(async (shell: (typeof SHELLS)[number], _options: unknown, command: Command) => {
      await runWork(command, { verb: 'script', shell });
    });
}

export function completeCommand(context: CliContext, run?: CompletionRun): Command {
  const runWork = run ?? realRun(context);
  return new Command('__complete')
    .description('values for shell completion (used by the scripts of fraudctl completion)')
    .addArgument(new Argument('<what>').choices(['profiles', 'words']))
    .addArgument(new Argument('[words...]'))
    .action(async (what: 'profiles' | 'words', words: string[], _options: unknown, command: Command) => {
      if (what === 'profiles') return runWork(command, { verb: 'profiles' });
      const bare = words.map((word) => {
        if (!word.startsWith(':'))
          throw new UsageError(`__complete words takes each word with a leading ':' (got ${JSON.stringify(word)})`);
        return word.slice(1);
      });
      await runWork(command, { verb: 'words', words: bare.length > 0 ? bare : [''] });
    });
}
