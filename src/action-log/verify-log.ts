import { terminalSafe } from '../render/terminal-text.js';
import { ChainWalker, continuesOf, fileLines, GENESIS, lineHash, type BreakKind, type Continues } from './log-chain.js';

/*
 * The verifier `fraudctl log verify FILE…` asks (src/commands/log/ prints its verdicts): walks
 * each log's hash chain (log-chain.ts's ChainWalker) and names every break, one break for one change: a line edited (its own hash no longer matches; for a
 * line of an older build, the next line holds the hash of another text), lines removed (the
 * next line says a higher number), a pair swapped or a line moved (its `prev` is the hash of a
 * line elsewhere), lines inserted (a later line links over them), a line copied from another
 * (the same bytes twice), a line cut short, NUL bytes (a crash or power cut), lines written
 * before fraudctl chained its lines ("unchained"). CR LF endings and a missing last line feed
 * (an editor's save) are said once for the file, as such.
 *
 * Files given together are taken as one log in order (after a rotation): a line carrying
 * `continues` says which line of the file before its writer last knew, and the join is checked.
 * `--expect HASH` (the last line's hash an earlier verify printed, kept elsewhere) catches what
 * the chain cannot: lines removed from the end; lines added after it are said, and are fine.
 *
 * Time and memory are linear in the file: one pass names the breaks, and a second pass, only
 * for a file that has a link break, finds where the hashes it names are (both through
 * fileLines). What a whole chain proves, and what it does not, is in SECURITY.md.
 */

export type VerifyKind = BreakKind | 'gap' | 'unjoined';

export interface LogBreak {
  /** The line's place in the file (1-based). */
  line: number;
  kind: VerifyKind;
  problem: string;
}

export interface LogVerdict {
  file: string;
  intact: boolean;
  /** Lines in the file (a cut last line counted). */
  lines: number;
  /** The hash of the last whole line (what the next line would carry); null for an empty file. */
  lastHash: string | null;
  /** The number the last line carries (its place, when it carries none). */
  lastLine: number;
  /** Every break, in the order of the file. */
  breaks: LogBreak[];
  /** The first break's line, kind and words (null when intact). */
  firstBad: number | null;
  kind: VerifyKind | null;
  problem: string | null;
  /** Lines that say which line of an earlier file their writer last knew (`at`: their place here). */
  continues: Array<{ at: number } & Continues>;
  /** How this file joins the file given before it, when it continues one. */
  join: { kind: 'joins' | 'gap' | 'unjoined' | 'alone'; line: number; problem: string } | null;
  /** With --expect: where the line of that hash is in this file (null: not in it). */
  expected?: { hash: string; line: number | null; added: number | null };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const range = (a: number, b: number) => (a === b ? `line ${a}` : `lines ${a}-${b}`);

/** The most lines one break of lines inserted is looked for across. */
const MAX_SPAN = 1_000;

/** What the first pass keeps of a line whose link fails: enough to word the break with the second pass's answers. */
interface LinkBreak {
  n: number;
  /** The number it carries and the number it should. */
  line: number;
  expected: number;
  /** Its `prev`, the hash of the line before it, its own hash. */
  prev: string;
  before: string;
  hash: string;
  /** The `prev` and number of the line after it (undefined: it is the last; null: that one is not chained). */
  next?: { prev: string; line: number } | null;
}

/** The places of the lines of `path` (its first `limit`) whose hash is one of `wanted`: a pass linear in the file. */
async function placesOf(path: string, wanted: ReadonlySet<string>, limit: number): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  let n = 0;
  for await (const { bytes } of fileLines(path)) {
    if (++n > limit) break;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
    const hash = lineHash(bytes.subarray(0, end));
    if (!wanted.has(hash)) continue;
    const at = found.get(hash);
    if (at === undefined) found.set(hash, [n]);
    else if (at.length < 4) at.push(n);
  }
  return found;
}

