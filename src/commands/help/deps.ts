import type { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { outputStream, type OutputStream } from '../room-deps.js';

/*
 * All that `help` takes from outside: stdout for a topic's text, and the command tree, whose
 * help commander writes where the tree was told to (program.ts: the context's stdout).
 * helpDeps builds the real ones; a test gives its own stream and tree.
 */

export interface HelpDeps {
  stdout: OutputStream;
  /** The root command, every command under it. */
  tree: Command;
}

export function helpDeps(context: CliContext, tree: Command): HelpDeps {
  return { stdout: outputStream(context.stdout), tree };
}
