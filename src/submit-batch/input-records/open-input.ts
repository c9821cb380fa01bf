import type { ReadStream } from 'node:fs';
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import type { CliContext } from '../../process/cli-context.js';
import { CliError, ExitCode, UsageError } from '../../errors/cli-error.js';
import { NL, isWs } from './bytes.js';
import { ChunkReader } from './chunk-reader.js';
import { detectLayout, type Layout } from './detect-layout.js';
import { lineRecords } from './json-lines.js';
import type { BatchInput, SingleInput } from './records.js';
import { fileFailure } from '../../files/file-errors.js';
import { terminalSafe } from '../../render/terminal-text.js';
import { valueRecords } from './value-records.js';

/*
 * What `fraudctl submit SOURCE` reads: one event, or a stream of records pulled one chunk at a
 * time, so memory stays flat however large the input. Opens the source (a file, or stdin),
 * recognises gzip by its magic bytes (not its name), lets detect-layout.ts decide the layout from
 * the start, puts back what it looked at, and hands the rest to the reader of JSON Lines
 * (json-lines.ts) or of values (value-records.ts). Invariant: the file or stream is released by
 * close(), by the end of the records or an early stop, whichever comes first, never left to the
 * garbage collector.
 */

export type { BatchInput, InputFormat, InputRecord, SingleInput } from './records.js';
export { KEEP_BYTES } from './records.js';

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
const DEFAULT_MAX_RECORD_BYTES = MiB;
const FILE_CHUNK_BYTES = 256 * 1024;
const GUNZIP_CHUNK_BYTES = 64 * 1024;
const BATCH_NAME = /\.(jsonl|ndjson)(\.gz)?$/i;

/**
 * Opens SOURCE (a path, or '-' for context.stdin) and decides between one event and a batch by
 * the rules of detect-layout.ts (a `.jsonl`/`.ndjson` name, optionally `.gz`, or `options.batch`
 * counting). Throws a UsageError for a missing, unreadable or directory path, or a terminal as
 * stdin; a CliError (exit FAILURE) when the input cannot be read or decompressed while peeking
 * at its start.
 */
export async function openInput(
  source: string,
  context: Pick<CliContext, 'stdin'>,
  options: OpenOptions,
): Promise<SingleInput | BatchInput> {
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
          throw new CliError(
            `${name} is not valid gzip data: ${(e as Error).message}`,
            ExitCode.FAILURE,
            'the data is damaged or cut short (gzip -t checks a file)',
          );
        }
      });
    }

    const mode = await layout(input, options.batch, BATCH_NAME.test(source));
    if (mode.kind === 'single') {
      close();
      return mode;
    }
    const countable = raw.isFile && !gunzip && mode.format === 'jsonl';
    return {
      kind: 'batch',
      format: mode.format,
      records:
        mode.format === 'values'
          ? valueRecords(input, name, maxRecordBytes, close, options.resumable === true)
          : lineRecords(input, maxRecordBytes, close),
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
      throw new UsageError(
        'reading events from stdin, but stdin is a terminal',
        'pipe the events in (fraudctl submit - < events.jsonl) or give a file',
      );
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
    if (stat.isDirectory()) {
      const { message } = fileFailure(source, { code: 'EISDIR' }, 'file of events');
      throw new UsageError(
        message,
        'give a file (JSON Lines, a JSON array or JSON values, optionally gzip), or - for stdin',
      );
    }
    const isFile = stat.isFile();
    // autoClose off: the input's close() closes the handle, whether or not the stream got to its end.
    return {
      stream: handle.createReadStream({ highWaterMark: FILE_CHUNK_BYTES, autoClose: false }),
      handle,
      name: source,
      isFile,
      totalBytes: isFile ? stat.size : null,
    };
  } catch (e) {
    await handle.close().catch(() => {});
    throw e instanceof UsageError ? e : openFailure(source, e);
  }
}

function openFailure(path: string, e: unknown): UsageError {
  if ((e as NodeJS.ErrnoException).code !== undefined) {
    const { message, hint } = fileFailure(path, e, 'file of events');
    return new UsageError(message, hint);
  }
  return new UsageError(`cannot read the file of events ${terminalSafe(path)}: ${describe(e)}`);
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

/** Lines holding anything but whitespace, by a streaming scan of the file (null if it cannot be read to the end). */
/** The layout, from as much of the start as it takes; what was looked at is put back, a byte order mark excepted. */
async function layout(input: ChunkReader, batchOption: boolean, linesByName: boolean): Promise<Layout> {
  const detection = detectLayout({ batchOption, linesByName });
  let step = detection.next();
  while (!step.done) step = detection.next(await input.next());
  input.unshift(step.value.rest);
  return step.value.layout;
}

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
