import type { ApiClient } from '../api/api-client.js';
import { ApiError, BadResponseError, NETWORK_ERROR_TYPES, NetworkError } from '../api/api-error.js';
import type { RetryKind } from '../api/retry-budget.js';
import type { InputRecord } from './input-records.js';
import type { LineResult } from './line-result.js';

/*
 * One line of a batch, from its text to its result. The rules that keep a batch from losing or
 * duplicating events live here:
 *
 * - A line that is not a JSON object (or is too large) is REJECTED locally; nothing is sent.
 * - A POST whose outcome is unknown (timeout or reset after sending, 502/504, a 2xx with an
 *   unreadable body) may have been stored. It is never sent again blindly: with an id, the
 *   line asks GET /event/{id}/risk-assessment; a decision found there is the line's decision, a
 *   404 means "not stored" and the POST is sent again. Without an id the line is UNKNOWN.
 * - What is safe to retry (nothing sent, 429, 503) the API client retries itself, paced and
 *   budgeted by the batch.
 */

/** The service said no to this line's content: sending it again as it is would get the same answer. */
const REJECTING_STATUSES: ReadonlySet<number> = new Set([400, 409, 413, 415, 422]);
/** A gateway or the service gave up after the request reached it: the event may have been stored. */
const UNKNOWN_OUTCOME_STATUSES: ReadonlySet<number> = new Set([502, 504]);

export interface LineWork {
  client: ApiClient;
  /** Asked before sending a line again after a duplicate check found nothing stored. */
  allowResubmit(kind: RetryKind): number | false;
  /** How many times one line may be sent again after an unknown outcome. */
  maxResubmits: number;
  /** True once the batch was aborted (second Ctrl-C): the line's outcome is left unrecorded. */
  aborted(): boolean;
}

export interface LineOutcome {
  result: LineResult;
  /** Why the line got no decision, in words, for the summary. */
  reason?: string;
  /** The error that should stop the whole batch (the key was refused). */
  fatal?: ApiError;
}

interface Parsed {
  text: string;
  id: string | null;
}

const LOCAL_REJECTIONS: Record<string, string> = {
  'too large': 'TOO_LARGE',
  'unterminated JSON array': 'UNTERMINATED_ARRAY',
  'text after the end of the JSON array': 'TEXT_AFTER_ARRAY',
};

