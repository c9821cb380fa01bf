import { createHash } from 'node:crypto';
import { constants, readSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/*
 * The hash chain of an action log: every line carries `line`, its number in the file,
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
 * or a torn one), when the lines are counted. `last`: that line's bytes (null for an empty file),
 * for the writer to check before it chains from them.
 */
export function chainPointAfter(fd: number, size: number): ChainPoint & { last: Buffer | null } {
  if (size === 0) return { line: 1, prev: GENESIS, needsNewline: false, last: null };
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
  const lastLine =
    Number.isSafeInteger(number) && (number as number) > 0
      ? (number as number)
      : countLines(fd, size) + (needsNewline ? 1 : 0);
  return { line: lastLine + 1, prev, needsNewline, last };
}

/*
 * A line's own hash. Since this build every line ends with `"hash"`: the SHA-256 of the line's
 * text without that member (`{…}` as it was before sealing). An edit of any line, the last one
 * too, is then seen on that line alone, and a writer can check the line it is about to chain
 * from instead of trusting bytes it has not verified. `prev` keeps its meaning (the hash of the
 * previous line's whole bytes), so a sealed line chains from an older build's line unchanged.
 * Anyone can recompute both hashes: what a kept hash (`log verify --expect`) or a copy elsewhere
 * catches that the chain cannot is in SECURITY.md.
 */

const SEAL_HEAD = Buffer.from(',"hash":"');
/** `,"hash":"` + 64 hex digits + `"}`. */
const SEAL_LENGTH = SEAL_HEAD.length + 64 + 2;
const HEX64 = /^[0-9a-f]{64}$/;

/** `json` (one JSON object's text, no line feed) with its own hash as the last member. */
export function sealLine(json: string): string {
  return `${json.slice(0, -1)},"hash":"${lineHash(Buffer.from(json, 'utf8'))}"}`;
}

/** Whether a line's bytes (no line feed) carry their own hash, and whether it holds. */
export function checkSeal(bytes: Uint8Array): 'sealed' | 'unsealed' | 'broken' {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = buffer.length - SEAL_LENGTH;
  if (at < 1 || !buffer.subarray(at, at + SEAL_HEAD.length).equals(SEAL_HEAD)) {
    return buffer.includes('"hash":') ? 'broken' : 'unsealed';
  }
  const hash = buffer.toString('latin1', at + SEAL_HEAD.length, buffer.length - 2);
  if (!HEX64.test(hash) || buffer.toString('latin1', buffer.length - 2) !== '"}') return 'broken';
  const own = createHash('sha256').update(buffer.subarray(0, at)).update('}').digest('hex');
  return own === hash ? 'sealed' : 'broken';
}

/** What breaks the chain at one line. `unlinked` is a link that fails for a reason one pass cannot tell. */
export type BreakKind =
  | 'edited'
  | 'removed'
  | 'reordered'
  | 'inserted'
  | 'unlinked'
  | 'cut'
  | 'unterminated'
  | 'crlf'
  | 'nul'
  | 'unchained'
  | 'unsealed';

export interface ChainBreak {
  /** The line's place in the file (1-based, blank lines counted). */
  line: number;
  kind: BreakKind;
  /** What it looks like, in words, naming the line. */
  problem: string;
}

/** Where the writer of a line last knew the log to end, before the file was cut short or replaced. */
export interface Continues {
  line: number;
  hash: string;
}

/** A line's chain members; null when it has none; 'bad' when it is not a JSON object. */
export function chainFields(bytes: Uint8Array): { line: number; prev: string; continues: unknown } | null | 'bad' {
  // Not an object's text at all (a NUL run, a torn tail): no string of it is made to parse.
  if (bytes.length === 0 || bytes[0] !== 0x7b) return 'bad';
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return 'bad';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'bad';
  const v = value as { line?: unknown; prev?: unknown; continues?: unknown };
  if (v.line === undefined && v.prev === undefined) return null;
  return {
    line: Number.isSafeInteger(v.line) ? (v.line as number) : -1,
    prev: typeof v.prev === 'string' ? v.prev : '',
    continues: v.continues,
  };
}

/** A `continues` member as the writer writes it, or null. */
export function continuesOf(value: unknown): Continues | null {
  if (typeof value !== 'object' || value === null) return null;
  const { line, hash } = value as { line?: unknown; hash?: unknown };
  if (!Number.isSafeInteger(line) || (line as number) < 1 || typeof hash !== 'string' || !HEX64.test(hash)) return null;
  return { line: line as number, hash };
}

const ZEROS = Buffer.alloc(CHUNK);

/** How many NUL bytes `bytes` starts with, a chunk at a time (natively: a power cut can leave megabytes of them). */
export function leadingNuls(bytes: Buffer): number {
  let at = 0;
  while (at < bytes.length) {
    const length = Math.min(CHUNK, bytes.length - at);
    if (bytes.compare(ZEROS, 0, length, at, at + length) !== 0) {
      while (bytes[at] === 0) at++;
      return at;
    }
    at += length;
  }
  return at;
}

/** How many NUL bytes `bytes` ends with. */
function trailingNuls(bytes: Buffer): number {
  let end = bytes.length;
  while (end > 0) {
    const length = Math.min(CHUNK, end);
    if (bytes.compare(ZEROS, 0, length, end - length, end) !== 0) {
      while (end > 0 && bytes[end - 1] === 0) end--;
      return bytes.length - end;
    }
    end -= length;
  }
  return bytes.length;
}

const nulsBefore = (n: number): ChainBreak => ({
  line: n,
  kind: 'nul',
  problem: `NUL bytes at the start of line ${n} (a crash or power cut)`,
});
const nulsAfter = (n: number, count: number): ChainBreak => ({
  line: n,
  kind: 'nul',
  problem: `line ${n} ends in ${count} NUL bytes (a crash or power cut)`,
});

/** What the walker made of the line it last stepped over, for a reader that words breaks further (verify-log.ts). */
export interface LineFacts {
  /** The hash the next line must carry as `prev`: of the line's bytes, without a CR before its line feed. */
  hash: string;
  /** Its chain members, as chainFields gives them (of the text after any leading NUL bytes). */
  chain: { line: number; prev: string; continues: unknown } | null | 'bad';
  seal: 'sealed' | 'unsealed' | 'broken' | null;
  /** The number and the prev it should carry to follow the line before. */
  expected: number;
  prev: string;
  crlf: boolean;
}

/**
 * Walks one file's chain a line at a time, in one pass and constant memory, and says for each
 * line whether it breaks the chain. After a break it takes the line as found and goes on, so
 * every break is named, not only the first; one edit is one break (the line after an edited
 * line does not also count). `log verify` words the breaks further; `report` and `history` use
 * it to know which lines they may believe.
 */
export class ChainWalker {
  /** Lines seen (the place of the last one). */
  lines = 0;
  /** The hash of the last whole line: what the next line must carry as `prev`. */
  lastHash = GENESIS;
  /** What the last line stepped over looked like. */
  facts: LineFacts = { hash: GENESIS, chain: null, seal: null, expected: 0, prev: GENESIS, crlf: false };
  /** The number the next line must carry. */
  private expected = 1;
  private unchained = 0;
  private sawSealed = false;
  private lastBroken = false;
  /** The hash of the last line without the NUL bytes it starts with, if any: a writer may have chained from either. */
  private lastAlt: string | null = null;

  step(bytes: Uint8Array, ended = true): ChainBreak | null {
    const n = ++this.lines;
    const found = this.judge(n, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), ended);
    this.lastBroken = found !== null && found.kind === 'edited';
    return found;
  }

  private judge(n: number, raw: Buffer, ended: boolean): ChainBreak | null {
    let bytes = raw;
    let crlf = false;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 13) {
      bytes = bytes.subarray(0, -1);
      crlf = true;
    }
    const hash = lineHash(bytes);
    let prevHash = this.lastHash;
    const prevAlt = this.lastAlt;
    this.lastAlt = null;
    const facts: LineFacts = { hash, chain: 'bad', seal: null, expected: this.expected, prev: prevHash, crlf };
    this.facts = facts;
    this.lastHash = hash;
    // NUL bytes are what a crash or power cut leaves where the file had grown but its data had not reached
    // the disk; the text after a run of them at the start is judged as a line still.
    const nuls = bytes.length > 0 && bytes[0] === 0 ? leadingNuls(bytes) : 0;
    if (nuls === bytes.length && nuls > 0) {
      this.expected++;
      return { line: n, kind: 'nul', problem: `line ${n} is ${nuls} NUL bytes (a crash or power cut)` };
    }
    if (nuls > 0) this.lastAlt = lineHash(bytes.subarray(nuls));
    const chain = chainFields(bytes.subarray(nuls));
    facts.chain = chain;
    if (chain !== null && chain !== 'bad' && prevAlt !== null && chain.prev === prevAlt) prevHash = prevAlt;
    facts.prev = prevHash;
    if (chain === 'bad') {
      this.expected++;
      const tail = bytes.length > 0 && bytes[bytes.length - 1] === 0 ? trailingNuls(bytes) : 0;
      if (nuls > 0) return nulsBefore(n);
      if (tail > 0) return nulsAfter(n, tail);
      if (!ended)
        return { line: n, kind: 'cut', problem: `line ${n} is cut short (the file ends in the middle of it)` };
      return { line: n, kind: 'edited', problem: `line ${n} is not a JSON object: edited or cut` };
    }
    if (chain === null) {
      this.expected++;
      if (nuls > 0) return nulsBefore(n);
      if (n - 1 === this.unchained) {
        this.unchained++;
        return {
          line: n,
          kind: 'unchained',
          problem: `line ${n} carries no chain (written by a fraudctl that did not chain its lines)`,
        };
      }
      return { line: n, kind: 'inserted', problem: `line ${n} carries no hash: it was inserted after the chain began` };
    }
    const seal = checkSeal(bytes.subarray(nuls));
    facts.seal = seal;
    const linked = chain.prev === prevHash && chain.line === this.expected;
    const afterEdit = this.lastBroken && chain.line === this.expected;
    this.expected = (chain.line > 0 ? chain.line : this.expected) + 1;
    if (seal === 'sealed') this.sawSealed = true;
    if (nuls > 0) return nulsBefore(n);
    if (seal === 'broken')
      return { line: n, kind: 'edited', problem: `line ${n} was edited: its own hash does not match its text` };
    if (!linked && !afterEdit) {
      if (chain.line > 0 && chain.line > n && chain.prev !== prevHash && n === 1 && chain.continues === undefined) {
        return {
          line: n,
          kind: 'removed',
          problem: `the first ${chain.line - 1} line(s) were removed (line 1 says it was line ${chain.line})`,
        };
      }
      return { line: n, kind: 'unlinked', problem: `line ${n} does not follow line ${n - 1}` };
    }
    if (seal === 'unsealed' && this.sawSealed) {
      return {
        line: n,
        kind: 'unsealed',
        problem: `line ${n} carries no hash of its own after lines that do: inserted, or written by an older fraudctl`,
      };
    }
    if (crlf)
      return {
        line: n,
        kind: 'crlf',
        problem: `line ${n} ends with CR LF: the file was saved with Windows line endings`,
      };
    if (!ended)
      return {
        line: n,
        kind: 'unterminated',
        problem: `line ${n} is whole but the file does not end with a line feed (saved by an editor?)`,
      };
    return null;
  }
}

