import { resultObject } from './lines.js';
import type { RecordedResult } from './prior-run.js';
import { jsonForTerminal } from '../render/terminal-text.js';

/*
 * One result per input record (a line of JSON Lines, or a value): the record the results file (--out) holds and resume reads back.
 * Its fields and their order are a contract with script authors; add, never rename.
 */

export const OUTCOMES = ['DECIDED', 'REJECTED', 'FAILED', 'UNKNOWN'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface LineResult {
  /** 1-based input line where the event starts (JSON Lines: its line). */
  line: number;
  id: string | null;
  outcome: Outcome;
  /** The HTTP status that settled the line; null when no answer came (or it was rejected locally). */
  status: number | null;
  actionType: string | null;
  totalRiskScore: number | null;
  errorType: string | null;
  errorCodes: string[];
  /** Requests sent for the line, retries and duplicate checks included (0: rejected locally). */
  attempts: number;
  latencyMs: number;
  /**
   * 1-based column where the event starts: 1 for JSON Lines; with `line`, what identifies an
   * event of any layout (several can start on one line). Older files lack it: read as 1.
   */
  column: number;
  /**
   * True when `id` is the one the service assigned to an event sent without one: the input had
   * no id (resume compares the input's ids with the results'). Older files lack it.
   */
  idAssigned: boolean;
  /**
   * The service had the event already (it answered the POST 200, not 201): the decision is the
   * one from its first screening, and `stateNow` is its state read after (null when not read).
   * Older files lack them.
   */
  alreadyExisted: boolean;
  stateNow: string | null;
  /**
   * What `evaluate` needs, so that it reads nothing back: the ids of the rules that matched (the
   * POST's ruleMatches, or the risk assessment's alerts), and from the payload sent its
   * eventDate (as the service writes it), amount and currency; amountInBaseCurrency when the
   * answer carries it, or the payload's amount when its currency is the service's base currency
   * (the contract's POST answer has no base amount: the batch learns the base currency with one
   * read, src/submit-batch/base-currency.ts; otherwise evaluate reads the event).
   * Null when not known. Older files lack them.
   */
  ruleIds?: string[] | null;
  eventDate?: string | null;
  amount?: number | null;
  currency?: string | null;
  amountInBaseCurrency?: number | null;
  /** The service's base currency (a 3-letter code), on the DECIDED lines of a run that learned it. */
  baseCurrency?: string | null;
}

/** The result as one line of JSON, fields in their fixed order, terminal controls escaped. */
export function formatResult(r: LineResult): string {
  return jsonForTerminal(
    {
      line: r.line,
      id: r.id,
      outcome: r.outcome,
      status: r.status,
      actionType: r.actionType,
      totalRiskScore: r.totalRiskScore,
      errorType: r.errorType,
      errorCodes: r.errorCodes,
      attempts: r.attempts,
      latencyMs: r.latencyMs,
      column: r.column,
      idAssigned: r.idAssigned,
      alreadyExisted: r.alreadyExisted,
      stateNow: r.stateNow,
      ruleIds: r.ruleIds ?? null,
      eventDate: r.eventDate ?? null,
      amount: r.amount ?? null,
      currency: r.currency ?? null,
      amountInBaseCurrency: r.amountInBaseCurrency ?? null,
      baseCurrency: r.baseCurrency ?? null,
    },
    false,
  );
}

/** A line of a results file read back, or undefined when it is not one of ours. */
export function parseResult(text: string): LineResult | undefined {
  const value = resultObject(text);
  if (value === undefined) return undefined;
  const r = value as Partial<LineResult>;
  if (!Number.isSafeInteger(r.line) || (r.line as number) < 1) return undefined;
  if (!OUTCOMES.includes(r.outcome as Outcome)) return undefined;
  if (r.id !== null && typeof r.id !== 'string') return undefined;
  if (r.column === undefined) r.column = 1;
  else if (!Number.isSafeInteger(r.column) || r.column < 1) return undefined;
  if (r.idAssigned !== undefined && typeof r.idAssigned !== 'boolean') return undefined;
  r.alreadyExisted ??= false;
  r.stateNow ??= null;
  return r as LineResult;
}

/**
 * What resume needs of a line of submit's results file: a FAILED line is done again (first
 * checked, when it has an id: the event may be stored); every other outcome stays settled.
 */
export function readLineResult(text: string): RecordedResult | undefined {
  const r = parseResult(text);
  if (!r) return undefined;
  const failed = r.outcome === 'FAILED';
  // The input's id: none when the service assigned the recorded one; an older line cannot tell.
  const id = r.idAssigned === true ? null : r.id;
  const orNoId = r.idAssigned === undefined && r.outcome === 'DECIDED' && r.id !== null;
  // A POST answered by something that is not the service was not passed on (submit-line.ts): not stored.
  const unsure = failed && id !== null && r.errorType !== 'NOT_THE_SERVICE';
  const [undecided, unknown] = [r.outcome !== 'DECIDED', r.outcome === 'UNKNOWN'];
  return { line: r.line, column: r.column, id, settled: !failed, unsure, orNoId, undecided, unknown };
}
