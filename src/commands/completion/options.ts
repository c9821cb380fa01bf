import type { Shell } from '../../completion/completion-script.js';

/*
 * What `completion SHELL` and the hidden `__complete …` are asked, as one typed value:
 * command.ts makes it from argv (the shell checked by commander's .choices(), each word of
 * `__complete words` by its leading ':'), run.ts does it.
 */

// The shells' names, here rather than imported: the script generator is import()ed only by the run.
export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const satisfies readonly Shell[];

export type CompletionOptions =
  /** `completion SHELL`: the script, written from the command tree. */
  | { verb: 'script'; shell: Shell }
  /** `__complete profiles`: the profile names, asked by the bash, zsh and fish scripts at each Tab. */
  | { verb: 'profiles' }
  /**
   * `__complete words`: what can replace the last word, given the words typed after `fraudctl`
   * (their leading ':' taken off; the last is the one being typed, '' when empty).
   */
  | { verb: 'words'; words: string[] };
