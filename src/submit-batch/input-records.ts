import { createReadStream, type ReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import { TokenParser, Tokenizer, TokenType, type ParsedTokenInfo } from '@streamparser/json';
import type { CliContext } from '../cli-context.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';

/*
 * What `fraudctl submit SOURCE` reads: one event, or a stream of records pulled one chunk at a
 * time, so memory stays flat however large the input (gzip or not, recognised by its bytes).
 * `openInput` peeks at the start to decide which, puts back what it looked at, and hands the
 * rest to one of two readers:
 *
 * - JSON Lines: cut by hand from Buffer chunks (node:readline has no cap on a line's length: one
 *   2 GB line would be held whole), keeping at most KEEP_BYTES of each. A line is a record
 *   whatever it holds, so a broken line is one rejected record and the next goes on.
 * - Any other layout (a JSON array, one value over many lines, values one after another as `jq`
 *   prints them): a stream of JSON values, each one a record, except that a top-level array's
 *   elements are the records. The syntax is judged by @streamparser/json's Tokenizer and
 *   TokenParser, told to build no values (see newParser): it takes concatenated values, gives each
 *   token's byte offset (from which each record's line and column, and its exact source text,
 *   are taken here) and a syntax error at a token. Chosen over the others on 100,000 jq-printed
 *   events (36 MB) on this 2-core machine under load: its tokenizer alone 26,000 values/s, with
 *   the grammar 15,500; jsonparse 17,000 (byte offsets, no recovery, builds every value);
 *   clarinet 13,800 (line and column, but strings only); stream-json 2,500 (object-mode
 *   tokens, no positions). None recovers from a syntax error, so that part stays here: the
 *   broken value is a rejected record, and reading starts again at the next line that opens a
 *   value at the column where the broken one began (jq puts every value at column 1, an
 *   indented array every element at its indent); when no such line follows, the iteration
 *   throws after the records before it. The hand-written array scanner this replaces was faster
 *   (63,000/s) but judged no syntax and could only split arrays.
 *
 * Text is decoded as UTF-8 only once a record is complete, so a character split between two
 * chunks is never broken.
 *
 * A value over the limit (the service's 1 MiB body limit: one such event can never be accepted)
 * is known too large once that many of its bytes have gone by. The tokenizer then stops seeing it
 * (it would hold a long string whole: 500 MB took 1.2 GB, and 1.1 GB, past V8's longest string,
 * came out as a syntax error): ValueEnd, a scan of bytes that only follows strings and brackets,
 * finds where it ends, and the grammar starts again after it. Such a record keeps its first
 * `limit` bytes as its text and the `id` read from them; memory stays bounded whatever its size.
 * The limit is per value: a large array of small events is read as before.
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

export interface OpenOptions {
  /** Force batch mode (the user gave a batch-only option such as --out). */
  batch: boolean;
  /** Records larger than this are given problem 'too large' (default 1 MiB = the service's body limit). */
  maxRecordBytes?: number;
  /**
   * A results file is kept (--out), so a run after the input is fixed can skip what was done
   * with --resume: the advice of an input that breaks off says so only then (--resume needs --out).
   */
  resumable?: boolean;
}

const MiB = 1024 * 1024;
/** The most of one record's text kept in memory: 16 MiB. */
export const KEEP_BYTES = 16 * MiB;
/** The most a single-event input may hold: more is read as a batch. */
const SINGLE_MAX_BYTES = 16 * MiB;
const DEFAULT_MAX_RECORD_BYTES = MiB;
const FILE_CHUNK_BYTES = 256 * 1024;
const GUNZIP_CHUNK_BYTES = 64 * 1024;

const NL = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
/** JSON's whitespace (and nothing else: no-break spaces and the like are text). */
const isWs = (b: number) => b === SPACE || b === NL || b === CR || b === TAB;
const BATCH_NAME = /\.(jsonl|ndjson)(\.gz)?$/i;

/**
 * Opens SOURCE (a path, or '-' for context.stdin) and decides between one event and a batch:
 * - first non-whitespace character `[` (after a byte order mark, if any) → a batch, 'values';
 * - a first line that is JSON on its own, followed by another non-blank line, or with a
 *   `.jsonl`/`.ndjson` name (optionally `.gz`) or `options.batch` → a batch, 'jsonl';
 * - else, with such a name or `options.batch`, or when the input holds more than one value or
 *   more than 16 MiB → a batch, 'values';
 * - anything else (one value on one line or many, broken JSON, nothing at all) → the whole text
 *   as one event.
 * gzip is recognised by its magic bytes, not its name. Throws a UsageError for a missing,
 * unreadable or directory path, or a terminal as stdin; a CliError
 * (exit FAILURE) when the input cannot be read or decompressed while peeking at its start.
 */
