import { CliError, ExitCode } from '../errors/cli-error.js';
import { count, plural } from '../render/counts.js';
import { terminalSafe } from '../render/terminal-text.js';
import type { BreakKind, ChainBreak } from './log-chain.js';

/*
 * Which lines of an action log `report` and `history` may believe, from the chain walker's
 * verdict on each (log-chain.ts, one pass): a line that breaks the chain (edited, removed,
 * reordered, inserted, unlinked, unsealed, or written before lines were chained) is unverified.
 * By default a reader that met one stops with exit 1 before it counts or shows anything, naming
 * each line (file:line and kind) and pointing to `log verify`; with --include-unverified it reads
 * on, and says in every output that its figures include unverified lines, and how many.
 *
 * Not tampering, as `log verify` has them: CR LF line endings and a last line without its line
 * feed (an editor's save; the chain holds) are read as they are, with a note; a last line cut
 * short and a line of NUL bytes (what a crash leaves) hold nothing to count, and are noted.
 * Memory: counts, and the first few breaks by file to name.
 */

/** Read as they are, with a note: line endings an editor changed, not the text. */
const ENDINGS: ReadonlySet<BreakKind> = new Set(['crlf', 'unterminated']);
/** What a crash leaves: nothing to believe or count, and nothing tampered. */
const CRASH: ReadonlySet<BreakKind> = new Set(['cut', 'nul']);

/** How a reader takes a line: believed (whole, or only its endings changed), a crash's remnant, or unverified. */
export function trustOf(broken: ChainBreak | null): 'believed' | 'crash' | 'unverified' {
  if (broken === null || ENDINGS.has(broken.kind)) return 'believed';
  return CRASH.has(broken.kind) ? 'crash' : 'unverified';
}

/** Breaks named in full; the rest are counted. */
const NAMED = 10;

interface FileChecks {
  /** Lines 1..unchained carry no chain (an older fraudctl's): named as one range. */
  unchained: number;
  unverified: number;
  crlf: number;
  unterminated: number;
  crash: number[];
}

/** The breaks met while reading logs, for the notes and the error that say them. */
export class LineChecks {
  /** Lines that break the chain (unchained lines included). */
  unverified = 0;
  private readonly named: { file: string; broken: ChainBreak }[] = [];
  private readonly byKind = new Map<BreakKind, number>();
  private readonly files = new Map<string, FileChecks>();

  /** Takes one line's verdict; says how to take the line. */
  add(file: string, broken: ChainBreak | null): 'believed' | 'crash' | 'unverified' {
    const trust = trustOf(broken);
    if (broken === null) return trust;
    let checks = this.files.get(file);
    if (checks === undefined)
      this.files.set(file, (checks = { unchained: 0, unverified: 0, crlf: 0, unterminated: 0, crash: [] }));
    if (broken.kind === 'crlf' || broken.kind === 'unterminated') checks[broken.kind]++;
    else if (trust === 'crash') checks.crash.push(broken.line);
    else {
      this.unverified++;
      checks.unverified++;
      this.byKind.set(broken.kind, (this.byKind.get(broken.kind) ?? 0) + 1);
      if (broken.kind === 'unchained') checks.unchained++;
      else if (this.named.length < NAMED) this.named.push({ file, broken });
    }
    return trust;
  }

  /** `3 edited, 1 inserted`: the unverified lines by kind. */
  kinds(): string {
    return [...this.byKind].map(([kind, n]) => `${count(n)} ${kind}`).join(', ');
  }

  /** The unverified lines by kind, for --json. */
  kindCounts(): Record<string, number> {
    return Object.fromEntries(this.byKind);
  }

  /** The files with an unverified line, in the order met. */
  unverifiedFiles(): string[] {
    return [...this.files].filter(([, checks]) => checks.unverified > 0).map(([file]) => file);
  }

  /** One line per unverified line named (`team.log:5 edited: line 5 was edited: …`), then how many more. */
  breakLines(): string[] {
    const lines: string[] = [];
    for (const [file, checks] of this.files) {
      if (checks.unchained > 0) {
        const range = checks.unchained === 1 ? '1' : `1-${checks.unchained}`;
        lines.push(
          `  ${terminalSafe(file)}:${range} unchained: written by a fraudctl that did not chain its log lines, ` +
            'so nothing proves they were not changed',
        );
      }
    }
    for (const { file, broken } of this.named)
      lines.push(`  ${terminalSafe(file)}:${broken.line} ${broken.kind}: ${broken.problem}`);
    const unchained = this.byKind.get('unchained') ?? 0;
    const more = this.unverified - unchained - this.named.length;
    if (more > 0) lines.push(`  and ${plural(more, 'more line', 'more lines')}`);
    return lines;
  }

  /** Notes for what is read as it is or skipped without being tampering: line endings, a crash's remnants. */
  notes(): string[] {
    const notes: string[] = [];
    for (const [file, checks] of this.files) {
      const name = terminalSafe(file);
      if (checks.crlf > 0)
        notes.push(
          `note: ${name} has ${plural(checks.crlf, 'line', 'lines')} ending in CR LF ` +
            '(saved with Windows line endings): the chain holds; read as they are',
        );
      if (checks.unterminated > 0)
        notes.push(
          `note: ${name} does not end with a line feed (saved by an editor?): its last line is whole and read`,
        );
      if (checks.crash.length > 0) {
        const shown = checks.crash
          .slice(0, NAMED)
          .map((n) => `${name}:${n}`)
          .join(', ');
        const more = checks.crash.length > NAMED ? ` and ${count(checks.crash.length - NAMED)} more` : '';
        notes.push(
          `note: ${plural(checks.crash.length, 'line is', 'lines are')} what a crash leaves ` +
            `(cut short, or NUL bytes), skipped: ${shown}${more}`,
        );
      }
    }
    return notes;
  }

  /**
   * The error of a reader that will not count unverified lines: the breaks come first on stderr
   * (`breakLines`), then this, exit 1, with the two commands to go on with.
   */
  refusal(reader: string, verifyCommand: string, includeCommand: string): CliError {
    const files = this.unverifiedFiles();
    const where = files.length === 1 ? terminalSafe(files[0]!) : 'the logs';
    return new CliError(
      `${plural(this.unverified, 'line', 'lines')} of ${where} cannot be verified (${this.kinds()}): ` +
        `${reader} does not count what it cannot verify`,
      ExitCode.FAILURE,
      `${verifyCommand} says what happened; to read them too, said as unverified: ${includeCommand}`,
    );
  }

  /** The note of a reader that read on: how many unverified lines its figures include. */
  includedNote(): string {
    const lines = plural(this.unverified, 'unverified line', 'unverified lines');
    return `note: the figures include ${lines} (${this.kinds()}): lines that break the log's hash chain`;
  }
}