/** The line as a payload to send, or why it cannot be one. */
function parseRecord(record: InputRecord, maxRecordBytes: number): Parsed | { code: string; reason: string } {
  if (record.problem) {
    const detail = record.problem === 'too large' ? ` (${record.bytes} bytes; the limit is ${maxRecordBytes})` : '';
    return { code: LOCAL_REJECTIONS[record.problem] ?? 'INVALID_LINE', reason: `${record.problem}${detail}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(record.text);
  } catch (e) {
    return { code: 'NOT_JSON', reason: `not JSON (${(e as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { code: 'NOT_AN_OBJECT', reason: `not a JSON object (${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value})` };
  }
  const id = (value as { id?: unknown }).id;
  return { text: record.text, id: typeof id === 'string' ? id : null };
}

function blank(record: InputRecord, id: string | null): LineResult {
  return { line: record.line, id, outcome: 'FAILED', status: null, actionType: null, totalRiskScore: null, errorType: null, errorCodes: [], attempts: 0, latencyMs: 0 };
}

/** actionType and totalRiskScore from a decision or risk assessment, read tolerantly. */
function decided(result: LineResult, status: number, body: unknown): LineResult {
  const b = (typeof body === 'object' && body !== null ? body : {}) as { actionType?: unknown; totalRiskScore?: unknown };
  return {
    ...result,
    outcome: 'DECIDED',
    status,
    actionType: typeof b.actionType === 'string' ? b.actionType : null,
    totalRiskScore: typeof b.totalRiskScore === 'number' ? b.totalRiskScore : null,
  };
}

function failure(error: unknown): { status: number | null; errorType: string; errorCodes: string[]; reason: string } {
  if (error instanceof ApiError) {
    return { status: error.status, errorType: error.errorType ?? `HTTP_${error.status}`, errorCodes: [...error.errorCodes], reason: error.message };
  }
  if (error instanceof NetworkError) return { status: null, errorType: NETWORK_ERROR_TYPES[error.failure], errorCodes: [], reason: error.message };
  if (error instanceof BadResponseError) return { status: null, errorType: 'BAD_RESPONSE', errorCodes: [], reason: error.message };
  throw error;
}

/** True when the request may have been processed although no usable answer came. */
function outcomeUnknown(error: unknown): boolean {
  if (error instanceof ApiError) return UNKNOWN_OUTCOME_STATUSES.has(error.status);
  if (error instanceof NetworkError) return error.maybeProcessed && error.failure !== 'budget';
  // A 2xx whose body was not the JSON promised: the service did take the request.
  return error instanceof BadResponseError;
}

function attemptsOf(error: unknown): number {
  return error instanceof ApiError || error instanceof NetworkError || error instanceof BadResponseError ? error.attempts : 1;
}

type Check = { found: true; status: number; body: unknown } | { found: false } | { error: unknown };

/** Is the event stored? Its risk assessment carries the decision, so one GET answers both. */
async function checkStored(client: ApiClient, id: string): Promise<Check & { attempts: number }> {
  try {
    const res = await client.getRiskAssessment(id);
    return { found: true, status: res.status, body: res.body, attempts: res.attempts };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { found: false, attempts: error.attempts };
    return { error, attempts: attemptsOf(error) };
  }
}

/**
 * Screens one line. `verifyFirst` (resume: the line may have been sent by the run that died)
 * starts with the duplicate check. Returns undefined when the batch was aborted mid-line.
 */
export async function submitLine(record: InputRecord, work: LineWork, options: { verifyFirst: boolean; maxRecordBytes: number }): Promise<LineOutcome | undefined> {
  const started = performance.now();
  const parsed = parseRecord(record, options.maxRecordBytes);
  if ('code' in parsed) {
    const result: LineResult = { ...blank(record, null), outcome: 'REJECTED', errorType: 'INVALID_LINE', errorCodes: [parsed.code] };
    return { result, reason: parsed.reason };
  }
  let result = blank(record, parsed.id);
  const finish = (outcome: LineOutcome): LineOutcome => {
    outcome.result.latencyMs = Math.round(performance.now() - started);
    return outcome;
  };
  let check = options.verifyFirst && parsed.id !== null;
  let lastError: unknown;
  for (let round = 0; round <= work.maxResubmits; round++) {
    if (check && parsed.id !== null) {
      const stored = await checkStored(work.client, parsed.id);
      result.attempts += stored.attempts;
      if (work.aborted()) return undefined;
      if ('error' in stored) {
        const { reason, ...f } = failure(stored.error);
        // The event may be stored and could not be checked: FAILED, and resume checks again first.
        return finish({ result: { ...result, ...f, outcome: 'FAILED' }, reason: `could not check whether it was stored: ${reason}` });
      }
      if (stored.found) return finish({ result: decided(result, stored.status, stored.body) });
      if (round > 0 && work.allowResubmit('error') === false) break;
    }
    try {
      const res = await work.client.submitEventText(parsed.text, parsed.id ?? undefined);
      result.attempts += res.attempts;
      return finish({ result: decided(result, res.status, res.body) });
    } catch (error) {
      result.attempts += attemptsOf(error);
      if (work.aborted()) return undefined;
      lastError = error;
      if (!outcomeUnknown(error)) break;
      if (parsed.id === null) {
        const f = failure(error);
        result = { ...result, status: f.status, errorType: f.errorType, errorCodes: f.errorCodes, outcome: 'UNKNOWN' };
        return finish({ result, reason: `${f.reason}; the event has no id, so whether it was stored cannot be checked` });
      }
      check = true;
    }
  }
  const { reason, ...f } = failure(lastError);
  result = { ...result, ...f };
  if (lastError instanceof ApiError && REJECTING_STATUSES.has(lastError.status)) return finish({ result: { ...result, outcome: 'REJECTED' }, reason });
  const fatal = lastError instanceof ApiError && (lastError.status === 401 || lastError.status === 403) ? lastError : undefined;
  return finish({ result: { ...result, outcome: 'FAILED' }, reason, ...(fatal ? { fatal } : {}) });
}