export async function openInput(source: string, context: Pick<CliContext, 'stdin'>, options: OpenOptions): Promise<SingleInput | BatchInput> {
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const raw = await openRaw(source, context);
  const name = raw.name;

  let closed = false;
  let rawBytes = 0;
  let gunzip: Gunzip | undefined;
  let compressed: Readable | undefined;
  const counting = new Set<ReadStream>();
  const rawIterator = raw.stream[Symbol.asyncIterator]();
  const rawChunks = new ChunkReader(async () => {
    if (closed) return null;
    let r: IteratorResult<string | Buffer>;
    try {
      r = await rawIterator.next();
    } catch (e) {
      if (closed) return null;
      throw new CliError(`cannot read ${name}: ${describe(e)}`, ExitCode.FAILURE);
    }
    if (r.done || closed) return null;
    const chunk = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    rawBytes += chunk.length;
    return chunk;
  });
  // The decompressed stream when the raw one is gzip.
  let input = rawChunks;
  const close = () => {
    if (closed) return;
    closed = true;
    input.stop();
    rawChunks.stop();
    compressed?.destroy();
    gunzip?.destroy();
    destroy(raw.stream);
    // The file is closed here, by its owner, never left to the garbage collector (which Node 26
    // turns into a crash of the process).
    void raw.handle?.close().catch(() => {});
    for (const stream of counting) stream.destroy();
  };

  try {
    const head = await rawChunks.peek(2);
    if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
      const gz = createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES });
      const from = Readable.from(rawChunks.drain(), { objectMode: false });
      // A read error of the raw input ends up as the gunzip stream's error, as it was.
      from.on('error', (e) => gz.destroy(e));
      from.pipe(gz);
      gunzip = gz;
      compressed = from;
      const gunzipped = gz[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      input = new ChunkReader(async () => {
        if (closed) return null;
        try {
          const r = await gunzipped.next();
          return r.done || closed ? null : r.value;
        } catch (e) {
          if (closed) return null;
          if (e instanceof CliError) throw e;
          throw new CliError(`${name} is not valid gzip data: ${(e as Error).message}`, ExitCode.FAILURE, 'the data is damaged or cut short (gzip -t checks a file)');
        }
      });
    }

    const mode = await decide(input, name, options.batch, BATCH_NAME.test(source));
    if (mode.kind === 'single') {
      close();
      return mode;
    }
    const countable = raw.isFile && !gunzip && mode.format === 'jsonl';
    return {
      kind: 'batch',
      format: mode.format,
      records: mode.format === 'values' ? valueRecords(input, name, maxRecordBytes, close, options.resumable === true) : lineRecords(input, maxRecordBytes, close),
      bytesRead: () => rawBytes,
      totalBytes: raw.totalBytes,
      countRecords: () => (countable && !closed ? countLines(source, counting) : Promise.resolve(null)),
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}

interface RawInput {
  stream: NodeJS.ReadableStream;
  /** The open file, closed by the input's close(); none for stdin. */
  handle?: FileHandle;
  /** How messages name the input: the path as given, or 'stdin'. */
  name: string;
  isFile: boolean;
  totalBytes: number | null;
}

async function openRaw(source: string, context: Pick<CliContext, 'stdin'>): Promise<RawInput> {
  if (source === '-') {
    if (context.stdin.isTTY) {
      throw new UsageError('reading events from stdin, but stdin is a terminal', 'pipe the events in (fraudctl submit - < events.jsonl) or give a file');
    }
    return { stream: context.stdin, name: 'stdin', isFile: false, totalBytes: null };
  }
  let handle: FileHandle;
  try {
    handle = await open(source, 'r');
  } catch (e) {
    throw openFailure(source, e);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new UsageError(`${source} is a directory, not a file of events`, 'give a file (JSON Lines, a JSON array or JSON values, optionally gzip), or - for stdin');
    const isFile = stat.isFile();
    // autoClose off: the input's close() closes the handle, whether or not the stream got to its end.
    return { stream: handle.createReadStream({ highWaterMark: FILE_CHUNK_BYTES, autoClose: false }), handle, name: source, isFile, totalBytes: isFile ? stat.size : null };
  } catch (e) {
    await handle.close().catch(() => {});
    throw e instanceof UsageError ? e : openFailure(source, e);
  }
}

function openFailure(path: string, e: unknown): UsageError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new UsageError(`no such file: ${path}`);
  if (code === 'EISDIR') return new UsageError(`${path} is a directory, not a file of events`);
  if (code === 'EACCES' || code === 'EPERM') return new UsageError(`cannot read ${path}: permission denied (${code})`, "check the file's permissions");
  return new UsageError(`cannot read ${path}: ${describe(e)}`);
}

