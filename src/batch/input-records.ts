import { createReadStream, statSync, type ReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { CliContext } from '../cli-context.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';

/*
 * What `fraudctl submit SOURCE` reads: one event, or a stream of records (JSON Lines or a JSON
 * array, either possibly gzip-compressed) pulled one at a time, so memory stays flat however
 * large the input.
 *
 * The splitting is written by hand. node:readline has no cap on a line's length (one 2 GB line
 * would be held whole); JSON-stream parsers (stream-json and the like) give parsed values, not
 * each element's own text, and abort the whole stream at the first syntax error — while here a
 * bad element must become one rejected record and the batch go on.
 */

/** One record of the input: a line of JSON Lines, or an element of a JSON array. */
export interface InputRecord {
  /** 1-based: the line number for JSON Lines; the element's number for a JSON array. */
  line: number;
  /** The record's text as it was (without its line ending), cut to KEEP_BYTES when longer. */
  text: string;
  /** The record's full size in bytes, even when `text` was cut. */
  bytes: number;
  truncated: boolean;
  /** Set when the reader itself found the record unusable: 'too large', 'unterminated JSON array', 'text after the end of the JSON array'. */
  problem?: string;
}

export type InputFormat = 'jsonl' | 'array';

export interface BatchInput {
  kind: 'batch';
  format: InputFormat;
  /**
   * The records in input order, pulled with backpressure; whitespace-only lines are skipped
   * (they still count for line numbers). Throws a CliError if the input turns out unreadable
   * part-way (corrupt gzip data, a read error).
   */
  records: AsyncIterable<InputRecord>;
  /** Bytes of the raw (possibly compressed) input consumed so far. */
  bytesRead(): number;
  /** Size of the raw input when it is a regular file, else null. */
  totalBytes: number | null;
  /** The number of records, for a regular uncompressed JSON Lines file (a second, streaming read); else null. */
  countRecords(): Promise<number | null>;
  /** Stops reading and releases the input. */
  close(): void;
}

export interface SingleInput {
  kind: 'single';
  /** The whole input: one JSON document. */
  text: string;
}

export interface OpenOptions {
  /** Batch mode whatever the input looks like (a batch-only option was given). */
  batch: boolean;
  /** Records larger than this get the problem 'too large' (default 1 MiB). */
  maxRecordBytes?: number;
}

/** The most of one record's text held in memory. */
export const KEEP_BYTES = 16 * 1024 * 1024;
/** The most a single-event input may hold. */
const SINGLE_MAX_BYTES = 16 * 1024 * 1024;

const NL = 0x0a;
const isWs = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const BATCH_NAME = /\.(jsonl|ndjson)(\.gz)?$/i;

/** A chunk source that can hand back what was looked at before it is consumed. */
class Chunks {
  private readonly held: Buffer[] = [];

  constructor(private readonly iterator: AsyncIterator<Buffer>) {}

  /** The next chunk, taken. */
  async next(): Promise<Buffer | null> {
    if (this.held.length) return this.held.shift()!;
    const r = await this.iterator.next();
    return r.done ? null : r.value;
  }

  /** Puts chunks back at the front, in order. */
  unshift(chunks: Buffer[]): void {
    this.held.unshift(...chunks);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    for (;;) {
      const chunk = await this.next();
      if (chunk === null) return;
      yield chunk;
    }
  }
}

function openRaw(source: string, context: Pick<CliContext, 'stdin'>): { stream: Readable; name: string; totalBytes: number | null; isFile: boolean } {
  if (source === '-') {
    if (context.stdin.isTTY) {
      throw new UsageError('reading events from stdin, but stdin is a terminal', 'pipe the events in (fraudctl submit - < events.jsonl) or give a file');
    }
    return { stream: context.stdin as Readable, name: 'stdin', totalBytes: null, isFile: false };
  }
  let size: number | null = null;
  try {
    const stat = statSync(source);
    if (stat.isDirectory()) throw new UsageError(`${source} is a directory, not an event file`);
    if (stat.isFile()) size = stat.size;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`no such file: ${source}`);
    throw new UsageError(`cannot read ${source}: ${code ?? (e as Error).message}`);
  }
  return { stream: createReadStream(source, { highWaterMark: 256 * 1024 }), name: source, totalBytes: size, isFile: size !== null };
}

