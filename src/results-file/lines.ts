import { open } from 'node:fs/promises';
import { UsageError } from '../errors/cli-error.js';

/*
 * The lines of a results file as text: read a chunk at a time with a bound on a line's length,
 * and each one as the JSON object it should be. Everything else here reads through these.
 */

/** A line of a results file as the JSON object it should be, or undefined (not JSON, not an object): each job's reader starts here. */
export function resultObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The longest line a results file can hold: a result names an event id of at most 1 MiB (escaped, up to 6 bytes a character), or a header a 4,000-character comment. */
export const MAX_RESULT_LINE_BYTES = 8 * 1024 * 1024;

/**
 * The lines of a file, read in 64 KiB chunks: the readline module holds a line of any length,
 * so a hand-edited file with a huge region without newlines would take all memory and crash; a
 * line over `maxBytes` is a UsageError naming it. `ended`: the line ended with a newline (a
 * line cut off by a crash has none).
 */
export async function* boundedLines(
  path: string,
  maxBytes: number,
): AsyncGenerator<{ text: string; lineNo: number; ended: boolean }> {
  const handle = await open(path, 'r');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let pieces: Buffer[] = [];
    let held = 0;
    let lineNo = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      let from = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, from);
        const end = nl === -1 || nl >= bytesRead ? bytesRead : nl;
        held += end - from;
        if (held > maxBytes)
          throw new UsageError(
            `${path} line ${lineNo + 1} is longer than any result (over ${maxBytes / 1024 / 1024} MiB without a line break): the file was not written by fraudctl, or was damaged`,
            'give a new --out without --resume',
          );
        if (end === bytesRead) {
          // The line goes on in the next chunk: keep a copy of this part (the chunk is reused).
          pieces.push(Buffer.from(chunk.subarray(from, end)));
          break;
        }
        lineNo++;
        // A line within one chunk (nearly all) is decoded where it is, without a copy.
        const text =
          pieces.length === 0
            ? chunk.toString('utf8', from, end)
            : Buffer.concat([...pieces, chunk.subarray(from, end)]).toString('utf8');
        yield { text, lineNo, ended: true };
        pieces = [];
        held = 0;
        from = end + 1;
      }
    }
    if (held > 0) yield { text: Buffer.concat(pieces).toString('utf8'), lineNo: lineNo + 1, ended: false };
  } finally {
    await handle.close();
  }
}
