import { createReadStream, statSync } from 'node:fs';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { errorCode } from '../files/file-errors.js';
import { terminalSafe } from '../render/terminal-text.js';
import type { Session } from '../session.js';
import { GENESIS, lineHash } from './log-chain.js';

/*
 * `fraudctl log verify FILE…`: walks each log's hash chain (log-chain.ts) and says whether it is
 * whole. Each line must carry `line` equal to its place in the file and `prev` equal to the
 * SHA-256 of the line before (GENESIS for line 1); the file must end with a line feed. The first
 * line that fails is named, with what it looks like where the chain can tell:
 *
 * - its link holds but its number does not: that line was edited;
 * - its `prev` is the hash of a line further down: lines were swapped or moved;
 * - its `prev` is the hash of a line further up: the lines between were inserted or moved;
 * - its `prev` matches no line and its number is higher than its place: lines were removed;
 * - its number is its place: the line before it was edited (or its own `prev` was, when the
 *   line after it no longer links to it either);
 * - no line feed at the end: the last line was cut; not JSON: edited or cut;
 * - lines without `line`/`prev` at the start of a file were written before fraudctl chained its
 *   lines: the file is not intact (nothing proves they were not changed), and the message says
 *   "unchained lines 1-K" and whether the chained lines after them are whole; such a line after
 *   the chain began was inserted.
 *
 * What a whole chain proves, and what it does not (SECURITY.md): the file was not changed after
 * the fact by someone without the tool; anyone can recompute every hash, so someone set on it
 * can rewrite the whole file; lines removed from the end leave a shorter whole chain (verify
 * prints the last line's hash, to keep elsewhere and compare). Read a chunk at a time, two
 * passes at most (the second only for a broken file, to say what it looks like), so memory
 * stays flat for a log of any length.
 */

export interface LogVerdict {
  file: string;
  intact: boolean;
  /** Lines in the file (a cut last line counted). */
  lines: number;
  /** The hash of the last whole line (what the next line would carry); null for an empty file. */
  lastHash: string | null;
  /** The first line that fails, with what it looks like; null when intact. */
  firstBad: number | null;
  kind: 'edited' | 'removed' | 'reordered' | 'inserted' | 'cut' | 'unchained' | null;
  problem: string | null;
}

interface RawLine {
  bytes: Buffer;
  /** Ended by a line feed (else it is the file's last, cut short). */
  ended: boolean;
}

/** The file's lines as bytes, a chunk at a time (the hash is of the exact bytes). */
async function* rawLines(path: string): AsyncGenerator<RawLine> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    let data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    for (let feed = data.indexOf(10); feed !== -1; feed = data.indexOf(10, start)) {
      yield { bytes: data.subarray(start, feed), ended: true };
      start = feed + 1;
    }
    rest = Buffer.from(data.subarray(start));
    data = rest;
  }
  if (rest.length > 0) yield { bytes: rest, ended: false };
}

interface Parsed {
  line: number;
  prev: string;
}

