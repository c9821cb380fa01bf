import { existsSync } from 'node:fs';
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

/**
 * "no space left on its disk (ENOSPC)"; the bare code for a cause without words. `shownCode`: the
 * code the user's program said for the same cause (SQLite's SQLITE_FULL for a full disk).
 */
export function fileErrorCause(error: unknown, shownCode = errorCode(error)): string {
  const words = CAUSES[errorCode(error)];
  return words ? `${words} (${terminalSafe(shownCode)})` : terminalSafe(shownCode);
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

/** What a file is to the command that reads or writes it, as its messages name it. */
export type FileRole =
  | 'log'
  | 'id list'
  | 'file of events'
  | 'results file'
  | 'rejects file'
  | 'config file'
  | 'sandbox database'
  | 'HTML report';

/** The file an option of a command writes, as messages name it (`--out`: the results file). */
export function roleOfOption(option: string): FileRole {
  return option === '--rejects' ? 'rejects file' : option === '--log' ? 'log' : 'results file';
}

/**
 * Why a file could not be read or written, in the words every message uses: a missing file (a
 * missing directory, for a file to be written) and a directory said plainly, any other cause with
 * its code. The one place a cause is worded.
 */
export function fileCause(error: unknown, writing = false): string {
  const code = errorCode(error);
  if (code === 'ENOENT') return writing ? 'no such directory' : 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  return fileErrorCause(error);
}

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
  const message = `cannot read the ${role} ${terminalSafe(path)}: ${fileCause(error)}`;
  if (code === 'ENOENT' || code === 'EISDIR') {
    return { message, hint: give ?? `check the path: ${listFilesCommand([code === 'EISDIR' ? path : dirname(path)])}` };
  }
  // Permission, a path through a file: about the file itself, not the directory it is in.
  return { message, hint: fileErrorHint(error, code === 'EACCES' || code === 'EPERM' ? path : dirname(path)) };
}

export interface WriteFailureWords {
  /** The option that names the file (`--out`): the hint for a path that cannot be a file says to give another. */
  option?: string;
  /** What puts the file elsewhere (an environment variable), for a file system that cannot be written at all. */
  movedBy?: string;
  /** The path as shown, when it is more than the path (`config.json (a link to …)`); made safe by the caller. */
  shown?: string;
  /** What failed when it was not the file itself: `cannot create its lock config.json.lock`. */
  doing?: string;
  /** Where permissions are to be looked at: the file by default when it exists, else its directory. */
  at?: string;
}

/**
 * Why a file could not be written, in one wording for every writer (the results and rejects
 * files, the action log, the config file, the sandbox's database): "cannot write the results
 * file out.jsonl: its file system is mounted read-only (EROFS)", then what to do — a command
 * that works as written, or which file to give instead. The exit code is the writer's.
 */
export function fileWriteFailure(
  path: string,
  error: unknown,
  role: FileRole,
  words: WriteFailureWords = {},
): { message: string; hint: string } {
  const code = errorCode(error);
  const doing = words.doing ? `${words.doing}: ` : '';
  const message = `cannot write the ${role} ${words.shown ?? terminalSafe(path)}: ${doing}${fileCause(error, true)}`;
  const give = words.option ? `give ${words.option} a file` : 'give a file';
  if (code === 'ENOENT') return { message, hint: `${give} in a directory that exists` };
  if (code === 'EISDIR') return { message, hint: `${give}, not a directory` };
  if (code === 'EACCES' || code === 'EPERM') {
    return { message, hint: fileErrorHint(error, words.at ?? (existsSync(path) ? path : dirname(path))) };
  }
  return { message, hint: fileErrorHint(error, words.at ?? dirname(path), words.movedBy) };
}