/** Verifies one file. `expect`: the hash of a line to look for (see --expect). */
export async function verifyLog(path: string, options: { expect?: string } = {}): Promise<LogVerdict> {
  const walker = new ChainWalker();
  const found: LogBreak[] = [];
  const links = new Map<number, LinkBreak>();
  const continues: LogVerdict['continues'] = [];
  let waitingForNext: LinkBreak | null = null;
  let lastHash: string | null = null;
  let lastLine = 0;
  let expectedAt: number | null = null;
  for await (const { bytes, ended } of fileLines(path)) {
    const seen = walker.step(bytes, ended);
    const n = walker.lines;
    const { facts } = walker;
    const chain = typeof facts.chain === 'object' ? facts.chain : null;
    if (waitingForNext !== null) waitingForNext.next = chain === null ? null : { prev: chain.prev, line: chain.line };
    waitingForNext = null;
    if (seen?.kind !== 'cut') lastHash = facts.hash;
    lastLine = chain !== null && chain.line > 0 ? chain.line : lastLine + 1;
    if (expectedAt === null && facts.hash === options.expect && seen?.kind !== 'cut') expectedAt = n;
    const from = chain === null ? null : continuesOf(chain.continues);
    if (from !== null) continues.push({ at: n, ...from });
    if (seen === null) continue;
    if ((seen.kind === 'unlinked' || seen.kind === 'removed') && chain !== null) {
      const { expected, prev: before, hash } = facts;
      const link = { n, line: chain.line, expected, prev: chain.prev, before, hash };
      links.set(n, link);
      waitingForNext = link;
    }
    found.push(seen);
  }
  const lines = walker.lines;
  const breaks = links.size > 0 ? await wordLinks(path, found, links, lines) : found;
  const merged = mergeRuns(breaks, lines);
  return verdictOf(path, { lines, lastHash, lastLine, breaks: merged, continues, expect: options.expect, expectedAt });
}

function verdictOf(
  file: string,
  r: {
    lines: number;
    lastHash: string | null;
    lastLine: number;
    breaks: LogBreak[];
    continues: LogVerdict['continues'];
    expect?: string | undefined;
    expectedAt: number | null;
  },
): LogVerdict {
  const first = r.breaks[0] ?? null;
  return {
    file,
    intact: first === null,
    lines: r.lines,
    lastHash: r.lastHash,
    lastLine: r.lastLine,
    breaks: r.breaks,
    firstBad: first?.line ?? null,
    kind: first?.kind ?? null,
    problem: first?.problem ?? null,
    continues: r.continues,
    join: null,
    ...(r.expect === undefined ? {} : { expected: { hash: r.expect, line: r.expectedAt, added: null } }),
  };
}

/**
 * The walker's breaks, with each failed link worded as what it looks like, and the breaks that
 * one change caused after the first folded into it (a swap fails three links; one break).
 */
