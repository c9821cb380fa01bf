import type { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { completionValues } from '../../completion/completion-values.js';
import { outputStream, type OutputStream } from '../room-deps.js';

/*
 * All that completion takes from outside: stdout, the command tree it describes (the scripts)
 * or answers from (`__complete words`), and the profile names of the config file at the moment
 * of the Tab. completionDeps builds the real ones; a test gives its own.
 */

export interface CompletionDeps {
  stdout: OutputStream;
  /** The root command: every command, option and value the scripts complete. */
  tree: Command;
  /** The profile names, the built-in sandbox last; none when the config file cannot be read. */
  profiles(): string[];
}

export function completionDeps(context: CliContext, tree: Command): CompletionDeps {
  return {
    stdout: outputStream(context.stdout),
    tree,
    profiles: () => completionValues('profiles', context.env),
  };
}
