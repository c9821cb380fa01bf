import { fstatSync, ftruncateSync, statSync, writeSync } from 'node:fs';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { CliError, ExitCode } from '../errors/cli-error.js';
import { errorCode, fileCause, type FileRole } from './file-errors.js';
import { writeFully } from './write-fully.js';

/*
 * How a line is added to a file fraudctl keeps open for a whole run (a results file, --rejects,
 * an audit --log): whole or not at all, and never into a file that is gone.
 *
 * - The open file is looked at with fstat(2): a link count of 0 means it was deleted since it
 *   was opened (a tmp cleaner, a mistaken rm): whatever is written after that reaches nobody,
 *   so the write is refused. On Windows the link count is not to be trusted (Wine keeps it at 1
 *   after a deletion, and a real Windows's answer is untested here): there the path is looked at
 *   too, and a path that names no file, or another file, is taken for a deletion, so the run
 *   stops rather than write into a file nobody will see. The same fstat gives the file's length (it has one writer at a
 *   time), which is where a failed write is cut back to.
 * - The line goes through writeFully (one write(2) unless the disk takes it in pieces). A write
 *   that fails part-way (ENOSPC, EDQUOT, EIO after some bytes were taken) is undone with
 *   ftruncate(2) to that length, so a file never holds a torn line that a reader (--resume, an
 *   auditor's jq) would stumble on, and it stays whole for when space is freed.
 *
 * An fstat costs about as much as the write of a line (2 to 6 µs each on this project's 2-core machine,
 * a million lines): a results file, thousands of lines a second, is looked at every 100 ms; an
 * audit log, a line per action, before each line.
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
    /** What to do about it, when there is more to say than the reason (a command that works as written). */
    hint?: string,
    /** What the file is to the command (`the results file`), for the message: file-errors.ts's words. */
    role?: FileRole,
  ) {
    super(
      code === 'DELETED'
        ? `${path} was deleted while fraudctl was writing it${deletion ? `: ${deletion.words}` : ''}`
        : `cannot write ${role ? `the ${role} ` : ''}${path}: ${reason}`,
      ExitCode.FAILURE,
      hint,
    );
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

function failure(path: string, error: unknown, role?: FileRole): FileWriteError {
  return new FileWriteError(path, errorCode(error), fileCause(error, true), undefined, undefined, role);
}

/**
 * What `path` names now, against an open file (`open`, its fstat): that file (`same`), nothing
 * (`gone`: deleted, or renamed away), or another file (`other`: renamed away and replaced). A
 * failure to look other than ENOENT is thrown.
 */
export function pathNames(path: string, open: { dev: number; ino: number }): 'same' | 'gone' | 'other' {
  let atPath;
  try {
    atPath = statSync(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'gone';
    throw error;
  }
  return atPath.dev === open.dev && atPath.ino === open.ino ? 'same' : 'other';
}

/**
 * Adds lines to a file open for append (or written only by this), each whole or not at all;
 * throws a FileWriteError naming `path` when one cannot be. `checkEveryMs`: how often the file
 * is looked at (fstat: deleted? its length?); 0, before every line. Between looks the length is
 * counted here, which holds because the file has one writer (its lock refuses a second run); a
 * busy results file is looked at every 100 ms rather than at each of its
 * thousands of lines a second, and a deletion is noticed within that time (the lines written
 * meanwhile went to the deleted file, which is still open and can be copied back).
 */
export class LineAppender {
  private length = 0;
  private lookedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly fd: number,
    readonly path: string,
    private readonly checkEveryMs = 0,
    private readonly platform: NodeJS.Platform = process.platform,
    private readonly role?: FileRole,
  ) {}

  /** On Windows: whether `path` still names the open file (`stats`, its fstat). */
  private pathStillNames(stats: { dev: number; ino: number }): boolean {
    try {
      return pathNames(this.path, stats) === 'same';
    } catch (error) {
      throw failure(this.path, error, this.role);
    }
  }

  append(line: string): void {
    const now = this.checkEveryMs === 0 ? 0 : performance.now();
    if (this.checkEveryMs === 0 || now - this.lookedAt >= this.checkEveryMs) {
      let stats;
      try {
        stats = fstatSync(this.fd);
      } catch (error) {
        throw failure(this.path, error, this.role);
      }
      if (stats.nlink === 0 || (this.platform === 'win32' && !this.pathStillNames(stats)))
        throw new FileWriteError(this.path, 'DELETED', 'deleted', undefined, undefined, this.role);
      this.length = stats.size;
      this.lookedAt = now;
    }
    try {
      this.length += writeFully(this.fd, line);
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.length);
      } catch {
        // Cutting back failed too (the disk is gone): the write's own failure is what to report.
      }
      // Looked at again before the next line: the length is known, but not what else happened.
      this.lookedAt = Number.NEGATIVE_INFINITY;
      throw failure(this.path, error, this.role);
    }
  }
}

/**
 * Adds lines to what is not a regular file — a FIFO (a log shipper's), a pipe (`--log /dev/stdout
 * | head`), a terminal, /dev/null — opened write-only and non-blocking (O_NONBLOCK), so that this
 * process is never its own reader and a write never holds the thread: a write(2) that would block
 * (EAGAIN, the reader is behind) is tried again from a timer, so signal handlers and a screen
 * go on meanwhile. A reader that takes nothing for `stallMs`, or `signal` aborted while waiting
 * for it, fails the line. After a failure every later line fails the same way: a stream has no
 * length to cut a torn line back to, and a reader that went away (EPIPE) does not come back.
 */
export class StreamLineWriter {
  private failed: FileWriteError | null = null;

  constructor(
    private readonly fd: number,
    readonly path: string,
    private readonly stallMs: number,
    private readonly signal?: AbortSignal,
    private readonly role?: FileRole,
  ) {}

  private fail(code: string, reason: string, hint?: string): FileWriteError {
    this.failed = new FileWriteError(this.path, code, reason, undefined, hint, this.role);
    return this.failed;
  }

  async append(line: string): Promise<void> {
    if (this.failed) throw this.failed;
    const bytes = Buffer.from(line, 'utf8');
    let done = 0;
    let pause = 1;
    let since = performance.now();
    while (done < bytes.length) {
      let n: number;
      try {
        n = writeSync(this.fd, bytes, done, bytes.length - done);
      } catch (error) {
        const code = errorCode(error);
        if (code === 'EPIPE') {
          throw this.fail(code, 'its reader went away (EPIPE)', 'give --log a file, or a reader that reads to the end');
        }
        if (code !== 'EAGAIN') throw this.fail(code, fileCause(error, true));
        const stalled = 'start its reader, or give --log a file';
        if (this.signal?.aborted) throw this.fail('STALLED', 'interrupted while its reader took nothing', stalled);
        if (performance.now() - since >= this.stallMs) {
          throw this.fail('STALLED', `its reader took nothing for ${this.stallMs / 1000} s`, stalled);
        }
        await sleepFor(pause);
        pause = Math.min(50, pause * 2);
        continue;
      }
      done += n;
      since = performance.now();
      pause = 1;
    }
  }
}