/**
 * A file's lines as exact bytes (no line feed), one at a time, in time and memory linear in the
 * file: a line longer than a chunk is gathered in pieces and joined once. `ended` is false for a
 * last line without a line feed. Refuses what is not a regular file (a FIFO or a device would
 * never end).
 */
export async function* fileLines(path: string): AsyncGenerator<{ bytes: Buffer; ended: boolean }> {
  // Looked at before it is opened: opening a FIFO for reading waits for a writer, for ever. O_NONBLOCK
  // too, for one put at the path between the look and the open; it changes nothing for a regular file.
  const notRegular = () => Object.assign(new Error(`${path} is not a regular file`), { code: 'ENOTREG' });
  if (!(await stat(path)).isFile()) throw notRegular();
  const handle = await open(path, constants.O_RDONLY | (process.platform === 'win32' ? 0 : constants.O_NONBLOCK));
  try {
    if (!(await handle.stat()).isFile()) throw notRegular();
    let pieces: Buffer[] = [];
    for await (const chunk of handle.createReadStream({
      highWaterMark: CHUNK,
      autoClose: false,
    }) as AsyncIterable<Buffer>) {
      let start = 0;
      for (let feed = chunk.indexOf(10); feed !== -1; feed = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, feed);
        yield { bytes: pieces.length > 0 ? Buffer.concat([...pieces, piece]) : piece, ended: true };
        pieces = [];
        start = feed + 1;
      }
      if (start < chunk.length) pieces.push(chunk.subarray(start));
    }
    if (pieces.length > 0) yield { bytes: Buffer.concat(pieces), ended: false };
  } finally {
    await handle.close();
  }
}