/** Opens SOURCE (a path, or '-' for stdin) and decides between one event and a batch. */
export async function openInput(source: string, context: Pick<CliContext, 'stdin'>, options: OpenOptions): Promise<SingleInput | BatchInput> {
  const maxRecordBytes = options.maxRecordBytes ?? 1024 * 1024;
  const raw = openRaw(source, context);
  let rawBytes = 0;
  const rawIterator = raw.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const rawChunks = new Chunks({
    next: async () => {
      const r = await rawIterator.next().catch((e: unknown) => {
        throw readFailure(raw.name, e);
      });
      if (r.done) return { done: true, value: undefined };
      const chunk = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
      rawBytes += chunk.length;
      return { done: false, value: chunk };
    },
  });

  // gzip, by its magic bytes.
  const head: Buffer[] = [];
  let headBytes = 0;
  while (headBytes < 2) {
    const chunk = await rawChunks.next();
    if (chunk === null) break;
    head.push(chunk);
    headBytes += chunk.length;
  }
  rawChunks.unshift(head);
  const start = Buffer.concat(head);
  const gzipped = start.length >= 2 && start[0] === 0x1f && start[1] === 0x8b;
  let gunzip: ReturnType<typeof createGunzip> | undefined;
  let chunks: Chunks;
  if (gzipped) {
    gunzip = createGunzip();
    const compressed = Readable.from(rawChunks, { objectMode: false });
    compressed.on('error', (e) => gunzip!.destroy(e));
    compressed.pipe(gunzip);
    const it = gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    chunks = new Chunks({
      next: () =>
        it.next().catch((e: unknown) => {
          throw e instanceof CliError ? e : new CliError(`${raw.name} is not valid gzip data: ${(e as Error).message}`, ExitCode.FAILURE);
        }),
    });
  } else {
    chunks = rawChunks;
  }
  const close = () => {
    gunzip?.destroy();
    raw.stream.destroy();
  };

  try {
    const mode = await decide(chunks, raw.name, options.batch || BATCH_NAME.test(raw.name));
    if (mode.kind === 'single') {
      close();
      return mode;
    }
    const countRecords = () => (raw.isFile && !gzipped && mode.format === 'jsonl' ? countLines(source) : Promise.resolve(null));
    const records = mode.format === 'array' ? arrayRecords(chunks, maxRecordBytes) : lineRecords(chunks, maxRecordBytes);
    return { kind: 'batch', format: mode.format, records, bytesRead: () => rawBytes, totalBytes: raw.totalBytes, countRecords, close };
  } catch (error) {
    close();
    throw error;
  }
}

