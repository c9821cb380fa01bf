import { closeSync, constants, copyFileSync, createReadStream, existsSync, fsyncSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { fileErrorCause } from '../files/file-errors.js';
import { writeFully } from '../files/write-fully.js';
import { FileWriteError, LineAppender } from '../files/append-line.js';

/*
 * The results file (--out) of any job on the pool, and the side files a job keeps (submit's
 * --rejects). Each line is written with one write(2) as soon as its result is known, so a run
 * killed at any moment (even SIGKILL) leaves every finished line on disk and at worst one
 * cut-off last line, which resume drops. A write that fails (a full disk) is cut back, so the
 * file holds whole lines only and resume works once there is room; a file deleted while the run
 * writes it is noticed and written back (LineFile.write). What a result line holds is the job's: the pool reads
 * back only what resume needs of it (RecordedResult), through the job's reader.
 */

/** What resume needs of one line of a results file, whatever the job. */
export interface RecordedResult {
  /** Where the item starts in the input (JSON Lines: its line; a list of ids: its place in the list) and column (1 unless several items share a line). */
  line: number;
  column: number;
  /** The id the item named, compared with the input's when resume reaches it; null for none. */
  id: string | null;
  /** False for a failure: the line is dropped from the file and the item is done again. */
  settled: boolean;
  /** A failure after which the item may have had its effect: the job checks before acting again. */
  unsure: boolean;
}

/** A job's reader of its own result lines: undefined for a line that is not one of its results. */
export type ResultReader = (text: string) => RecordedResult | undefined;

/** A line of a results file as the JSON object it should be, or undefined (not JSON, not an object): each job's reader starts here. */
export function resultObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * The most lines one batch has taken and not yet recorded: those sending (at most
 * --concurrency) and those waiting out a backoff or Retry-After, which give up their request
 * slot meanwhile. By Little's law, a batch at 4,000 lines/s where 10% of the lines wait 1 s has
 * about 400 lines waiting; 1,024 leaves room for more than twice that, and holds a few MB of
 * typical events. It is also how far past the last recorded line resume must look.
 */
export const MAX_LINES_IN_PROGRESS = 1024;

/** A set of line numbers, one bit each: a million lines take 125 KB. */
class LineSet {
  private bits = new Uint8Array(1024);

  add(line: number): void {
    const byte = line >>> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte]! |= 1 << (line & 7);
  }

  has(line: number): boolean {
    const byte = line >>> 3;
    return byte < this.bits.length && (this.bits[byte]! & (1 << (line & 7))) !== 0;
  }
}

/**
 * Where records start, (line, column): column 1 (every JSON Lines record, every value jq prints)
 * one bit per line; any other column (array elements, values sharing a line) by name.
 */
class PositionSet {
  private readonly atLineStart = new LineSet();
  private readonly others = new Set<string>();

  add(line: number, column: number): void {
    if (column === 1) this.atLineStart.add(line);
    else this.others.add(positionKey(line, column));
  }

  has(line: number, column: number): boolean {
    return column === 1 ? this.atLineStart.has(line) : this.others.has(positionKey(line, column));
  }
}

/** A record's position as one key. */
export const positionKey = (line: number, column: number) => `${line}:${column}`;

/**
 * Where each settled record's result starts in the results file (byte offset + 1; 0: none), so
 * that resume can read any record's recorded id back when the input reaches it, instead of
 * holding every id in memory: 8 bytes a line for records at a line's start (a million lines
 * 8 MB), a map entry for the others (array elements, values sharing a line).
 */
class PositionOffsets {
  private atLineStart = new Float64Array(1024);
  private readonly others = new Map<string, number>();

  set(line: number, column: number, offset: number): void {
    if (column !== 1) {
      this.others.set(positionKey(line, column), offset);
      return;
    }
    if (line >= this.atLineStart.length) {
      const grown = new Float64Array(Math.max(line + 1, this.atLineStart.length * 2));
      grown.set(this.atLineStart);
      this.atLineStart = grown;
    }
    this.atLineStart[line] = offset + 1;
  }

  get(line: number, column: number): number | undefined {
    if (column !== 1) return this.others.get(positionKey(line, column));
    const stored = line < this.atLineStart.length ? this.atLineStart[line]! : 0;
    return stored === 0 ? undefined : stored - 1;
  }
}

/** What an earlier run of the same batch left in the results file. */
export class PriorRun {
  readonly settled = new PositionSet();
  /** FAILED lines with an id: the event may be stored, so they are checked before being sent. */
  readonly unsure = new PositionSet();
  settledCount = 0;
  dropped = 0;
  highestLine = 0;
  /** Where each settled record's result is in the (rewritten) results file. */
  readonly offsets = new PositionOffsets();
  private path: string | null = null;
  private fd: number | null = null;
  private buffer = Buffer.alloc(4096);

  constructor(private readonly read: ResultReader) {}

  /** The file recordedId reads from (prepareResume sets it once the file is rewritten). */
  attach(path: string): void {
    this.path = path;
  }

