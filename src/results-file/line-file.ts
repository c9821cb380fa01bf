import { closeSync, constants, copyFileSync, existsSync, openSync } from 'node:fs';
import { UsageError } from '../errors/cli-error.js';
import { FileWriteError, LineAppender } from '../files/append-line.js';
import { fileWriteFailure, roleOfOption, type FileRole } from '../files/file-errors.js';

/*
 * The writer of a results file (--out) of any job on the pool, and of the side files a job
 * keeps (submit's --rejects). Each line is written with one write(2) as soon as its result is
 * known, so a run killed at any moment (even SIGKILL) leaves every finished line on disk and at
 * worst one cut-off last line, which resume drops. A write that fails (a full disk) is cut back,
 * so the file holds whole lines only and resume works once there is room; a file deleted while
 * the run writes it is noticed and written back (LineFile.write).
 */

/** A file written one line at a time, each line one write(2). */
export class LineFile {
  /** Looked at every 100 ms, not at each line: a batch writes thousands a second (append-line.ts). */
  private readonly lines: LineAppender;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    role: FileRole,
  ) {
    this.lines = new LineAppender(fd, path, 100, process.platform, role);
  }

  /**
   * Opens for appending (resume) or creates it. A new results file never replaces an
   * existing one: that could be the record of a run someone meant to resume.
   */
  static open(path: string, mode: 'append' | 'create' | 'replace', what: string): LineFile {
    try {
      const fd = openSync(path, mode === 'append' ? 'a' : mode === 'create' ? 'wx' : 'w', 0o600);
      return new LineFile(path, fd, roleOfOption(what));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new UsageError(
          `${path} already exists`,
          `add --resume to continue the run that wrote it, or remove it, or choose another ${what}`,
        );
      const { message, hint } = fileWriteFailure(path, e, roleOfOption(what), { option: what });
      throw new UsageError(message, hint);
    }
  }

  /**
   * Fails as open(path, 'create') would for a file that exists, without creating it: a run that
   * asks a question before it writes (a bulk change's plan) says so before the question.
   */
  static refuseExisting(path: string, what: string): void {
    if (existsSync(path))
      throw new UsageError(
        `${path} already exists`,
        `add --resume to continue the run that wrote it, or remove it, or choose another ${what}`,
      );
  }

  /**
   * Adds a line whole or not at all (src/files/append-line.ts); throws a FileWriteError naming
   * the file (a full disk, the file deleted). A file deleted while open still holds its lines
   * until it is closed: they are copied back to its path (never over a file made there since),
   * so that --resume has them.
   */
  write(line: string): void {
    try {
      this.lines.append(`${line}\n`);
    } catch (error) {
      if (error instanceof FileWriteError && error.deleted) throw this.writtenBack();
      throw error;
    }
  }

  private writtenBack(): FileWriteError {
    try {
      // Linux: the open file, by its descriptor; elsewhere this fails and the loss is reported.
      copyFileSync(`/proc/self/fd/${this.fd}`, this.path, constants.COPYFILE_EXCL);
      return new FileWriteError(this.path, 'DELETED', 'deleted', {
        writtenBack: true,
        words: `what it held up to then was written back to ${this.path}`,
      });
    } catch (e) {
      return new FileWriteError(this.path, 'DELETED', 'deleted', {
        writtenBack: false,
        words: `what it held could not be written back (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}) and is lost`,
      });
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