/** An error's code and, when it says more, its message. */
function describe(e: unknown): string {
  const { code, message } = e as NodeJS.ErrnoException;
  if (!code) return message;
  return message && !message.startsWith(`${code}:`) ? `${code} (${message})` : code;
}

function destroy(stream: NodeJS.ReadableStream): void {
  (stream as Partial<Readable>).destroy?.();
}

/** Chunks pulled one at a time from a source, with a way to peek at the start and put it back. */
class ChunkReader {
  private readonly held: Buffer[] = [];
  private ended = false;
  /** True once stop() was called: whoever reads should stop too, even mid-chunk. */
  stopped = false;

  constructor(private readonly pull: () => Promise<Buffer | null>) {}

  /** The next chunk, taken; null at the end. */
  async next(): Promise<Buffer | null> {
    if (this.held.length > 0) return this.held.shift()!;
    if (this.ended) return null;
    const chunk = await this.pull();
    if (chunk === null) this.ended = true;
    return chunk;
  }

  /** Puts chunks back at the front, in order. */
  unshift(chunks: readonly Buffer[]): void {
    this.held.unshift(...chunks.filter((c) => c.length > 0));
  }

  /** At least `bytes` bytes from the start (fewer only at the end), left in place. */
  async peek(bytes: number): Promise<Buffer> {
    const seen: Buffer[] = [];
    let length = 0;
    while (length < bytes) {
      const chunk = await this.next();
      if (chunk === null) break;
      seen.push(chunk);
      length += chunk.length;
    }
    this.unshift(seen);
    return seen.length === 1 ? seen[0]! : Buffer.concat(seen);
  }

  /** Every chunk that is left. */
  async *drain(): AsyncGenerator<Buffer> {
    for (let chunk = await this.next(); chunk !== null; chunk = await this.next()) yield chunk;
  }

  /** Nothing more: what is held is dropped, the source is not asked again. */
  stop(): void {
    this.stopped = this.ended = true;
    this.held.length = 0;
  }
}

type Mode = SingleInput | { kind: 'batch'; format: InputFormat };

/** One event or a batch, from the start of the input (rules at openInput); what was looked at is put back, a byte order mark excepted. */
async function decide(input: ChunkReader, name: string, batchOption: boolean, linesByName: boolean): Promise<Mode> {
  const forcedBatch = batchOption || linesByName;
  const seen: Buffer[] = [];
  let seenBytes = 0;
  const more = async (): Promise<boolean> => {
    const chunk = await input.next();
    if (chunk === null) return false;
    seen.push(chunk);
    seenBytes += chunk.length;
    return true;
  };
  const putBack = () => input.unshift(seen);

  // A UTF-8 byte order mark is dropped (first chunks could be shorter than it).
  while (seenBytes < 3 && (await more()));
  if (seen.length > 1) seen.splice(0, seen.length, Buffer.concat(seen));
  const first = seen[0];
  if (first && first.length >= 3 && first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf) {
    seen[0] = first.subarray(3);
    seenBytes -= 3;
  }

  // The first character that is not whitespace: chunk `c`, offset `at`.
  let c = 0;
  let at = -1;
  for (;;) {
    for (; c < seen.length; c++) {
      at = skipWs(seen[c]!, 0, seen[c]!.length);
      if (at >= 0) break;
    }
    if (at >= 0 || !(await more())) break;
  }
  if (at < 0) {
    if (!forcedBatch) return { kind: 'single', text: '' };
    putBack();
    return { kind: 'batch', format: 'jsonl' };
  }
  if (seen[c]![at] === OPEN_BRACKET) {
    putBack();
    return { kind: 'batch', format: 'values' };
  }

  // The first line (searched chunk by chunk, not concatenated again for every chunk).
  let nc = c;
  let nl = seen[c]!.indexOf(NL, at);
  while (nl < 0) {
    if (nc + 1 < seen.length) nl = seen[++nc]!.indexOf(NL);
    else if (seenBytes > SINGLE_MAX_BYTES || !(await more())) break;
  }
  if (nl >= 0) {
    const parts = nc === c ? [seen[c]!.subarray(at, nl)] : [seen[c]!.subarray(at), ...seen.slice(c + 1, nc), seen[nc]!.subarray(0, nl)];
    if (isJson(Buffer.concat(parts).toString('utf8'))) {
      // JSON on its own: a batch if another non-blank line follows.
      let rc = nc;
      let next = skipWs(seen[nc]!, nl + 1, seen[nc]!.length);
      while (next < 0) {
        if (rc + 1 < seen.length) next = skipWs(seen[++rc]!, 0, seen[rc]!.length);
        else if (seenBytes > SINGLE_MAX_BYTES || !(await more())) break;
      }
      if (next >= 0 || forcedBatch) {
        putBack();
        return { kind: 'batch', format: 'jsonl' };
      }
    }
  }
  if (forcedBatch) {
    // A .jsonl name says JSON Lines even when its first line is broken; one line without a line end is JSON Lines too.
    const oneLine = nl < 0 && seenBytes <= SINGLE_MAX_BYTES && isJson(Buffer.concat(seen).toString('utf8'));
    putBack();
    return { kind: 'batch', format: linesByName || oneLine ? 'jsonl' : 'values' };
  }

  while (seenBytes <= SINGLE_MAX_BYTES && (await more()));
  const whole = seenBytes > SINGLE_MAX_BYTES ? null : Buffer.concat(seen, seenBytes);
  if (whole === null || severalValues(whole)) {
    putBack();
    return { kind: 'batch', format: 'values' };
  }
  return { kind: 'single', text: whole.toString('utf8') };
}

