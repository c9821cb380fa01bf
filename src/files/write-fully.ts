import { writeSync } from 'node:fs';

/*
 * write(2) may write fewer bytes than asked (a nearly full disk, a signal, a pipe): Node's
 * writeSync returns the count and does not loop. Every local file fraudctl writes goes through
 * writeFully, which loops until every byte is written or throws (ENOSPC, EDQUOT, EIO, …), so a
 * caller never takes a short write for success. Written by hand: it is the loop itself, and no
 * package adds anything to it.
 */

/** Writes all of `data` to `fd` (at `position` and on, or at the file's offset when null); throws on the first failed write(2). */
export function writeFully(fd: number, data: string | Uint8Array, position: number | null = null): number {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let done = 0;
  while (done < bytes.length) {
    const n = writeSync(fd, bytes, done, bytes.length - done, position === null ? null : position + done);
    // write(2) returns 0 only for a zero-length write; guard against an endless loop anyway.
    if (n <= 0) throw Object.assign(new Error(`write returned ${n}`), { code: 'EIO' });
    done += n;
  }
  return done;
}
