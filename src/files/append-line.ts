import { fstatSync, ftruncateSync } from 'node:fs';
import { CliError } from '../errors/cli-error.js';
import { writeFully } from './write-fully.js';

/*
 * How a line is added to a file fraudctl keeps open for a whole run (a results file, --rejects,
 * an audit --log): whole or not at all, and never into a file that is gone.
 *
 * - Before the write, one fstat(2) of the open file: a link count of 0 means the file was
 *   deleted since it was opened (a tmp cleaner, a mistaken rm): whatever is written after that
 *   reaches nobody, so the write is refused. The same fstat gives the length the file had
 *   before the line (the file has one writer at a time), which is where a failed write is cut
 *   back to.
 * - The line goes through writeFully (one write(2) unless the disk takes it in pieces). A write
 *   that fails part-way (ENOSPC, EDQUOT, EIO after some bytes were taken) is undone with
 *   ftruncate(2) to that length, so a file never holds a torn line that a reader (--resume, an
 *   auditor's jq) would stumble on, and it stays whole for when space is freed.
 *
 * The cost is one fstat per line: about 1 µs, measured against the write itself in the report of
 * issue #24 (a million lines).
 */

/** A line that could not be added: the file, and why in words (the errno code kept for callers). */
export class FileWriteError extends CliError {
  constructor(
    readonly path: string,
    /** ENOSPC, EDQUOT, EIO, …; `DELETED` when the file was deleted while open. */
    readonly code: string,
    reason: string,
    /** For a deleted file: whether the lines it held were written back to its path, and in words. */
    readonly deletion?: { writtenBack: boolean; words: string },
  ) {
    super(code === 'DELETED' ? `${path} was deleted while fraudctl was writing it${deletion ? `: ${deletion.words}` : ''}` : `cannot write ${path}: ${reason}`);
    this.name = 'FileWriteError';
  }

  get deleted(): boolean {
    return this.code === 'DELETED';
  }

  /** The lines written before the failure are in a file at `path`: a full disk, or a deleted file written back. */
  get kept(): boolean {
    return !this.deleted || this.deletion?.writtenBack === true;
  }
}

const REASONS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the disk (ENOSPC)',
  EDQUOT: 'the disk quota is used up (EDQUOT)',
  EFBIG: 'the file is larger than this disk allows (EFBIG)',
  EIO: 'the disk failed to write (EIO)',
  EROFS: 'the disk is now read-only (EROFS)',
};

function failure(path: string, error: unknown): FileWriteError {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  return new FileWriteError(path, code, REASONS[code] ?? `${code} (${(error as Error).message})`);
}

/**
 * Appends `line` (with its newline) to the file open at `fd` (opened for append, or written only
 * by this), whole or not at all; throws a FileWriteError naming `path` when it cannot.
 */
export function appendLine(fd: number, path: string, line: string): void {
  let before;
  try {
    before = fstatSync(fd);
  } catch (error) {
    throw failure(path, error);
  }
  if (before.nlink === 0) throw new FileWriteError(path, 'DELETED', 'deleted');
  try {
    writeFully(fd, line);
  } catch (error) {
    try {
      ftruncateSync(fd, before.size);
    } catch {
      // Cutting back failed too (the disk is gone): the write's own failure is what to report.
    }
    throw failure(path, error);
  }
}