/**
 * Nesting past which the grammar is not asked: @streamparser/json's parser searches its whole
 * stack at every close (TokenParser.emit), so its time grows with the square of the depth (14 s
 * for one event 100,000 levels deep). No event nests anywhere near this deep.
 */
const GRAMMAR_DEPTH = 256;

/** Whether a second value starts after a first one that is whole (broken JSON is one event, for the one-event error). */
function severalValues(text: Buffer): boolean {
  let depth = 0;
  let values = 0;
  const { tokenizer } = newParser(({ token }) => {
    if (depth === 0 && ++values > 1) throw new Several();
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (++depth > GRAMMAR_DEPTH) throw new TooDeep();
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
  });
  try {
    tokenizer.write(text);
    return false;
  } catch (e) {
    if (!(e instanceof TooDeep)) return e instanceof Several;
    // A value this deep: its end found by a byte scan (linear), then whether anything follows it.
    const start = skipWs(text, 0, text.length);
    const end = new ValueEnd().scan(text, start, text.length);
    return end >= 0 && skipWs(text, end, text.length) >= 0;
  }
}
class Several extends Error {}
class TooDeep extends Error {}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The index of the first non-whitespace byte in [from, to), or -1. */
function skipWs(chunk: Buffer, from: number, to: number): number {
  for (let i = from; i < to; i++) if (!isWs(chunk[i]!)) return i;
  return -1;
}

/** A buffer cut so that it does not end inside a UTF-8 character. */
function wholeCharacters(buffer: Buffer): Buffer {
  let start = buffer.length - 1;
  while (start >= 0 && buffer.length - start < 4 && (buffer[start]! & 0xc0) === 0x80) start--;
  if (start < 0) return buffer;
  const lead = buffer[start]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return buffer.length - start < length ? buffer.subarray(0, start) : buffer;
}

/** [from, to) of a chunk as text, cut to KEEP_BYTES. */
function textOf(chunk: Buffer, from: number, to: number): { text: string; truncated: boolean } {
  if (to - from <= KEEP_BYTES) return { text: chunk.toString('utf8', from, to), truncated: false };
  return { text: wholeCharacters(chunk.subarray(from, from + KEEP_BYTES)).toString('utf8'), truncated: true };
}

function record(line: number, text: string, bytes: number, truncated: boolean, problem: InputRecord['problem'], column = 1): InputRecord {
  const r: InputRecord = { line, column, text, bytes, truncated };
  if (problem !== undefined) r.problem = problem;
  return r;
}