/** The chain fields of a line; null when it has none; 'bad' when it is not a JSON object. */
function chainOf(bytes: Buffer): Parsed | null | 'bad' {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'bad';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'bad';
  const v = value as { line?: unknown; prev?: unknown };
  if (v.line === undefined && v.prev === undefined) return null;
  return { line: Number.isSafeInteger(v.line) ? (v.line as number) : -1, prev: typeof v.prev === 'string' ? v.prev : '' };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const range = (a: number, b: number) => (a === b ? `line ${a}` : `lines ${a}-${b}`);

/** What the first failing line looks like: a second pass over the file, only for a broken one. */
async function diagnose(path: string, n: number, found: Parsed): Promise<{ kind: NonNullable<LogVerdict['kind']>; problem: string; bad?: number }> {
  // Where a line with the hash `found.prev` is, and whether the line after n still links to n.
  let match: number | null = found.prev === GENESIS ? 0 : null;
  let hashOfN: string | null = null;
  let nextPrev: string | null | undefined;
  // A line inserted as a copy: the same bytes as the line whose number it carries.
  let hashOfNamed: string | null = null;
  let i = 0;
  for await (const raw of rawLines(path)) {
    i++;
    if (!raw.ended) break;
    const hash = lineHash(raw.bytes);
    if (match === null && i !== n && hash === found.prev) match = i;
    if (i === found.line) hashOfNamed = hash;
    if (i === n) hashOfN = hash;
    if (i === n + 1) {
      const next = chainOf(raw.bytes);
      nextPrev = next !== null && next !== 'bad' ? next.prev : null;
    }
  }
  if (match !== null && match > n) {
    return match === n + 1
      ? { kind: 'reordered', problem: `lines ${n} and ${n + 1} are out of order (swapped): line ${n} was written after line ${n + 1}` }
      : { kind: 'reordered', problem: `line ${n} was moved: it was written after what is now line ${match}` };
  }
  if (found.line < n && found.line > 0) return { kind: 'inserted', problem: hashOfNamed === hashOfN ? `line ${n} is a copy of line ${found.line}, inserted here` : `line ${n} was inserted or copied here (it says it was line ${found.line})` };
  if (match === 0) return { kind: 'inserted', problem: `line ${n} was written as the first line of a log: ${range(1, n - 1)} before it were added, or it was moved` };
  if (match !== null && match < n - 1) return { kind: 'inserted', problem: `${range(match + 1, n - 1)} do${match + 1 === n - 1 ? 'es' : ''} not belong between lines ${match} and ${n}: inserted, or moved there` };
  if (found.line > n) {
    const gone = found.line - n;
    return { kind: 'removed', problem: n === 1 ? `${gone === 1 ? 'the first line was' : `the first ${gone} lines were`} removed (line 1 says it was line ${found.line})` : `${plural(gone, 'line was', 'lines were')} removed before line ${n} (it says it was line ${found.line})` };
  }
  if (n === 1) return { kind: 'edited', problem: 'line 1 was edited (it does not start the chain)' };
  // The line before n was edited, or n's own `prev` was: then the line after n no longer links to n either.
  if (nextPrev !== undefined && nextPrev !== hashOfN) return { kind: 'edited', problem: `line ${n} was edited (its prev field no longer holds the hash of line ${n - 1})` };
  const tail = nextPrev === undefined ? ` (or the last line's own prev field)` : '';
  return { kind: 'edited', problem: `line ${n - 1} was edited: line ${n} holds the hash of another text${tail}`, bad: n - 1 };
}

export async function verifyLog(path: string): Promise<LogVerdict> {
  const verdict = (fields: Partial<LogVerdict>): LogVerdict => ({ file: path, intact: false, lines: 0, lastHash: null, firstBad: null, kind: null, problem: null, ...fields });
  let n = 0;
  let prevHash = GENESIS;
  let unchained = 0;
  for await (const raw of rawLines(path)) {
    n++;
    // What holds before the line named: the chained lines, and any unchained ones at the start.
    const intactBefore = (bad = n) => (bad - 1 > unchained ? ` (${range(unchained + 1, bad - 1)} intact${unchained > 0 ? `; unchained ${range(1, unchained)}` : ''})` : unchained > 0 && bad > 1 ? ` (unchained ${range(1, Math.min(unchained, bad - 1))})` : '');
    if (!raw.ended) return verdict({ lines: n, lastHash: n > 1 ? prevHash : null, firstBad: n, kind: 'cut', problem: `line ${n} is cut short (the file ends in the middle of it)${intactBefore()}` });
    const chain = chainOf(raw.bytes);
    if (chain === 'bad') return verdict({ lines: n, firstBad: n, kind: 'edited', problem: `line ${n} is not a JSON object: edited or cut${intactBefore()}` });
    if (chain === null) {
      if (n - 1 === unchained) {
        unchained++;
        prevHash = lineHash(raw.bytes);
        continue;
      }
      return verdict({ lines: n, firstBad: n, kind: 'inserted', problem: `line ${n} carries no hash: it was inserted (or written by a fraudctl that does not chain its lines, after the chain began)${intactBefore()}` });
    }
    if (chain.prev === prevHash && chain.line === n) {
      prevHash = lineHash(raw.bytes);
      continue;
    }
    const { kind, problem, bad = n } = chain.prev === prevHash ? { kind: 'edited' as const, problem: `line ${n} was edited (its line number says ${chain.line})` } : await diagnose(path, n, chain);
    return verdict({ lines: n, firstBad: bad, kind, problem: `${problem}${intactBefore(bad)}` });
  }
  if (unchained > 0) {
    const rest = n > unchained ? `; ${range(unchained + 1, n)} chained and intact` : '';
    return verdict({ lines: n, lastHash: prevHash, firstBad: 1, kind: 'unchained', problem: `unchained ${range(1, unchained)}: written by a fraudctl that did not chain its log lines, so nothing proves they were not changed${rest}` });
  }
  return verdict({ intact: true, lines: n, lastHash: n > 0 ? prevHash : null });
}

/** `fraudctl log verify FILE…`: a line per file on stdout (or --json); exit 1 when any is not intact. */
export async function verifyLogs(session: Session, files: readonly string[]): Promise<void> {
  for (const file of files) {
    let stat;
    try {
      stat = statSync(file);
    } catch (error) {
      throw new UsageError(`cannot read ${terminalSafe(file)}: ${errorCode(error) === 'ENOENT' ? 'no such file' : errorCode(error)}`, 'give log verify the --log files to check');
    }
    if (stat.isDirectory()) throw new UsageError(`${terminalSafe(file)} is a directory`, 'give log verify the --log files to check');
  }
  const output = await session.output();
  const verdicts: LogVerdict[] = [];
  for (const file of files) {
    let verdict: LogVerdict;
    try {
      verdict = await verifyLog(file);
    } catch (error) {
      throw new CliError(`cannot read ${terminalSafe(file)}: ${errorCode(error)}`, ExitCode.FAILURE);
    }
    verdicts.push(verdict);
    if (!output.json) {
      const name = terminalSafe(file);
      output.print(verdict.intact ? `${name}: ${plural(verdict.lines, 'line', 'lines')} intact${verdict.lastHash ? ` (last line's hash ${verdict.lastHash})` : ''}` : `${name}: NOT INTACT: ${verdict.problem}`);
    }
  }
  if (output.json) output.printJson(verdicts);
  const broken = verdicts.filter((v) => !v.intact);
  if (broken.length > 0) {
    throw new CliError(
      broken.length === 1 && verdicts.length === 1 ? `${terminalSafe(broken[0]!.file)} is not intact (line ${broken[0]!.firstBad})` : `${broken.length} of ${verdicts.length} logs are not intact: ${broken.map((v) => `${terminalSafe(v.file)} (line ${v.firstBad})`).join(', ')}`,
      ExitCode.FAILURE,
    );
  }
}
