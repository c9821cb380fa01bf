import type { CompletionDeps } from './deps.js';
import type { CompletionOptions } from './options.js';

/*
 * `completion SHELL` prints the script (src/completion/completion-script.ts); `__complete`
 * answers the scripts at each Tab, one candidate a line, none when the shell should complete a
 * file name. Each loads only its own part: a Tab runs `__complete profiles`, and stays quick.
 */

export async function run(options: CompletionOptions, deps: CompletionDeps): Promise<void> {
  if (options.verb === 'script') {
    const { completionScript } = await import('../../completion/completion-script.js');
    deps.stdout.write(completionScript(options.shell, deps.tree));
    return;
  }
  let values: string[];
  if (options.verb === 'profiles') {
    values = deps.profiles();
  } else {
    const { completeWords } = await import('../../completion/completion-words.js');
    values = completeWords(deps.tree, options.words, () => deps.profiles());
  }
  if (values.length > 0) deps.stdout.write(`${values.join('\n')}\n`);
}