/** One record's bytes gathered across chunks: all of them counted, at most KEEP_BYTES kept. */
class Gathered {
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

/** JSON Lines: split on \n, one trailing \r dropped, blank lines skipped but counted. */
async function* lineRecords(input: ChunkReader, maxRecordBytes: number, release: () => void): AsyncGenerator<InputRecord> {
  // A line that runs over the end of a chunk: its bytes so far, whether any is not whitespace, its last byte.
  const pending = new Gathered();
  let pendingContent = false;
  let pendingLast = -1;
  let line = 0;
  const finishPending = (): InputRecord | null => {
    let bytes = pending.bytes;
    if (pendingLast === CR) bytes--;
    const content = pendingContent;
    pendingContent = false;
    pendingLast = -1;
    const { text, truncated } = pending.take(bytes);
    return content ? record(line, text, bytes, truncated, bytes > maxRecordBytes ? 'too large' : undefined) : null;
  };
  try {
    for (let chunk = await input.next(); chunk !== null; chunk = await input.next()) {
      let from = 0;
      for (;;) {
        const nl = chunk.indexOf(NL, from);
        if (nl < 0) {
          if (from < chunk.length) {
            pendingContent ||= skipWs(chunk, from, chunk.length) >= 0;
            pendingLast = chunk[chunk.length - 1]!;
            pending.add(chunk, from, chunk.length);
          }
          break;
        }
        line++;
        if (pending.bytes > 0) {
          if (nl > from) {
            pendingContent ||= skipWs(chunk, from, nl) >= 0;
            pendingLast = chunk[nl - 1]!;
            pending.add(chunk, from, nl);
          }
          const r = finishPending();
          if (r) {
            yield r;
            if (input.stopped) return;
          }
        } else {
          // The whole line is in this chunk: decoded straight from it.
          const end = nl > from && chunk[nl - 1] === CR ? nl - 1 : nl;
          if (skipWs(chunk, from, end) >= 0) {
            const { text, truncated } = textOf(chunk, from, end);
            yield record(line, text, end - from, truncated, end - from > maxRecordBytes ? 'too large' : undefined);
            if (input.stopped) return;
          }
        }
        from = nl + 1;
      }
    }
    if (pending.bytes > 0) {
      line++;
      const r = finishPending();
      if (r) yield r;
    }
  } finally {
    release();
  }
}

/**
 * A tokenizer whose tokens go through a TokenParser (the grammar) and then to `onToken`. The
 * parser is given a path no value has, and keepStack false: it then drops every finished value
 * from its parent at once, so it holds the nesting but never a value, however large.
 */
function newParser(onToken: (token: ParsedTokenInfo) => void, partialTokens = false): { tokenizer: Tokenizer; parser: TokenParser; last: () => ParsedTokenInfo | undefined } {
  // Partial tokens (a string or number still open at the end of a write) tell how long a value at
  // the top has run on; they go to `onToken` only, never to the grammar.
  const tokenizer = new Tokenizer({ emitPartialTokens: partialTokens });
  const parser = new TokenParser({ paths: ['$.\u0000none'], keepStack: false, separator: '' });
  parser.onValue = () => {};
  let last: ParsedTokenInfo | undefined;
  tokenizer.onToken = (token) => {
    if (!token.partial) {
      last = token;
      parser.write(token);
    }
    onToken(token);
  };
  return { tokenizer, parser, last: () => last };
}

/**
 * Where a JSON value ends, from a scan of its bytes that follows only strings (and their
 * escapes) and brackets: enough to find the end of a value already known too large, which is
 * never parsed. Started at the value's first byte, or inside a string or number at the top
 * (`inside`). Its syntax is not checked: whatever follows it is, by the grammar again.
 */
class ValueEnd {
  private depth = 0;
  private inString: boolean;
  private escaped = false;
  /** In a number or literal at the top: it ends at the first byte that cannot be part of it. */
  private inAtom: boolean;

  constructor(inside: 'value' | 'string' | 'atom' = 'value') {
    this.inString = inside === 'string';
    this.inAtom = inside === 'atom';
  }

  /** The index just past the value's end in buf[from, to), or -1 when it goes on. */
  scan(buf: Buffer, from: number, to: number): number {
    // Where the next backslash is (to: none before `to`), looked up again only once passed.
    let backslash = -1;
    for (let i = from; i < to; i++) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        // Straight to the string's next quote or backslash (indexOf: memchr, not a byte at a time).
        if (backslash < i) backslash = indexIn(buf, BACKSLASH, i, to);
        const quote = indexIn(buf, QUOTE, i, backslash);
        if (quote < backslash) {
          i = quote;
          this.inString = false;
          if (this.depth === 0) return i + 1;
          continue;
        }
        if (backslash >= to) return -1;
        i = backslash;
        this.escaped = true;
        continue;
      }
      const b = buf[i]!;
      if (this.inAtom) {
        if (isWs(b) || b === COMMA || b === CLOSE_BRACKET || b === CLOSE_BRACE) return i;
      } else if (b === QUOTE) this.inString = true;
      else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
      else if ((b === CLOSE_BRACE || b === CLOSE_BRACKET) && --this.depth === 0) return i + 1;
    }
    return -1;
  }
}

/** The index of `byte` in buf[from, to), or `to`. */
function indexIn(buf: Buffer, byte: number, from: number, to: number): number {
  const at = buf.subarray(0, to).indexOf(byte, from);
  return at < 0 ? to : at;
}