function readFailure(name: string, e: unknown): CliError {
  return new CliError(`cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, ExitCode.FAILURE);
}

type Mode = SingleInput | { kind: 'batch'; format: InputFormat };

/**
 * One event or a batch, from the start of the input; what was looked at is put back.
 * `[` → an array; a batch name or option → JSON Lines; else a first line that is JSON on its
 * own followed by another line → JSON Lines; anything else is one event.
 */
async function decide(chunks: Chunks, name: string, forcedBatch: boolean): Promise<Mode> {
  const seen: Buffer[] = [];
  let seenBytes = 0;
  const more = async (): Promise<Buffer | null> => {
    const chunk = await chunks.next();
    if (chunk !== null) {
      seen.push(chunk);
      seenBytes += chunk.length;
    }
    return chunk;
  };
  // A UTF-8 byte order mark is dropped here, once.
  let first = await more();
  if (first && first.length >= 3 && first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf) seen[0] = first = first.subarray(3);

  // The first byte that is not whitespace.
  let firstByte: number | undefined;
  for (let c = 0; firstByte === undefined; c++) {
    const chunk = c < seen.length ? seen[c]! : await more();
    if (chunk === null) break;
    for (const b of chunk) {
      if (!isWs(b)) {
        firstByte = b;
        break;
      }
    }
  }
  const putBack = () => chunks.unshift(seen);
  if (firstByte === 0x5b /* [ */) {
    putBack();
    return { kind: 'batch', format: 'array' };
  }
  if (forcedBatch) {
    putBack();
    return { kind: 'batch', format: 'jsonl' };
  }
  if (firstByte === undefined) return { kind: 'single', text: '' };

  // The first line, and whether another non-blank line follows it.
  let all = Buffer.concat(seen);
  const lineStart = all.findIndex((b) => !isWs(b));
  let nl = all.indexOf(NL, lineStart);
  while (nl === -1 && seenBytes <= SINGLE_MAX_BYTES && (await more()) !== null) {
    all = Buffer.concat(seen);
    nl = all.indexOf(NL, lineStart);
  }
  if (nl !== -1 && isJson(all.subarray(lineStart, nl).toString('utf8'))) {
    let rest = all.subarray(nl + 1);
    while (rest.every(isWs) && seenBytes <= SINGLE_MAX_BYTES && (await more()) !== null) rest = Buffer.concat(seen).subarray(nl + 1);
    if (!rest.every(isWs)) {
      putBack();
      return { kind: 'batch', format: 'jsonl' };
    }
  }
  while (seenBytes <= SINGLE_MAX_BYTES && (await more()) !== null);
  if (seenBytes > SINGLE_MAX_BYTES) {
    throw new UsageError(`${name} is too large for one event (over ${SINGLE_MAX_BYTES / 1024 / 1024} MiB)`, 'for many events, give one JSON object per line (JSON Lines)');
  }
  return { kind: 'single', text: Buffer.concat(seen).toString('utf8') };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Collects one record's bytes across chunks, keeping at most KEEP_BYTES of them. */
class RecordBytes {
  private parts: Buffer[] = [];
  private kept = 0;
  bytes = 0;

  add(slice: Buffer): void {
    this.bytes += slice.length;
    if (this.kept >= KEEP_BYTES || slice.length === 0) return;
    const keep = slice.length <= KEEP_BYTES - this.kept ? slice : slice.subarray(0, KEEP_BYTES - this.kept);
    this.parts.push(keep);
    this.kept += keep.length;
  }

  /** The bytes so far as a Buffer, and a reset. */
  take(): { buffer: Buffer; bytes: number; truncated: boolean } {
    const buffer = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    const out = { buffer, bytes: this.bytes, truncated: this.kept < this.bytes };
    this.parts = [];
    this.kept = 0;
    this.bytes = 0;
    return out;
  }
}

async function* lineRecords(chunks: Chunks, maxRecordBytes: number): AsyncGenerator<InputRecord> {
  const current = new RecordBytes();
  let line = 0;
  const finish = (): InputRecord | null => {
    line++;
    let { buffer, bytes } = current.take();
    const truncated = buffer.length < bytes;
    if (!truncated && buffer.length > 0 && buffer[buffer.length - 1] === 0x0d) {
      buffer = buffer.subarray(0, buffer.length - 1);
      bytes--;
    }
    if (buffer.every(isWs)) return null;
    return { line, text: buffer.toString('utf8'), bytes, truncated, ...(bytes > maxRecordBytes ? { problem: 'too large' } : {}) };
  };
  let sawAny = false;
  for await (const chunk of chunks) {
    sawAny = true;
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(NL, from);
      if (nl === -1) {
        current.add(chunk.subarray(from));
        break;
      }
      current.add(chunk.subarray(from, nl));
      from = nl + 1;
      const record = finish();
      if (record) yield record;
    }
  }
  if (sawAny && current.bytes > 0) {
    const record = finish();
    if (record) yield record;
  }
}

async function* arrayRecords(chunks: Chunks, maxRecordBytes: number): AsyncGenerator<InputRecord> {
  const current = new RecordBytes();
  let element = 0;
  let state: 'before' | 'in' | 'after' = 'before';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let commas = 0;
  const record = (problem?: string): InputRecord => {
    element++;
    const { buffer, bytes, truncated } = current.take();
    const text = buffer.toString('utf8').trim();
    const why = problem ?? (bytes > maxRecordBytes ? 'too large' : undefined);
    return { line: element, text, bytes, truncated, ...(why ? { problem: why } : {}) };
  };
  for await (const chunk of chunks) {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (state === 'after') {
        if (!isWs(b) || current.bytes > 0) {
          // Everything from here on is one trailing record.
          current.add(chunk.subarray(i));
          break;
        }
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) inString = false;
        continue;
      }
      if (state === 'before') {
        if (b === 0x5b) {
          state = 'in';
          from = i + 1;
        }
        continue;
      }
      if (b === 0x22) inString = true;
      else if (b === 0x7b || b === 0x5b) depth++;
      else if ((b === 0x7d || b === 0x5d) && depth > 0) depth--;
      else if (depth === 0 && (b === 0x2c || b === 0x5d)) {
        current.add(chunk.subarray(from, i));
        from = i + 1;
        if (b === 0x2c) {
          commas++;
          yield record();
        } else {
          state = 'after';
          // `[]` has no element; `[1,]` has an empty last one, which the caller rejects.
          if (current.bytes > 0 || commas > 0) {
            const last = record();
            if (last.text !== '' || commas > 0) yield last;
          }
        }
      }
    }
    if (state === 'in') current.add(chunk.subarray(from));
  }
  if (state === 'in') yield record('unterminated JSON array');
  else if (state === 'after' && current.bytes > 0) {
    const trailing = record('text after the end of the JSON array');
    if (trailing.text !== '') yield trailing;
  }
}

/** Lines holding anything but whitespace, by a streaming scan of the file. */
async function countLines(path: string): Promise<number> {
  let count = 0;
  let hasContent = false;
  const stream: ReadStream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === NL) {
        if (hasContent) count++;
        hasContent = false;
      } else if (!hasContent && !isWs(b)) {
        hasContent = true;
        // The rest of this line cannot change the count: skip to its end.
        const nl = chunk.indexOf(NL, i);
        if (nl === -1) break;
        i = nl - 1;
      }
    }
  }
  return hasContent ? count + 1 : count;
}
