import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../errors/cli-error.js';
import { rewriteForResume } from '../files/rewrite-for-resume.js';
import { isHeaderObject, type RunHeader } from './header.js';
import { resultObject } from './lines.js';
import { readResults, type ResultsReading } from './read-results.js';
import { sendingText } from './sending.js';

/*
 * What --resume reads back of an earlier run's results file (PriorRun), and the rewrite that
 * leaves in it only the lines that stay settled (prepareResume). What a result line holds is
 * the job's: resume reads only what it needs of it (RecordedResult), through the job's reader.
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
  /**
   * The input may also have had no id: an old result (written before `idAssigned`) with the id
   * the service assigned to an event sent without one cannot tell.
   */
  orNoId?: boolean;
  /** A result without a decision (submit: kept in --rejects). */
  undecided?: boolean;
  /** An outcome nobody can tell (submit's UNKNOWN): the item may have had its effect. */
  unknown?: boolean;
}

/** A job's reader of its own result lines: undefined for a line that is not one of its results. */
export type ResultReader = (text: string) => RecordedResult | undefined;

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

/** The lines of a file this run rewrote (no byte order mark, its header checked already), as they are. */
const AS_FOUND: ResultsReading = { byteOrderMark: 'look-past', header: 'as-found' };

/** What an earlier run of the same batch left in the results file. */
export class PriorRun {
  readonly settled = new PositionSet();
  /** FAILED lines with an id: the event may be stored, so they are checked before being sent. */
  readonly unsure = new PositionSet();
  /** Every result the file recorded, failed ones too: an item recorded FAILED without an id was not stored. */
  readonly recorded = new PositionSet();
  settledCount = 0;
  dropped = 0;
  highestLine = 0;
  /** The run's header, or null for a file written before headers. */
  header: RunHeader | null = null;
  /**
   * Results without a decision (submit: every outcome but DECIDED), numbered 0, 1, … in file
   * order as the earlier run wrote them (its --rejects file has their lines in the same order):
   * those that stay settled, and how many there were.
   */
  readonly keptUndecided = new LineSet();
  undecidedCount = 0;
  /** Results kept whose outcome nobody can tell (submit's UNKNOWN): the rejects file holds their lines too. */
  keptUnknown = 0;
  /** Items the earlier run recorded `sending` for and never recorded a result for: they may have been sent. */
  readonly sendingUnresolved = new PositionSet();
  /** Settled records this run's input reached (skipped): fewer than settledCount at the input's end means records past it. */
  reached = 0;
  readonly reachedPositions = new PositionSet();
  /** Unrecorded items met so far, in input order (maySentBefore). */
  private unrecordedSeen = 0;
  /** Where each settled record's result is in the (rewritten) results file. */
  readonly offsets = new PositionOffsets();
  private path: string | null = null;
  private fd: number | null = null;
  private buffer = Buffer.alloc(4096);

  constructor(private readonly read: ResultReader) {}

  /** The file recordedResult reads from (prepareResume sets it once the file is rewritten). */
  attach(path: string): void {
    this.path = path;
  }

  /** The earlier run ended with every item it took recorded: nothing can have been sent unrecorded. */
  get closedCleanly(): boolean {
    return this.header?.closed === true;
  }

  /**
   * The result the results file records for a settled record, read back from the file (at the
   * offset prepareResume noted), or undefined when the record is not settled.
   */
  recordedResult(line: number, column = 1): RecordedResult | undefined {
    const offset = this.offsets.get(line, column);
    if (offset === undefined || this.path === null) return undefined;
    this.fd ??= openSync(this.path, 'r');
    for (;;) {
      const read = readSync(this.fd, this.buffer, 0, this.buffer.length, offset);
      const end = this.buffer.indexOf(0x0a);
      if (end >= 0 && end < read) return this.read(this.buffer.toString('utf8', 0, end));
      if (read < this.buffer.length) return undefined; // cannot happen: prepareResume wrote whole lines
      this.buffer = Buffer.alloc(this.buffer.length * 2);
    }
  }

  /** The id the results file records for a settled record (null: none), or undefined when the record is not settled. */
  recordedId(line: number, column = 1): string | null | undefined {
    const offset = this.offsets.get(line, column);
    if (offset === undefined) return undefined;
    return this.recordedResult(line, column)?.id ?? null;
  }

  /**
   * The first line of the results file holding a settled result the input never reached (a line
   * past its end), for the message that says so; undefined when there is none.
   */
  async strayLine(): Promise<number | undefined> {
    if (this.path === null) return undefined;
    for await (const { kind, text, lineNo } of readResults(this.path, AS_FOUND)) {
      const result = kind === 'line' ? this.read(text) : undefined;
      if (result?.settled && !this.reachedPositions.has(result.line, result.column)) return lineNo;
    }
    return undefined;
  }

  /** Closes the file recordedResult reads from. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Settled by the earlier run (submit: decided, rejected, or of unknown outcome without an id): not done again. */
  isSettled(line: number, column = 1): boolean {
    return this.settled.has(line, column);
  }