/** The string `id` of an object from its first bytes (cut anywhere), as JSON.parse would read it; undefined when none is there. */
function idIn(head: Buffer): string | undefined {
  let depth = 0;
  let keyNext = false;
  let key: string | undefined;
  let valueOf: string | undefined;
  let id: string | undefined;
  const tokenizer = new Tokenizer();
  tokenizer.onToken = ({ token, value }) => {
    if (depth === 1) {
      if (token === TokenType.STRING && keyNext) {
        key = value as string;
        keyNext = false;
      } else if (token === TokenType.COLON) {
        valueOf = key;
      } else if (token === TokenType.COMMA) {
        keyNext = true;
      } else if (valueOf !== undefined) {
        // The last "id" counts, as in JSON.parse; one that is not a string is no id.
        if (valueOf === 'id') id = token === TokenType.STRING ? (value as string) : undefined;
        valueOf = undefined;
      }
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (depth++ === 0) keyNext = token === TokenType.LEFT_BRACE;
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
  };
  try {
    tokenizer.write(head);
  } catch {
    // Broken further on: what came before stands.
  }
  return id;
}

const OPENERS = new Set([TokenType.LEFT_BRACE, TokenType.LEFT_BRACKET]);
const CLOSERS = new Set([TokenType.RIGHT_BRACE, TokenType.RIGHT_BRACKET]);
const PRIMITIVES = new Set([TokenType.STRING, TokenType.NUMBER, TokenType.TRUE, TokenType.FALSE, TokenType.NULL]);

/** Where a record starts. */
interface Start {
  offset: number;
  line: number;
  column: number;
}

interface Broken {
  start: Start;
  /** Where it broke and what was found there. */
  detail: string;
  /** Whether it was an element of a top-level array. */
  list: number;
}

/**
 * Values, each a record (a top-level array's elements each a record), with the line and column
 * where each starts; a broken one is a 'not JSON' record and reading goes on from the next line
 * that opens a value at its column (see the comment at the top). The input is fed to the
 * tokenizer line by line, so that the line of every token is the current one.
 */
async function* valueRecords(input: ChunkReader, name: string, maxRecordBytes: number, release: () => void, resumable: boolean): AsyncGenerator<InputRecord> {
  const again = resumable ? 'run the same command again with --resume (it skips what was done)' : 'run the same command again';
  let line = 1;
  // The column cursor: characters from the line's start up to byte offset `columnAt`.
  let columnAt = 0;
  let columnChars = 0;
  // The line being fed: its bytes, and its offset in the input.
  let segment: Buffer = Buffer.alloc(0);
  let segmentAt = 0;
  // Offsets of the current tokenizer's tokens are relative to where it started.
  let base = 0;
  let depth = 0;
  // 1 while inside a top-level array (its elements are the records), else 0.
  let list = 0;
  let open = null as Start | null;
  // Where the open record's bytes start in `segment`.
  let from = 0;
  const gathered = new Gathered();
  const ready: InputRecord[] = [];
  // A value that broke: its record, and where reading may start again (a line opening a value at `column`).
  let broken = null as Broken | null;
  // Where the buffer last given to the tokenizer starts in the input, and where it ends.
  let writtenAt = 0;
  let writtenEnd = 0;
  // Past this many bytes a value is too large, and is skipped to its end unparsed (see the top).
  // Half of KEEP_BYTES at most, so that all of a record up to the cut (and a chunk more) is kept.
  // A value over it is too large whichever way it came: the record does not depend on where the
  // input was cut into chunks (what --resume compares).
  const cutAt = Math.min(maxRecordBytes, KEEP_BYTES / 2);
  // The value too large being skipped: its record (bytes counted on), the scan that finds its end.
  let skipping = null as { record: InputRecord; end: ValueEnd; list: number } | null;
  /** A record too large: its first `cutAt` bytes as its text, and the id read from them. */
  const tooLarge = (start: Start, kept: Buffer, bytes: number): InputRecord => {
    const head = kept.subarray(0, cutAt);
    const r = record(start.line, wholeCharacters(head).toString('utf8'), bytes, true, 'too large', start.column);
    const id = idIn(head);
    if (id !== undefined) r.id = id;
    return r;
  };
  /**
   * A string or number at the top too large (never an event): the first characters of a string
   * as its text. `bytes` is what it took in the input when it was skipped, its length as JSON
   * when it ended within one piece of input (the two differ only by escapes).
   */
  const topTooLarge = (start: Start, token: TokenType, value: unknown, bytes: number): InputRecord => {
    const text = token === TokenType.STRING ? JSON.stringify((value as string).slice(0, Math.floor(cutAt / 8))).slice(0, -1) : '';
    return record(start.line, text, bytes, true, 'too large', start.column);
  };
  // True while the placeholder value written by a restart inside an array goes through onToken.
  let placeholder = false;

  /** The column (1-based, in characters) of a byte offset on the line being fed. */
  const columnOf = (offset: number): number => {
    // Behind the cursor: a token begun in an earlier piece of the line (chunks can be that
    // small), counted back in bytes, exact for numbers and literals (ASCII) and most strings.
    if (offset < columnAt) return Math.max(1, columnChars + 1 - (columnAt - offset));
    for (let i = Math.max(0, columnAt - segmentAt), end = offset - segmentAt; i < end; i++) if ((segment[i]! & 0xc0) !== 0x80) columnChars++;
    columnAt = offset;
    return columnChars + 1;
  };
  const startAt = (offset: number): Start => ({ offset, line, column: columnOf(offset) });
  const finish = (end: number) => {
    const start = open!;
    gathered.add(segment, from, end - segmentAt);
    const bytes = gathered.bytes;
    if (bytes > cutAt) {
      // Ended in the piece of input where it passed the cut: kept as if it had been skipped, so
      // the record is the same however the input came in chunks.
      ready.push(tooLarge(start, gathered.keptBytes(), bytes));
      gathered.take(0);
    } else {
      const { text, truncated } = gathered.take(bytes);
      ready.push(record(start.line, text, bytes, truncated, undefined, start.column));
    }
    open = null;
  };
  const onToken = ({ token, value, offset: relative, partial }: ParsedTokenInfo) => {
    const offset = base + relative;
    if (partial) {
      // A string or number at the top still open at the end of a write: too large once it has run past the cut.
      if (depth === list && writtenEnd - offset > cutAt && (token === TokenType.STRING || token === TokenType.NUMBER)) skipTopValue(offset, token, value);
      return;
    }
    if (OPENERS.has(token)) {
      if (depth++ === 0 && token === TokenType.LEFT_BRACKET) list = 1;
      else if (depth - 1 === list) {
        open = startAt(offset);
        from = offset - segmentAt;
      }
    } else if (CLOSERS.has(token)) {
      if (--depth === 0 && list === 1) list = 0;
      else if (depth === list) finish(offset + 1);
    } else if (depth === list && PRIMITIVES.has(token) && !placeholder) {
      const text = JSON.stringify(value);
      const start = startAt(offset);
      const bytes = Buffer.byteLength(text);
      ready.push(bytes > cutAt ? topTooLarge(start, token, value, bytes) : record(start.line, text, bytes, false, undefined, start.column));
    }
  };

  let parser = newParser(onToken, true);
  /**
   * A new parser from `offset` on, inside the array again when the value before was an element:
   * after a broken value at an element's start, after a skipped one (`afterValue`) at what follows
   * it, so a placeholder element stands for it (its token is not a record).
   */
  const restart = (offset: number, inList: number, afterValue = false) => {
    parser = newParser(onToken, true);
    depth = 0;
    list = 0;
    const lead = inList ? (afterValue ? '[true' : '[') : '';
    base = offset - lead.length;
    if (lead) {
      placeholder = afterValue;
      parser.tokenizer.write(lead);
      placeholder = false;
    }
  };
  /** Gives `buf` (at `at` in the input) to the tokenizer. */
  const write = (buf: Buffer, at: number) => {
    writtenAt = at;
    writtenEnd = at + buf.length;
    parser.tokenizer.write(buf);
  };
  /** The open record has run past the cut: from now on its end is looked for, unparsed. */
  const skipOpenRecord = () => {
    const kept = gathered.keptBytes();
    const end = new ValueEnd();
    // The record from its first byte: the scan's state where the tokenizer stopped.
    end.scan(kept, 0, kept.length);
    skipping = { record: tooLarge(open!, kept, gathered.bytes), end, list };
    gathered.take(0);
    open = null;
  };
  /** A string or number at the top past the cut (never an event): its end is looked for, unparsed. */
  const skipTopValue = (offset: number, token: TokenType, value: unknown) => {
    skipping = { record: topTooLarge(startAt(offset), token, value, writtenEnd - offset), end: new ValueEnd(token === TokenType.STRING ? 'string' : 'atom'), list };
  };
  /** Looks for the skipped value's end in this piece of a line; past it, the grammar starts again. */
  const skipOn = (): number => {
    const s = skipping!;
    const end = s.end.scan(segment, 0, segment.length);
    if (end < 0) {
      s.record.bytes += segment.length;
      return -1;
    }
    s.record.bytes += end;
    ready.push(s.record);
    skipping = null;
    restart(segmentAt + end, s.list, true);
    return end;
  };
  /** Where and why the tokenizer or parser stopped, in words. */
  const describeError = (e: unknown): { offset: number; what: string } => {
    const at = /chunk position "(\d+)"/.exec((e as Error).message);
    if (at) {
      const offset = writtenAt + Number(at[1]);
      return { offset, what: `unexpected ${JSON.stringify(String.fromCharCode(segment[offset - segmentAt] ?? 0x20))}` };
    }
    const last = parser.last();
    return { offset: last ? base + last.offset : segmentAt, what: last ? `unexpected ${JSON.stringify(last.value)}` : (e as Error).message };
  };
  // While skipping: the whitespace so far at the start of the line (which chunks can cut anywhere), -1 past it.
  let indent = -1;
  /** True when this piece of a line opens a value at the broken value's column: reading starts again here. */
  const resumesHere = (b: Broken): boolean => {
    if (columnAt === segmentAt && columnChars === 0) indent = 0;
    if (indent < 0) return false;
    const first = skipWs(segment, 0, segment.length);
    if (first < 0) {
      indent += segment.length;
      return false;
    }
    const found = indent + first === b.start.column - 1 && (segment[first] === OPEN_BRACE || segment[first] === OPEN_BRACKET);
    indent = -1;
    return found;
  };

  const feed = () => {
    let from0 = 0;
    if (skipping) {
      from0 = skipOn();
      if (from0 < 0) return;
    }
    if (broken) {
      if (!resumesHere(broken)) {
        gathered.add(segment, 0, segment.length);
        return;
      }
      const b = broken;
      broken = null;
      const { text, truncated } = gathered.take(gathered.bytes);
      const trimmed = text.trimEnd();
      const r = record(b.start.line, trimmed, Buffer.byteLength(trimmed), truncated, 'not JSON', b.start.column);
      r.detail = b.detail;
      ready.push(r);
      restart(segmentAt, b.list);
    }
    try {
      // A skipped value ended in this piece: the rest of it, from where the grammar started again.
      write(from0 > 0 ? segment.subarray(from0) : segment, segmentAt + from0);
      if (open) {
        gathered.add(segment, from, segment.length);
        from = 0;
        if (gathered.bytes > cutAt) skipOpenRecord();
      }
    } catch (e) {
      const { offset, what } = describeError(e);
      const start = open ?? startAt(offset);
      if (!open) {
        from = Math.max(0, offset - segmentAt);
        gathered.take(0);
      }
      gathered.add(segment, from, segment.length);
      broken = { start, detail: `at line ${line} column ${columnOf(offset)}: ${what}`, list };
      open = null;
    }
  };

  try {
    for (let chunk = await input.next(); chunk !== null; chunk = await input.next()) {
      for (let i = 0; i < chunk.length; ) {
        // Done with the last segment only now, so that a number ended by the end of input still has it.
        if (segment.length > 0) {
          if (segment[segment.length - 1] === NL) {
            line++;
            columnAt = segmentAt + segment.length;
            columnChars = 0;
          } else {
            columnOf(segmentAt + segment.length);
          }
          segmentAt += segment.length;
        }
        const nl = chunk.indexOf(NL, i);
        const end = nl < 0 ? chunk.length : nl + 1;
        segment = chunk.subarray(i, end);
        feed();
        i = end;
      }
      for (const r of ready.splice(0)) {
        yield r;
        if (input.stopped) return;
      }
    }
    if (broken) {
      throw new CliError(`${name}: not JSON ${broken.detail}, and no later line starts a value at column ${broken.start.column}: stopped there`, ExitCode.FAILURE, `fix the input there, then ${again}`);
    }
    // Cut short inside a value (or the array): nothing can tell where the rest would be.
    if (skipping) open = { offset: 0, line: skipping.record.line, column: skipping.record.column };
    let cut = open !== null || depth > 0;
    try {
      parser.tokenizer.end();
      parser.parser.end();
    } catch {
      cut = true;
    }
    yield* ready.splice(0);
    if (cut) {
      const where = open ? `a value that starts at line ${open.line} column ${open.column}` : depth > 0 ? 'a JSON array' : 'a value';
      throw new CliError(`${name} ends inside ${where}`, ExitCode.FAILURE, `the input may be cut short: complete it, then ${again}`);
    }
  } finally {
    release();
  }
}

/** Lines holding anything but whitespace, by a streaming scan of the file (null if it cannot be read to the end). */
async function countLines(path: string, streams: Set<ReadStream>): Promise<number | null> {
  const stream = createReadStream(path, { highWaterMark: MiB });
  streams.add(stream);
  let count = 0;
  let content = false;
  let first = true;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let i = 0;
      if (first && chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
      first = false;
      while (i < chunk.length) {
        if (content) {
          // The rest of this line cannot change the count: on to its end.
          const nl = chunk.indexOf(NL, i);
          if (nl < 0) break;
          count++;
          content = false;
          i = nl + 1;
        } else {
          const b = chunk[i++]!;
          if (!isWs(b)) content = true;
        }
      }
    }
    return stream.destroyed && !stream.readableEnded ? null : content ? count + 1 : count;
  } catch {
    return null;
  } finally {
    streams.delete(stream);
    stream.destroy();
  }
}
