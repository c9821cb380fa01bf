/*
 * What a reader of `submit` input gives: records (a line of JSON Lines, or a JSON value) with
 * where each starts and its text, cut to KEEP_BYTES; and the one place a record's bytes are
 * gathered across chunks. Invariant: at most KEEP_BYTES of one record are held, and text is
 * decoded only once a record is complete, never splitting a UTF-8 character.
 */

/** One record of the input: a line of JSON Lines, or a value (an element of a top-level array). */
export interface InputRecord {
  /** 1-based line where the record starts: the line of JSON Lines, the line of a value's first character. */
  line: number;
  /**
   * 1-based column (in characters) of a value's first character; 1 for JSON Lines, where the
   * record is the whole line. With `line`, what identifies a record from one run to the next.
   */
  column: number;
  /**
   * The record's original text: the line without its line ending (and without a trailing \r),
   * or the value's exact source text (a string, number or literal at the top: as JSON.stringify
   * gives it). Cut to KEEP_BYTES when longer (then `truncated` is true; the cut never splits a
   * character). A broken value: its text up to where reading started again.
   */
  text: string;
  /** The record's full size in bytes (UTF-8), even when `text` was cut. */
  bytes: number;
  /** True when `text` holds only the first KEEP_BYTES of the record. */
  truncated: boolean;
  /**
   * Set when the reader itself found the record unusable: 'too large' (bytes > maxRecordBytes),
   * 'not JSON' (a value with a syntax error; `detail` says where). The caller JSON.parses
   * records without a problem itself.
   */
  problem?: 'too large' | 'not JSON';
  /** For 'not JSON': the line and column where the value broke, and what was found there. */
  detail?: string;
  /**
   * For a value the reader cut short as too large (values, not JSON Lines): the string `id` of the
   * object, when it stood in the first `maxRecordBytes` bytes (what is kept of it as `text`).
   */
  id?: string;
}

export type InputFormat = 'jsonl' | 'values';

/** Many events, read as a stream of records. */
export interface BatchInput {
  kind: 'batch';
  format: InputFormat;
  /**
   * The records in input order, streamed with backpressure: the next chunk of input is read only
   * when the records of the last one have been taken. Lines that are empty or only whitespace
   * are skipped (they produce no record, but they still count for line numbers). Iterable once.
   *
   * The iterator throws a CliError (exit code FAILURE) when the input turns out unreadable part
   * of the way: `PATH is not valid gzip data: …` for corrupt or cut-short gzip data, `cannot read
   * PATH: …` for a read error; for values, a syntax error after which no value start is found
   * (`PATH: not JSON at line L column C …`) or an input that ends inside a value. Ending the iteration early (break, return) releases the input like
   * `close()`; so does reaching its end.
   */
  records: AsyncIterable<InputRecord>;
  /** Bytes of the raw (possibly compressed) input consumed so far, for progress. */
  bytesRead(): number;
  /** Size of the raw input when it is a regular file, else null. */
  totalBytes: number | null;
  /**
   * The number of records, when it can be known cheaply before the run: only for a regular,
   * uncompressed JSON Lines file, counted by a fast streaming second read of the file (lines
   * holding any non-whitespace character). Otherwise, or if that read fails or the input is
   * closed meanwhile, resolves null.
   */
  countRecords(): Promise<number | null>;
  /** Stops reading and releases the file or stream (safe to call at any time, more than once). */
  close(): void;
}

/** One event, given whole. */
export interface SingleInput {
  kind: 'single';
  /** The whole input text (a single JSON document, probably one object), without a byte order mark. */
  text: string;
}

const MiB = 1024 * 1024;
/** The most of one record's text kept in memory: 16 MiB. */
export const KEEP_BYTES = 16 * MiB;

/** A buffer cut so that it does not end inside a UTF-8 character. */
export function wholeCharacters(buffer: Buffer): Buffer {
  let start = buffer.length - 1;
  while (start >= 0 && buffer.length - start < 4 && (buffer[start]! & 0xc0) === 0x80) start--;
  if (start < 0) return buffer;
  const lead = buffer[start]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return buffer.length - start < length ? buffer.subarray(0, start) : buffer;
}

/** [from, to) of a chunk as text, cut to KEEP_BYTES. */
export function textOf(chunk: Buffer, from: number, to: number): { text: string; truncated: boolean } {
  if (to - from <= KEEP_BYTES) return { text: chunk.toString('utf8', from, to), truncated: false };
  return { text: wholeCharacters(chunk.subarray(from, from + KEEP_BYTES)).toString('utf8'), truncated: true };
}

export function record(
  line: number,
  text: string,
  bytes: number,
  truncated: boolean,
  problem: InputRecord['problem'],
  column = 1,
): InputRecord {
  const r: InputRecord = { line, column, text, bytes, truncated };
  if (problem !== undefined) r.problem = problem;
  return r;
}

/** One record's bytes gathered across chunks: all of them counted, at most KEEP_BYTES kept. */
export class Gathered {
  private parts: Buffer[] = [];
  private kept = 0;
  /** Bytes added so far, kept or not. */
  bytes = 0;

  add(chunk: Buffer, from: number, to: number): void {
    if (to <= from) return;
    this.bytes += to - from;
    if (this.kept >= KEEP_BYTES) return;
    const end = Math.min(to, from + KEEP_BYTES - this.kept);
    this.parts.push(chunk.subarray(from, end));
    this.kept += end - from;
  }

  /** The bytes kept so far (all of them while fewer than KEEP_BYTES were added), left in place. */
  keptBytes(): Buffer {
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.kept);
  }

  /** The first `length` bytes added, as text (cut to KEEP_BYTES), and a fresh start. */
  take(length: number): { text: string; truncated: boolean } {
    const keep = Math.min(length, this.kept);
    const buffer = (this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.kept)).subarray(0, keep);
    const truncated = keep < length;
    const text = (truncated ? wholeCharacters(buffer) : buffer).toString('utf8');
    this.parts = [];
    this.kept = 0;
    this.bytes = 0;
    return { text, truncated };
  }
}