  /**
   * Whether the earlier run may have sent this item without recording it; asked once for each
   * item not settled, in input order. A FAILED result with an id may be stored (checked first);
   * one without an id, or any other recorded result, was not. Of the items with no result at
   * all: the earlier run took items in input order and held at most MAX_LINES_IN_PROGRESS
   * unrecorded at any time, so only the first MAX_LINES_IN_PROGRESS of them can have been taken
   * — and none when that run ended with everything it took recorded (its header says closed).
   * An item that cannot be checked (`unchecked`: an event without an id) was sent only if the
   * run recorded `sending` for it first, when its header says it did so for every one.
   */
  maySentBefore(line: number, column = 1, unchecked = false): boolean {
    if (this.unsure.has(line, column)) return true;
    if (this.recorded.has(line, column)) return false;
    if (this.closedCleanly) return false;
    const taken = ++this.unrecordedSeen <= MAX_LINES_IN_PROGRESS;
    if (unchecked && this.header?.marksSends === true) return this.sendingUnresolved.has(line, column);
    return taken;
  }
}

/**
 * Reads the results file of an earlier run and rewrites it (atomically: temp file, then
 * rename) holding `header` (this run's) and only the lines that stay settled. Failed lines are
 * dropped, since this run writes their new result, so the file ends with exactly one line per
 * input item. A file that is not what fraudctl writes — a line that is not a result (other than
 * a last line cut off by a crash), one result twice, a byte order mark, a line longer than any
 * result — is refused, saying what and where, and left as it was.
 */
export async function prepareResume(
  path: string,
  read: ResultReader,
  header: string | null = null,
  noun: 'line' | 'id' = 'line',
): Promise<PriorRun> {
  const prior = new PriorRun(read);
  refuseMissing(path);
  let written = 0;
  let pendingBad: number | undefined;
  const seen = new PositionSet();
  /** The items `sending` records name: few (one per send that cannot be checked), held until the end. */
  const marked: Array<{ line: number; column: number }> = [];
  // The file holding only the lines that stay settled, whole or not at all (rewrite-for-resume.ts).
  await rewriteForResume(path, async (write) => {
    const keep = (line: string) => {
      written += Buffer.byteLength(line);
      write(line);
    };
    if (header !== null) keep(`${header}\n`);
    for await (const line of readResults(path, { byteOrderMark: 'refuse', header: 'checked' })) {
      if (line.kind === 'header') {
        prior.header = line.header;
        continue;
      }
      if (pendingBad !== undefined) throw notOurs(path, pendingBad);
      if (line.kind === 'sending') {
        marked.push({ line: line.line, column: line.column });
        continue;
      }
      const { text, lineNo, ended } = line;
      const result = read(text);
      // Only a last line cut off by a crash (no line break after it) may be unreadable.
      if (!result) {
        if (ended) {
          const value = resultObject(text);
          if (value && isHeaderObject(value))
            throw new UsageError(
              `${path} line ${lineNo} is a run's header in the middle of the results: the file was put together by hand`,
              'give a new --out without --resume',
            );
          throw notOurs(path, lineNo);
        }
        pendingBad = lineNo;
        continue;
      }
      if (seen.has(result.line, result.column)) {
        const first = await firstLineFor(path, read, result);
        throw new UsageError(
          `${path} line ${lineNo} is a second result for ${noun} ${result.line}${result.column > 1 ? ` column ${result.column}` : ''} of the input (line ${first} is the first): the file was edited or put together by hand`,
          `remove one of the two lines, or give a new --out without --resume`,
        );
      }
      seen.add(result.line, result.column);
      prior.recorded.add(result.line, result.column);
      prior.highestLine = Math.max(prior.highestLine, result.line);
      const undecided = result.undecided === true ? prior.undecidedCount++ : -1;
      if (!result.settled) {
        if (result.unsure) prior.unsure.add(result.line, result.column);
        prior.dropped++;
        continue;
      }
      if (undecided >= 0) prior.keptUndecided.add(undecided);
      if (result.unknown === true) prior.keptUnknown++;
      prior.settled.add(result.line, result.column);
      prior.settledCount++;
      prior.offsets.set(result.line, result.column, written);
      keep(`${text}\n`);
    }
    if (pendingBad !== undefined) prior.dropped++;
    // A send recorded without its result stays recorded (after the results: order does not
    // matter), so that a run killed again before it reaches that item still knows.
    for (const { line, column } of marked) {
      if (seen.has(line, column) || prior.sendingUnresolved.has(line, column)) continue;
      prior.sendingUnresolved.add(line, column);
      keep(`${sendingText(line, column)}\n`);
    }
    return true;
  });
  prior.attach(path);
  return prior;
}

/**
 * --resume continues the run a results file records: with no file there is nothing to continue,
 * and starting afresh could send again everything a run whose file was lost (deleted, another
 * directory) had sent.
 */
export function refuseMissing(path: string): void {
  if (!existsSync(path)) throw new UsageError(`no results file ${path} to resume`, 'run without --resume to start');
}

/** The first line of the file holding a result for the same input position (a second one was found: the message names both). */
async function firstLineFor(path: string, read: ResultReader, twice: RecordedResult): Promise<number> {
  for await (const { kind, text, lineNo } of readResults(path, AS_FOUND)) {
    const r = kind === 'line' ? read(text) : undefined;
    if (r && r.line === twice.line && r.column === twice.column) return lineNo;
  }
  return 0; // cannot happen: the second one was read from this file
}

function notOurs(path: string, line: number): UsageError {
  return new UsageError(
    `${path} line ${line} is not a fraudctl result: not resuming from it`,
    'give --out the results file of the run to resume, or a new file without --resume',
  );
}
