import type { ChunkReader } from './chunk-reader.js';
import { CR, NL, skipWs } from './bytes.js';
import { Gathered, record, textOf, type InputRecord } from './records.js';

/*
 * JSON Lines: each line a record, whatever it holds (a broken line is one rejected record and the
 * next goes on). Cut by hand from Buffer chunks: node:readline has no cap on a line's length (one
 * 2 GB line would be held whole). Invariant: at most KEEP_BYTES of a line are held; line numbers
 * count every line, blank ones (which give no record) included.
 */

/** JSON Lines: split on \n, one trailing \r dropped, blank lines skipped but counted. */
export async function* lineRecords(
  input: ChunkReader,
  maxRecordBytes: number,
  release: () => void,
): AsyncGenerator<InputRecord> {
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