  /**
   * The id the results file records for a settled record, read back from the file (at the
   * offset prepareResume noted), or undefined when the record is not settled.
   */
  recordedId(line: number, column = 1): string | null | undefined {
    const offset = this.offsets.get(line, column);
    if (offset === undefined || this.path === null) return undefined;
    this.fd ??= openSync(this.path, 'r');
    for (;;) {
      const read = readSync(this.fd, this.buffer, 0, this.buffer.length, offset);
      const end = this.buffer.indexOf(0x0a);
      if (end >= 0 && end < read) return this.read(this.buffer.toString('utf8', 0, end))?.id ?? null;
      if (read < this.buffer.length) return null; // cannot happen: prepareResume wrote whole lines
      this.buffer = Buffer.alloc(this.buffer.length * 2);
    }
  }

  /** Closes the file recordedId reads from. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Settled by the earlier run (submit: decided, rejected, or of unknown outcome without an id): not done again. */
  isSettled(line: number, column = 1): boolean {
    return this.settled.has(line, column);
  }

  /**
   * Whether the earlier run may have sent this line without recording it. Lines are taken in
   * input order and at most MAX_LINES_IN_PROGRESS are taken and not recorded, so an unrecorded
   * line past the highest recorded one by more than that was never taken (several records on one
   * line only make this err on the side of checking).
   */
  maySentBefore(line: number, column = 1): boolean {
    return this.unsure.has(line, column) || line <= this.highestLine + MAX_LINES_IN_PROGRESS;
  }
}

/**
 * Reads the results file of an earlier run and rewrites it (atomically: temp file, then
 * rename) holding only the lines that stay settled. Failed lines are dropped, since this run
 * writes their new result, so the file ends with exactly one line per input item.
 */
export async function prepareResume(path: string, read: ResultReader): Promise<PriorRun> {
  const prior = new PriorRun(read);
  refuseMissing(path);
  const temp = `${path}.resume-${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o644);
  let lineNo = 0;
  let written = 0;
  let pendingBad: number | undefined;
  try {
    const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
    for await (const text of lines) {
      lineNo++;
      if (text.trim() === '') continue;
      if (pendingBad !== undefined) throw notOurs(path, pendingBad);
      const result = read(text);
      // Only the last line may be unreadable: a run killed while writing it.
      if (!result) {
        pendingBad = lineNo;
        continue;
      }
      prior.highestLine = Math.max(prior.highestLine, result.line);
      if (!result.settled) {
        if (result.unsure) prior.unsure.add(result.line, result.column);
        prior.dropped++;
        continue;
      }
      prior.settled.add(result.line, result.column);
      prior.settledCount++;
      prior.offsets.set(result.line, result.column, written);
      written += writeFully(fd, `${text}\n`);
    }
    if (pendingBad !== undefined) prior.dropped++;
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
    prior.attach(path);
    return prior;
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    // A full disk while rewriting: the results file itself is untouched (the rename never came).
    if (typeof code === 'string' && !(error instanceof CliError)) throw new CliError(`cannot prepare ${path} for --resume: ${fileErrorCause(error)} writing ${temp}; ${path} is unchanged`, ExitCode.FAILURE, 'free space on its disk, then run the same command again');
    throw error;
  }
}

/**
 * --resume continues the run a results file records: with no file there is nothing to continue,
 * and starting afresh could send again everything a run whose file was lost (deleted, another
 * directory) had sent.
 */
export function refuseMissing(path: string): void {
  if (!existsSync(path)) throw new UsageError(`no results file ${path} to resume`, 'run without --resume to start');
}

function notOurs(path: string, line: number): UsageError {
  return new UsageError(`${path} line ${line} is not a fraudctl result: not resuming from it`, 'give --out the results file of the run to resume, or a new file without --resume');
}

/** A file written one line at a time, each line one write(2). */
export class LineFile {
  /** Looked at every 100 ms, not at each line: a batch writes thousands a second (append-line.ts). */
  private readonly lines: LineAppender;

  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {
    this.lines = new LineAppender(fd, path, 100);
  }

  /**
   * Opens for appending (resume) or creates it. A new results file never replaces an
   * existing one: that could be the record of a run someone meant to resume.
   */
  static open(path: string, mode: 'append' | 'create' | 'replace', what: string): LineFile {
    try {
      return new LineFile(path, openSync(path, mode === 'append' ? 'a' : mode === 'create' ? 'wx' : 'w', 0o644));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new UsageError(`${path} already exists`, `add --resume to continue the run that wrote it, or remove it, or choose another ${what}`);
      if (code === 'ENOENT') throw new UsageError(`cannot create ${path}: no such directory`);
      if (code === 'EISDIR') throw new UsageError(`${path} is a directory`);
      throw new UsageError(`cannot write ${path}: ${code ?? (e as Error).message}`);
    }
  }

  /**
   * Fails as open(path, 'create') would for a file that exists, without creating it: a run that
   * asks a question before it writes (a bulk change's plan) says so before the question.
   */
  static refuseExisting(path: string, what: string): void {
    if (existsSync(path)) throw new UsageError(`${path} already exists`, `add --resume to continue the run that wrote it, or remove it, or choose another ${what}`);
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
      return new FileWriteError(this.path, 'DELETED', 'deleted', { writtenBack: true, words: `what it held up to then was written back to ${this.path}` });
    } catch (e) {
      return new FileWriteError(this.path, 'DELETED', 'deleted', { writtenBack: false, words: `what it held could not be written back (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}) and is lost` });
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
