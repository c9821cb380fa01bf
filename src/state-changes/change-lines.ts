import { terminalSafe } from '../render/terminal-text.js';
import { displayWidth } from '../render/display-width.js';
import { KNOWN_STATES } from '../contract/states.js';
import { sym } from '../render/symbols.js';
import type { ChangeOutcome, ChangeResult } from '../results-file/change-result.js';

/*
 * A result of `set-state` for many events as a person reads it (its line in the results file
 * is src/results-file/change-result.ts), and the skip reason the summary counts together.
 */

/**
 * The skip of an event with a comment of its own when --comments came without --append-comment
 * or --replace-comment: one reason, so the summary counts them together, and not "as asked"
 * (exit 1), so a script notices the events it did not change.
 */
export const HAS_COMMENT =
  'has a comment of its own: not changed (--append-comment keeps it, --replace-comment replaces it)';

const WORDS: Record<ChangeOutcome, string> = {
  CHANGED: 'changed',
  PLANNED: 'would change',
  SKIPPED: 'skipped',
  NOT_FOUND: 'not found',
  INVALID: 'invalid',
  REFUSED: 'refused',
  FAILED: 'failed',
  CONFLICT: 'conflict',
  CLAIMED: 'claimed',
};

/** The columns of a line for a person: the id, the move (`from → to`, or the state kept), the outcome with its reason. */
function lineParts(r: ChangeResult): [id: string, move: string, outcome: string] {
  const id = r.id === null ? `(${r.where})` : terminalSafe(r.id);
  const from = r.from === null ? null : terminalSafe(r.from);
  const move =
    r.outcome === 'CHANGED' || r.outcome === 'PLANNED' ? `${from ?? '?'} ${sym.arrow} ${terminalSafe(r.to)}` : from;
  const why = r.reason === null ? '' : `: ${r.reason}`;
  return [id, move ?? '', `${WORDS[r.outcome]}${why}`];
}

/** The line for a person: `ord-1  PENDING_REVIEW → DECLINED  changed`, `ord-2  DECLINED  skipped: already DECLINED`. */
export function changeLine(r: ChangeResult): string {
  const [id, move, outcome] = lineParts(r);
  return `${id}  ${move === '' ? '' : `${move}  `}${outcome}`;
}

const padTo = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - displayWidth(text)));

/**
 * The lines of a --dry-run's plan, in columns: the id column as wide as the longest id given as
 * an argument or printed so far (ids from --from stream in, so a longer one widens it from there
 * on), the move column as wide as the longest move from a known state to `target`.
 */
export function planLines(target: string, ids: readonly string[]): (r: ChangeResult) => string {
  let idWidth = Math.max(0, ...ids.map((id) => displayWidth(terminalSafe(id))));
  const moveWidth = Math.max(
    ...KNOWN_STATES.map((state) => displayWidth(`${state} ${sym.arrow} ${terminalSafe(target)}`)),
  );
  return (r) => {
    const [id, move, outcome] = lineParts(r);
    idWidth = Math.max(idWidth, displayWidth(id));
    return `${padTo(id, idWidth)}  ${padTo(move, moveWidth)}  ${outcome}`;
  };
}
