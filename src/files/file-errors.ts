import { dirname } from 'node:path';
import { diskFreeCommand, listFilesCommand } from '../render/shell-command.js';
import { terminalSafe } from '../render/terminal-text.js';

/*
 * Why a local file or directory could not be written, in words a user acts on: "no space left on
 * its disk (ENOSPC)", not a bare code, and a hint that is a command working as written. One place,
 * so the config file, its directory and the sandbox's database say the same thing for the same
 * cause.
 */

const CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on its disk',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'its file system is mounted read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'it is a directory',
  EIO: 'an input/output error from the disk',
  ELOOP: 'too many symbolic links in the path',
  ENAMETOOLONG: 'the path is too long',
  // Windows: another program holds the file open without letting others change it (an editor, a
  // spreadsheet, a virus scanner at work).
  EBUSY: 'another program has it open',
};

/** The error's code ("ENOSPC"), or its text when it has none. */
export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
}

/** "no space left on its disk (ENOSPC)"; the bare code for a cause without words. */
export function fileErrorCause(error: unknown): string {
  const code = errorCode(error);
  const words = CAUSES[code];
  return words ? `${words} (${code})` : terminalSafe(code);
}

/**
 * What to do about the cause, for a file in `dir`. `movedBy` names what puts the directory
 * elsewhere (an environment variable, an option), for a file system that cannot be written at all.
 */
export function fileErrorHint(error: unknown, dir: string, movedBy?: string): string {
  const code = errorCode(error);
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `free some space and try again; ${diskFreeCommand(dir)} shows how full the disk is`;
    case 'EROFS':
      return movedBy
        ? `set ${movedBy} to a directory on a writable disk`
        : `use a directory on a writable disk; ${diskFreeCommand(dir)} names the read-only one`;
    case 'EACCES':
    case 'EPERM':
      return `check who owns it and its mode: ${listFilesCommand([dir])}`;
    case 'EBUSY':
      return 'close the program that has it open (an editor, a spreadsheet), then try again';
    default:
      return `check the directory: ${listFilesCommand([dir])}`;
  }
}

/** What a file is to the command that reads it, as its messages name it. */
export type FileRole = 'log' | 'id list' | 'file of events';

/**
 * Why a file could not be read, in one wording for every reader: "cannot read the id list
 * ids.txt: no such file", then what to do. `give` says which files the command takes, for a path
 * that names none (missing, a directory); any other cause gets the hint of its cause.
 */
export function fileFailure(
  path: string,
  error: unknown,
  role: FileRole,
  give?: string,
): { message: string; hint: string } {
  const code = errorCode(error);
  const cause = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : fileErrorCause(error);
  const message = `cannot read the ${role} ${terminalSafe(path)}: ${cause}`;
  if (code === 'ENOENT' || code === 'EISDIR') {
    return { message, hint: give ?? `check the path: ${listFilesCommand([code === 'EISDIR' ? path : dirname(path)])}` };
  }
  // Permission, a path through a file: about the file itself, not the directory it is in.
  return { message, hint: fileErrorHint(error, code === 'EACCES' || code === 'EPERM' ? path : dirname(path)) };
}