async function wordLinks(
  path: string,
  found: LogBreak[],
  links: Map<number, LinkBreak>,
  lines: number,
): Promise<LogBreak[]> {
  const wanted = new Set<string>();
  for (const link of links.values()) wanted.add(link.prev).add(link.hash);
  const places = await placesOf(path, wanted, lines);
  const where = (hash: string, not: number) =>
    hash === GENESIS ? [0] : (places.get(hash) ?? []).filter((p) => p !== not);
  const consumed = new Set<number>();
  const byPrev = new Map<string, number[]>();
  for (const link of links.values()) {
    const same = byPrev.get(link.prev);
    if (same === undefined) byPrev.set(link.prev, [link.n]);
    else same.push(link.n);
  }
  const out: LogBreak[] = [];
  /**
   * The line further up that line n links to, when every line between them was said broken (so
   * they are what does not belong), else null. Only the breaks said last are looked at, and no
   * more than MAX_SPAN of them: a file of nothing but breaks stays linear.
   */
  const insertedBetween = (preds: number[], n: number): number | null => {
    const m = Math.max(-1, ...preds.filter((p) => p < n - 1));
    if (m < 0 || n - 1 - m > MAX_SPAN) return null;
    let want = n - 1;
    for (let i = out.length - 1; i >= 0 && want > m; i--) {
      if (out[i]!.line !== want) return null;
      want--;
    }
    return want === m ? m : null;
  };
  for (const seen of found) {
    const link = links.get(seen.line);
    if (consumed.has(seen.line)) continue;
    if (link === undefined) {
      out.push(seen);
      continue;
    }
    const n = link.n;
    const after = links.get(n + 1);
    const linksOver = (hash: string, to: number) => after !== undefined && after.prev === hash && to === n + 1;
    const said = (kind: VerifyKind, problem: string, line = n) => out.push({ line, kind, problem });
    const copies = where(link.hash, n);
    const preds = where(link.prev, n);
    if (copies.length > 0) {
      // The same bytes as another line: a copy, inserted here.
      if (linksOver(link.before, n + 1)) consumed.add(n + 1);
      said('inserted', `line ${n} is a copy of line ${copies[0]}, inserted here`);
    } else if (link.prev === link.before) {
      said('edited', `line ${n} was edited (its line number says ${link.line})`);
    } else if (preds.includes(0)) {
      said(
        'inserted',
        `line ${n} was written as the first line of a log: ${range(1, n - 1)} before it were ` +
          `added, or it was moved`,
      );
    } else if (preds.some((m) => m > n)) {
      const m = preds.find((p) => p > n)!;
      const atM = links.get(m);
      const afterM = links.get(m + 1);
      // Line n was written after what is now line m: the line after n links back over it, and the line
      // after m links to n.
      const movedUp = after?.prev === link.before && (m === lines || afterM?.prev === link.hash);
      // Or line m was written just before line n: m links to the line before n, and the line after m links over m.
      const movedDown = atM?.prev === link.before && (m === lines || afterM?.prev === atM.before);
      if (movedUp || movedDown) {
        consumed.add(movedUp ? n + 1 : m).add(m + 1);
        if (m === n + 1)
          said(
            'reordered',
            `lines ${n} and ${n + 1} are out of order (swapped): line ${n} was ` + `written after line ${n + 1}`,
          );
        else if (movedUp) said('reordered', `line ${n} was moved: it was written after what is now line ${m}`);
        else said('reordered', `line ${m} was moved: it was written just before what is now line ${n}`);
      } else {
        said('reordered', `line ${n} is out of place: it was written after what is now line ${m}`);
      }
    } else if (insertedBetween(preds, n) !== null) {
      // Links to a line further up: those between it and this one were inserted (as breaks already said, one per line).
      const m = insertedBetween(preds, n)!;
      while (out.length > 0 && out[out.length - 1]!.line > m) out.pop();
      const verb = m + 1 === n - 1 ? 'does' : 'do';
      said(
        'inserted',
        `${range(m + 1, n - 1)} ${verb} not belong between lines ${m} and ${n}: inserted, or ` + `moved there`,
        m + 1,
      );
    } else if (link.line > 0 && link.line < link.expected) {
      // A chained line from elsewhere: the lines from here to the one that links over them do not belong.
      const end = byPrev.get(link.before)?.find((p) => p > n && !consumed.has(p));
      if (end !== undefined && end > n + 1) {
        for (let l = n + 1; l <= end; l++) if (links.has(l)) consumed.add(l);
        said(
          'inserted',
          `${range(n, end - 1)} do not belong between lines ${n - 1} and ${end}: inserted, or ` + `moved there`,
        );
      } else {
        if (end !== undefined) consumed.add(end);
        said('inserted', `line ${n} was inserted or copied here (it says it was line ${link.line})`);
      }
    } else if (link.line > link.expected) {
      const gone = link.line - link.expected;
      const nul = out[out.length - 1];
      if (nul !== undefined && nul.kind === 'nul' && nul.line === n - 1) {
        nul.problem += `: it holds the place of ${range(link.expected - 1, link.line - 1)}, lost`;
      } else if (n === 1) {
        said(
          'removed',
          `${gone === 1 ? 'the first line was' : `the first ${gone} lines were`} removed (line 1 ` +
            `says it was line ${link.line})`,
        );
      } else {
        said(
          'removed',
          `${plural(gone, 'line was', 'lines were')} removed before line ${n} (it says it was line ` + `${link.line})`,
        );
      }
    } else if (n === 1) {
      said('edited', 'line 1 was edited (it does not start the chain)');
    } else if (
      after !== undefined &&
      after.prev !== link.hash &&
      where(after.prev, n + 1).length === 0 &&
      after.line === link.line + 1
    ) {
      // The line after this one no longer links to it either: this line's own `prev` was edited.
      consumed.add(n + 1);
      said('edited', `line ${n} was edited (its prev field no longer holds the hash of line ${n - 1})`);
    } else {
      const tail = link.next === undefined ? ` (or the last line's own prev field)` : '';
      said('edited', `line ${n - 1} was edited: line ${n} holds the hash of another text${tail}`, n - 1);
    }
  }
  return out;
}

