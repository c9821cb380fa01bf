import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';

/*
 * The hash chain of an action log (issue 29): every line carries `line`, its number in the file,
 * and `prev`, the SHA-256 (hex) of the bytes of the line before it (without its line feed); the
 * first line of a file chains from GENESIS. A line edited, removed, moved or cut after it was
 * written breaks the link to the line after it, which `fraudctl log verify` finds
 * (verify-log.ts). The chain is per file, not per session: each append reads the file's last
 * line under the file's lock (action-log.ts), so two sessions appending to one log make one chain.
 *
 * SHA-256 from node:crypto: the standard digest, nothing to write by hand.
 */

/** What the first line of a file chains from: 64 zeros. */
export const GENESIS = '0'.repeat(64);

export function lineHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Where the next line of a file goes in the chain: its number and the hash it carries. */
export interface ChainPoint {
  line: number;
  prev: string;
  /** The file ends without a line feed (a line cut short by a crash): the next write starts with one, so its own line stays whole. */
  needsNewline: boolean;
}

const CHUNK = 64 * 1024;

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done);
}

/** The number of line feeds in the first `size` bytes: the lines of a file whose last line names no number (an older build's). */
function countLines(fd: number, size: number): number {
  let count = 0;
  for (let at = 0; at < size; at += CHUNK) {
    const chunk = readAt(fd, at, Math.min(CHUNK, size - at));
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) count++;
  }
  return count;
}

/**
 * The point after the last line of the file open as `fd` (readable; `size` bytes long), read
 * from its end: only the last line is read, unless it names no number (a line of an older build,
 * or a torn one), when the lines are counted.
 */
export function chainPointAfter(fd: number, size: number): ChainPoint {
  if (size === 0) return { line: 1, prev: GENESIS, needsNewline: false };
  const needsNewline = readAt(fd, size - 1, 1)[0] !== 10;
  const end = needsNewline ? size : size - 1;
  // Backwards a chunk at a time to the line feed before the last line (a comment may be long).
  const parts: Buffer[] = [];
  let start = end;
  for (;;) {
    const from = Math.max(0, start - CHUNK);
    const chunk = readAt(fd, from, start - from);
    const feed = chunk.lastIndexOf(10);
    if (feed !== -1) {
      parts.unshift(chunk.subarray(feed + 1));
      start = from + feed + 1;
      break;
    }
    parts.unshift(chunk);
    start = from;
    if (from === 0) break;
  }
  const last = Buffer.concat(parts);
  const prev = lineHash(last);
  let number: unknown;
  try {
    number = (JSON.parse(last.toString('utf8')) as { line?: unknown }).line;
  } catch {
    number = undefined;
  }
  // The number the last line says, if it says one; else its place, counted.
  const lastLine = Number.isSafeInteger(number) && (number as number) > 0 ? (number as number) : countLines(fd, size) + (needsNewline ? 1 : 0);
  return { line: lastLine + 1, prev, needsNewline };
}
