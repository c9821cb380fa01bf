import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/*
 * Creates a directory and its missing parents, one level at a time. By hand rather than with
 * mkdirSync's `recursive`: on a read-only file system (and for some permission failures) Node's
 * recursive mkdir reports ENOENT for the directory asked for, which names neither the real cause
 * (EROFS, EACCES, ENOSPC) nor the level that failed. One mkdir(2) per missing level gives both.
 */

/** The cause of a failed creation: the real error, and the level at which it happened. */
export class MakeDirectoryError extends Error {
  constructor(
    readonly dir: string,
    /** The directory whose mkdir (or stat) failed: `dir` itself or one of its parents. */
    readonly failedAt: string,
    readonly error: NodeJS.ErrnoException,
  ) {
    super(`cannot create ${dir}: ${error.code ?? error.message} at ${failedAt}`);
    this.name = 'MakeDirectoryError';
  }

  get code(): string | undefined {
    return this.error.code;
  }

  /** The deepest level that exists: where a user can look (df, ls -ld). */
  get existingParent(): string {
    let at = dirname(this.failedAt);
    for (;;) {
      try {
        statSync(at);
        return at;
      } catch {
        const up = dirname(at);
        if (up === at) return at;
        at = up;
      }
    }
  }
}

/**
 * Makes `dir` (and any missing parent) with `mode`; the directory itself is then given exactly
 * `mode` (mkdir's is filtered by the umask). Returns false when `dir` was there already (its mode
 * is then left as it is). A path that exists but is not a directory fails as ENOTDIR.
 */
export function makeDirectory(dir: string, mode: number): boolean {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    try {
      if (statSync(at).isDirectory()) break;
      throw new MakeDirectoryError(dir, at, Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' }));
    } catch (e) {
      if (e instanceof MakeDirectoryError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      // ENOTDIR: a file further up is in the way; the walk up finds it and names it.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new MakeDirectoryError(dir, at, e as NodeJS.ErrnoException);
      missing.unshift(at);
      if (dirname(at) === at) break;
    }
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode });
    } catch (e) {
      // Made by another process meanwhile: as good as made here.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new MakeDirectoryError(dir, level, e as NodeJS.ErrnoException);
    }
  }
  if (missing.length === 0) return false;
  try {
    chmodSync(dir, mode);
  } catch (e) {
    throw new MakeDirectoryError(dir, dir, e as NodeJS.ErrnoException);
  }
  return true;
}
