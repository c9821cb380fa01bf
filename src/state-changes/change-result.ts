import { resultObject, type RecordedResult } from '../batch/results-file.js';
import { jsonForTerminal, terminalSafe } from '../render/terminal-text.js';
import { displayWidth } from '../render/display-width.js';
import { KNOWN_STATES } from '../contract/states.js';
import { sym } from '../render/symbols.js';

/*
 * One result per input id of `set-state` for many events: the line of its results file (--out),
 * of --json, and what --resume reads back. Its fields and their order are a contract with script
 * authors; add, never rename.
 */

/** CLAIMED: IN_REVIEW, held by a review session, and not changed (no --include-claimed). */
export const CHANGE_OUTCOMES = [
  'CHANGED',
  'SKIPPED',
  'NOT_FOUND',
  'INVALID',
  'REFUSED',
  'FAILED',
  'CONFLICT',
  'CLAIMED',
] as const;
/** PLANNED: what --dry-run says of an event the change would be sent to; never in a results file. */
export type ChangeOutcome = (typeof CHANGE_OUTCOMES)[number] | 'PLANNED';

/**
 * The skip of an event with a comment of its own when --comments came without --append-comment
 * or --replace-comment: one reason, so the summary counts them together, and not "as asked"
 * (exit 1), so a script notices the events it did not change.
 */
export const HAS_COMMENT =
  'has a comment of its own: not changed (--append-comment keeps it, --replace-comment replaces it)';

export interface ChangeResult {
  id: string | null;
  /** The state read before the change (null: none read). */
  from: string | null;
  /** The state asked for. */
  to: string;
  outcome: ChangeOutcome;
  /** Why it was not changed, in words (already safe to print); null when changed. */
  reason: string | null;
  /** The HTTP status that settled it, when a request failed. */
  status: number | null;
  errorType: string | null;
  errorCodes: string[];
  requestId: string | null;
  /** 1-based place of the id in the input (arguments first, then --from): what --resume keys on. */
  item: number;
  /** Where the id came from: `argument 2`, `ids.txt:14`. */
  where: string;
  /** The run's --reason code (the comment sent starts `[reason: CODE]`), or null; `reason`: why not changed. */
  reasonCode: string | null;
}

/** The result as one line of JSON, fields in their fixed order, terminal controls escaped. */
export function formatChangeResult(r: ChangeResult): string {
  return jsonForTerminal(
    {
      id: r.id,
      from: r.from,
      to: r.to,
      outcome: r.outcome,
      reason: r.reason,
      status: r.status,
      errorType: r.errorType,
      errorCodes: r.errorCodes,
      requestId: r.requestId,
      item: r.item,
      where: r.where,
      reasonCode: r.reasonCode,
    },
    false,
  );
}

/** What resume needs of a results line: FAILED is done again (read first, as every id is); the rest stay settled. */
export function readChangeResult(text: string): RecordedResult | undefined {
  const value = resultObject(text);
  if (value === undefined) return undefined;
  const r = value as Partial<ChangeResult>;
  if (!Number.isSafeInteger(r.item) || (r.item as number) < 1) return undefined;
  if (!(CHANGE_OUTCOMES as readonly unknown[]).includes(r.outcome)) return undefined;
  if (r.id !== null && typeof r.id !== 'string') return undefined;
  return { line: r.item!, column: 1, id: r.id ?? null, settled: r.outcome !== 'FAILED', unsure: false };
}

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
