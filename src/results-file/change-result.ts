import { jsonForTerminal } from '../render/terminal-text.js';
import { resultObject } from './lines.js';
import type { RecordedResult } from './prior-run.js';

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