/** Runs of one kind that one cause explains, said once: unchained lines at the start, CR LF endings, unsealed lines. */
function mergeRuns(breaks: LogBreak[], lines: number): LogBreak[] {
  const out: LogBreak[] = [];
  const unchained = breaks.filter((b) => b.kind === 'unchained').length;
  const crlf = breaks.filter((b) => b.kind === 'crlf');
  let runEnd = 0;
  for (const b of breaks) {
    const last = out[out.length - 1];
    if (b.kind === 'unchained') {
      if (last?.kind === 'unchained') continue;
      const whole = lines > unchained && breaks.length === unchained;
      const rest = whole ? `; ${range(unchained + 1, lines)} chained and intact` : '';
      out.push({
        ...b,
        problem:
          `unchained ${range(1, unchained)}: written by a fraudctl that did not chain its ` +
          `log lines, so nothing proves they were not changed${rest}`,
      });
    } else if (b.kind === 'crlf') {
      if (b !== crlf[0]) continue;
      const some = `${plural(crlf.length, 'line ends', 'lines end')} (the first: line ${b.line})`;
      const which = crlf.length === lines ? 'every line ends' : some;
      out.push({
        ...b,
        problem:
          `${which} with CR LF: the file was saved with Windows line endings (the chain ` + `holds without the CRs)`,
      });
    } else if (b.kind === 'unsealed' && last?.kind === 'unsealed' && runEnd === b.line - 1) {
      runEnd = b.line;
      last.problem =
        `${range(last.line, b.line)} carry no hash of their own after lines that do: inserted, or ` +
        `written by an older fraudctl`;
    } else {
      out.push(b);
      runEnd = b.line;
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

/** Whether `later` joins the file given before it (`earlier`), when a line of it says it continues one. */
export async function joinOf(earlier: LogVerdict | null, later: LogVerdict): Promise<LogVerdict['join']> {
  if (later.continues.length === 0) return null;
  const first = later.continues[0]!;
  if (earlier === null) {
    return {
      kind: 'alone',
      line: first.at,
      problem:
        `line ${first.at} continues an earlier file (its writer last knew line ${first.line} of the log ` +
        `before it was rotated or cut short): give that file before this one to check the join`,
    };
  }
  const old = terminalSafe(earlier.file);
  const lastNumber = earlier.lastLine;
  let gapTo = 0;
  let gapAt = 0;
  for (const c of later.continues) {
    if (c.hash === earlier.lastHash) continue;
    if (c.line > lastNumber) {
      if (c.line > gapTo) [gapTo, gapAt] = [c.line, c.at];
      continue;
    }
    const places = await placesOf(earlier.file, new Set([c.hash]), earlier.lines);
    if (!places.has(c.hash)) {
      return {
        kind: 'unjoined',
        line: c.at,
        problem:
          `line ${c.at} continues from line ${c.line} of a log, ` +
          `which ${old} does not hold as written: ${old} was edited there, or it is not the file this one continues`,
      };
    }
  }
  if (gapTo > 0) {
    const lost = range(lastNumber + 1, gapTo);
    return {
      kind: 'gap',
      line: gapAt,
      problem:
        `${lost} of ${old} ${lastNumber + 1 === gapTo ? 'is' : 'are'} in ` +
        `neither file: lost, e.g. to a copytruncate rotation (line ${gapAt} continues from line ${gapTo})`,
    };
  }
  return { kind: 'joins', line: first.at, problem: `joins ${old}: line ${first.at} continues from line ${first.line}` };
}

/** A break found by looking beyond the file (its join, --expect), in its place among the others. */
export function addBreak(v: LogVerdict, found: LogBreak): void {
  v.breaks = [...v.breaks, found].sort((a, b) => a.line - b.line);
  const first = v.breaks[0]!;
  Object.assign(v, { intact: false, firstBad: first.line, kind: first.kind, problem: first.problem });
}
