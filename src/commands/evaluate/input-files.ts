import { open, type FileHandle } from 'node:fs/promises';
import { UsageError } from '../../errors/cli-error.js';

/*
 * Every file evaluate reads is opened here first, before anything is read or asked: a file that
 * is missing, a directory or unreadable is one line naming it (exit 2), never a report left half
 * made. The handle is the caller's to close.
 */

export async function openInput(path: string, what: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (e) {
    throw openProblem(path, what, e as NodeJS.ErrnoException);
  }
  try {
    if ((await handle.stat()).isDirectory()) throw new UsageError(`${path} is a directory, not ${what}`);
  } catch (e) {
    await handle.close();
    throw e instanceof UsageError ? e : openProblem(path, what, e as NodeJS.ErrnoException);
  }
  return handle;
}

function openProblem(path: string, what: string, e: NodeJS.ErrnoException): UsageError {
  if (e.code === 'ENOENT') return new UsageError(`no such file: ${path} (${what})`);
  if (e.code === 'EISDIR') return new UsageError(`${path} is a directory, not ${what}`);
  if (e.code === 'EACCES' || e.code === 'EPERM')
    return new UsageError(`cannot read ${path}: permission denied (${e.code})`, "check the file's permissions");
  return new UsageError(`cannot read ${path}: ${e.code ?? e.message}`);
}
