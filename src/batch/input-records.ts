import { createReadStream, type ReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import type { CliContext } from '../cli-context.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';

/*
 * What `fraudctl submit SOURCE` reads: one event, or a stream of records (JSON Lines or a JSON
 * array, either possibly gzip-compressed) pulled one chunk at a time, so memory stays flat
 * however large the input. `openInput` peeks at the start to decide which, puts back what it
 * looked at, and hands the rest to one of two splitters written by hand:
 *
 * - Lines: node:readline has no cap on a line's length (one 2 GB line would be held whole in
 *   memory), so lines are cut from Buffer chunks here, keeping at most KEEP_BYTES of each.
 * - Arrays: stream-json-style token parsers give parsed values, not each element's own source
 *   text, and abort the whole stream at the first syntax error — while here a bad element must
 *   become one rejected record and the batch go on. So a byte scanner tracks nesting, strings
 *   and escapes, and slices out each top-level element as it was written.
 *
 * Text is decoded as UTF-8 only once a record is complete, so a character split between two
 * chunks is never broken.
 */

/** One record of the input: a line of JSON Lines, or an element of a JSON array. */
export interface InputRecord {
  /** 1-based: the input line number for JSON Lines; the element number (1-based) for a JSON array. */
  line: number;
  /**
   * The record's original text: the line without its line ending (and without a trailing \r),
   * or the array element's exact source text trimmed of surrounding whitespace. Cut to
   * KEEP_BYTES when longer (then `truncated` is true; the cut never splits a character).
   */
  text: string;
  /** The record's full size in bytes (UTF-8), even when `text` was cut. */
  bytes: number;
  /** True when `text` holds only the first KEEP_BYTES of the record. */
  truncated: boolean;
  /**
   * Set when the reader itself found the record unusable: 'too large' (bytes > maxRecordBytes),
   * 'unterminated JSON array' (input ended inside the array), 'text after the end of the JSON
   * array'. The caller JSON.parses records without a problem itself.
   */
  problem?: string;
}

export type InputFormat = 'jsonl' | 'array';

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
   * PATH: …` for a read error. Ending the iteration early (break, return) releases the input like
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
}

const MiB = 1024 * 1024;
/** The most of one record's text kept in memory: 16 MiB. */
export const KEEP_BYTES = 16 * MiB;
/** The most a single-event input may hold. */
const SINGLE_MAX_BYTES = 16 * MiB;
const DEFAULT_MAX_RECORD_BYTES = MiB;
const FILE_CHUNK_BYTES = 256 * 1024;
const GUNZIP_CHUNK_BYTES = 64 * 1024;
/** Array nesting tracked bracket by bracket; deeper than this only the depth is counted (bounded memory). */
const TRACKED_DEPTH = 4096;

const NL = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
/** JSON's whitespace (and nothing else: no-break spaces and the like are text). */
const isWs = (b: number) => b === SPACE || b === NL || b === CR || b === TAB;
const BATCH_NAME = /\.(jsonl|ndjson)(\.gz)?$/i;
const JSON_LINES_HINT = 'for many events, give one JSON object per line (JSON Lines)';

/**
 * Opens SOURCE (a path, or '-' for context.stdin) and decides between one event and a batch:
 * - first non-whitespace character `[` (after a byte order mark, if any) → a batch, 'array';
 * - a `.jsonl`/`.ndjson` name (optionally `.gz`) or `options.batch` → a batch, 'jsonl';
 * - a first line that is JSON on its own, followed by another non-blank line → a batch, 'jsonl';
 * - anything else (one line, a pretty-printed object, nothing at all) → the whole text as one
 *   event, at most 16 MiB.
 * gzip is recognised by its magic bytes, not its name. Throws a UsageError for a missing,
 * unreadable or directory path, a terminal as stdin, or a single event over 16 MiB; a CliError
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

    const mode = await decide(input, name, options.batch || BATCH_NAME.test(source));
    if (mode.kind === 'single') {
      close();
      return mode;
    }
    const countable = raw.isFile && !gunzip && mode.format === 'jsonl';
    return {
      kind: 'batch',
      format: mode.format,
      records: mode.format === 'array' ? arrayRecords(input, maxRecordBytes, close) : lineRecords(input, maxRecordBytes, close),
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
    if (stat.isDirectory()) throw new UsageError(`${source} is a directory, not a file of events`, 'give a file (JSON Lines or a JSON array, optionally gzip), or - for stdin');
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
  if (code === 'EACCES' || code === 'EPERM') return new UsageError(`cannot read ${path}: permission denied (${code})`, 'check the file’s permissions');
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
async function decide(input: ChunkReader, name: string, forcedBatch: boolean): Promise<Mode> {
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
  if (seen[c]![at] === OPEN_BRACKET || forcedBatch) {
    putBack();
    return { kind: 'batch', format: seen[c]![at] === OPEN_BRACKET ? 'array' : 'jsonl' };
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
      if (next >= 0) {
        putBack();
        return { kind: 'batch', format: 'jsonl' };
      }
    }
  }

  while (seenBytes <= SINGLE_MAX_BYTES && (await more()));
  if (seenBytes > SINGLE_MAX_BYTES) {
    throw new UsageError(`${name} is too large for one event (over ${SINGLE_MAX_BYTES / MiB} MiB)`, `${JSON_LINES_HINT}, or a JSON array of events`);
  }
  return { kind: 'single', text: Buffer.concat(seen, seenBytes).toString('utf8') };
}

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

function record(line: number, text: string, bytes: number, truncated: boolean, problem: string | undefined): InputRecord {
  const r: InputRecord = { line, text, bytes, truncated };
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

const BEFORE = 0;
const INSIDE = 1;
const AFTER = 2;

/** A JSON array: each top-level element's source text, trimmed; see the comment at the top. */
async function* arrayRecords(input: ChunkReader, maxRecordBytes: number, release: () => void): AsyncGenerator<InputRecord> {
  let state = BEFORE;
  let element = 0;
  let commas = 0;
  // Open brackets inside the current element (the array's own is not counted); their kinds up to TRACKED_DEPTH.
  let depth = 0;
  const openers = new Uint8Array(TRACKED_DEPTH);
  let inString = false;
  let escaped = false;
  // The current element (or the text after the array) when it runs over the end of a chunk:
  // its bytes so far, and how many of them run to its last non-whitespace byte.
  const gathered = new Gathered();
  let gatheredEnd = 0;

  /** Closes the innermost open bracket of this kind, and any left open inside it; false if none is open. */
  const closeBracket = (closer: number): boolean => {
    if (depth > TRACKED_DEPTH) {
      depth--;
      return true;
    }
    const opener = closer === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET;
    for (let k = depth - 1; k >= 0; k--) {
      if (openers[k] === opener) {
        depth = k;
        return true;
      }
    }
    return false;
  };
  const make = (text: string, bytes: number, truncated: boolean, problem?: string): InputRecord =>
    record(++element, text, bytes, truncated, problem ?? (bytes > maxRecordBytes ? 'too large' : undefined));
  /** The gathered element (or trailing text) as a record. */
  const fromGathered = (problem?: string): InputRecord => {
    const bytes = gatheredEnd;
    gatheredEnd = 0;
    const { text, truncated } = gathered.take(bytes);
    return make(text, bytes, truncated, problem);
  };

  try {
    for (let chunk = await input.next(); chunk !== null; chunk = await input.next()) {
      const length = chunk.length;
      // In this chunk: where the current element's bytes start (-1: not begun), and the end of its
      // last non-whitespace byte (-1: none here). An element begun in an earlier chunk starts at 0.
      let from = gathered.bytes > 0 ? 0 : -1;
      let to = -1;
      /** The element that ends here (at a top-level comma or the closing bracket), as a record. */
      const finish = (): InputRecord => {
        let r: InputRecord;
        if (gathered.bytes > 0) {
          if (to > 0) {
            gathered.add(chunk, 0, to);
            gatheredEnd = gathered.bytes;
          }
          r = fromGathered();
        } else if (from >= 0) {
          const { text, truncated } = textOf(chunk, from, to);
          r = make(text, to - from, truncated);
        } else {
          r = make('', 0, false);
        }
        from = -1;
        to = -1;
        return r;
      };

      for (let i = 0; i < length; i++) {
        let b = chunk[i]!;
        if (state === INSIDE) {
          if (inString) {
            // The body of a string, in a tight loop. A raw line break cannot be inside a JSON
            // string: an unterminated one ends there, so that it does not swallow the elements after it.
            for (; i < length; i++) {
              b = chunk[i]!;
              if (b === NL) {
                inString = escaped = false;
                to = i;
                break;
              }
              if (escaped) escaped = false;
              else if (b === BACKSLASH) escaped = true;
              else if (b === QUOTE) {
                inString = false;
                to = i + 1;
                break;
              }
            }
            if (inString) to = length;
            continue;
          }
          switch (b) {
            case SPACE:
            case NL:
            case CR:
            case TAB:
              continue;
            case QUOTE:
              inString = true;
              break;
            case OPEN_BRACE:
            case OPEN_BRACKET:
              if (depth < TRACKED_DEPTH) openers[depth] = b;
              depth++;
              break;
            case CLOSE_BRACE:
              // A brace with no open brace to close is left as it is (the caller's JSON.parse rejects it).
              closeBracket(b);
              break;
            case CLOSE_BRACKET:
              if (closeBracket(b)) break;
              // The array's own closing bracket (closing too whatever an element left open).
              depth = 0;
              state = AFTER;
              // `[]` has no element; `[1,]` has an empty last one, which the caller rejects.
              if (from >= 0 || commas > 0) {
                yield finish();
                if (input.stopped) return;
              }
              continue;
            case COMMA:
              if (depth > 0) break;
              commas++;
              yield finish();
              if (input.stopped) return;
              continue;
          }
          if (from < 0) from = i;
          to = i + 1;
        } else if (state === BEFORE) {
          // Only whitespace can come before the bracket: decide() saw it first.
          if (b === OPEN_BRACKET) state = INSIDE;
        } else {
          // After the array: everything from the first non-whitespace byte to the end is one record.
          if (from < 0) from = skipWs(chunk, i, length);
          if (from >= 0) {
            let end = length;
            while (end > from && isWs(chunk[end - 1]!)) end--;
            if (end > from) to = end;
          }
          break;
        }
      }

      // The element (or trailing text) runs on into the next chunk.
      if (from >= 0) {
        gathered.add(chunk, from, length);
        if (to >= 0) gatheredEnd = gathered.bytes - (length - to);
      }
    }
    if (state === INSIDE) {
      // Cut short inside the array: the partial element, or an empty record so that the cut is never silent.
      yield fromGathered('unterminated JSON array');
    } else if (state === AFTER && gathered.bytes > 0) {
      yield fromGathered('text after the end of the JSON array');
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
