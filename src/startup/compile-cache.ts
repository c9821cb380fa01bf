import { join } from 'node:path';
import { cacheDir } from '../paths/xdg-paths.js';

/*
 * V8's compiled code for fraudctl's modules, kept on disk by Node (module.enableCompileCache,
 * Node >= 22.1), so a command does not compile the same JavaScript at every start
 * (docs/decisions/compile-cache.md: what it saves, and why nothing is pruned). It lives in
 * `<cache dir>/compile-cache`, where Node keeps each version's code in a directory of its own and
 * checks each entry against the source it was made from. On Node 20 nothing is attempted.
 *
 * A cache is a help, never a condition: a directory that cannot be made or written, or any other
 * failure, leaves the command to run uncached, without a word. NODE_DISABLE_COMPILE_CACHE turns
 * it off, as for any Node program.
 */

export function enableCompileCache(env: NodeJS.ProcessEnv): void {
  const module = process.getBuiltinModule('node:module') as { enableCompileCache?: (directory: string) => unknown };
  try {
    module.enableCompileCache?.(join(cacheDir(env), 'compile-cache'));
  } catch {
    // The command runs uncached.
  }
}
