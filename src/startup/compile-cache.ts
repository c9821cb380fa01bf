import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../paths/xdg-paths.js';

/*
 * V8's compiled code for fraudctl's modules, kept on disk by Node (module.enableCompileCache,
 * Node >= 22.1), so a command does not compile the same JavaScript at every start
 * (bench:startup). It lives in `<cache dir>/compile-cache/<Node version>`, and Node checks each
 * entry against the source it was made from. Its size is bounded: the first run on a Node version
 * removes the directories of every other version (Node never prunes them), so the cache holds
 * one version's code however often Node is upgraded (docs/decisions/compile-cache-one-version.md).
 * On Node 20 nothing is attempted.
 *
 * A cache is a help, never a condition: a directory that cannot be made or written, or any other
 * failure, leaves the command to run uncached, without a word. NODE_DISABLE_COMPILE_CACHE turns
 * it off, as for any Node program.
 */

type EnableCompileCache = (directory: string) => { status?: number } | undefined;

export function compileCacheDir(env: NodeJS.ProcessEnv): string {
  return join(cacheDir(env), 'compile-cache', process.versions.node);
}

/** Before the first run on this Node version: the other versions' code goes (one existsSync otherwise). */
function removeOtherVersions(directory: string): void {
  if (existsSync(directory)) return;
  const parent = join(directory, '..');
  try {
    for (const entry of readdirSync(parent)) {
      if (entry !== process.versions.node) rmSync(join(parent, entry), { recursive: true, force: true });
    }
  } catch {
    // Nothing there yet, or not ours to remove: the cache stays a help, never a condition.
  }
}

/** Turns the cache on for every module loaded from now on; true when Node has it on. */
export function enableCompileCache(env: NodeJS.ProcessEnv): boolean {
  const module = process.getBuiltinModule('node:module') as {
    enableCompileCache?: EnableCompileCache;
    constants?: { compileCacheStatus?: Record<string, number> };
  };
  if (typeof module.enableCompileCache !== 'function') return false;
  try {
    const directory = compileCacheDir(env);
    removeOtherVersions(directory);
    const status = module.enableCompileCache(directory)?.status;
    const { ENABLED, ALREADY_ENABLED } = module.constants?.compileCacheStatus ?? {};
    return status !== undefined && (status === ENABLED || status === ALREADY_ENABLED);
  } catch {
    return false;
  }
}
