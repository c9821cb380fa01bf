import type { ApiClient } from '../api/api-client.js';
import { ApiError, BadResponseError, failureFields, NetworkError } from '../api/api-error.js';
import { classifyFailure, runStop } from '../failures/failure-kind.js';
import type { RetryKind } from '../api/retry-budget.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import { canBeInPath } from '../contract/paths.js';
import { stateIn } from '../contract/states.js';
import type { Settled } from '../batch/run-pool.js';
import type { InputRecord } from './input-records/records.js';
import type { LineResult } from '../results-file/submit-result.js';

/*
 * One line of a batch, from its text to its result. The rules that keep a batch from losing or
 * duplicating events live here:
 *
 * - A line that is not a JSON object (or is too large) is REJECTED locally; nothing is sent.
 * - A POST whose outcome is unknown (timeout or reset after sending, 502/504, a 2xx with an
 *   unreadable body) may have been stored. It is never sent again blindly: with an id, the
 *   line asks GET /event/{id} (the one read whose 404 the interface documents); an event found
 *   there is the line's result, and only the service's own "not found" (the error shape, not a
 *   route code: the API client decides, error-shape.ts) means "not stored" and lets the POST go
 *   again. An answer that is not the service's (an HTML 404, ROUTE_NOT_FOUND, an unreadable
 *   body) makes the line UNKNOWN, saying why; a check that failed (network, 5xx) leaves it
 *   FAILED, and --resume checks it again before sending. Without an id the line is UNKNOWN.
 * - What is safe to retry (nothing sent, 429, 503) the API client retries itself, paced and
 *   budgeted by the batch.
 * - A refused key, or an answer to the POST that is not the service's (a 405 or 501, HTML, not
 *   the error shape: error-shape.ts), is the line's FAILED result and stops the whole batch.
 */

export interface LineWork {
  client: ApiClient;
  /** Asked before sending a line again after a duplicate check found nothing stored. */
  allowResubmit(kind: RetryKind): number | false;
  /** How many times one line may be sent again after an unknown outcome. */
  maxResubmits: number;
  /** True once the batch was aborted (second Ctrl-C): the line's outcome is left unrecorded. */
  aborted(): boolean;
}

/** A line's result, why it got no decision (for the summary), and whether it stops the batch (a refused key, not the service, the proxy failed). */
export type LineOutcome = Settled<LineResult>;

/** A line ready to send: its text and id. */
export interface LineToSend {
  text: string;
  id: string | null;
  /** What the results line records of the payload for `evaluate` (src/results-file/submit-result.ts). */
  recorded?: Pick<LineResult, 'eventDate' | 'amount' | 'currency'>;
}

const LOCAL_REJECTIONS: Record<NonNullable<InputRecord['problem']>, string> = {
  'too large': 'TOO_LARGE',
  'not JSON': 'NOT_JSON',
};

/**
 * The event id a line carries, read the same way when its result is recorded and when resume
 * compares the input with the results file: a JSON object's string `id`, else null. A line
 * rejected locally still has its id when it can be read (a line over 1 MiB is usually whole
 * JSON); one cut short in memory (a line over 16 MiB) has the id the reader found in what it
 * kept (values only: input-records/too-large.ts), if any; one not a JSON object has none.
 */
export function lineId(record: InputRecord): string | null {
  if (record.truncated) return usableId(record.id);
  let value: unknown;
  try {
    value = JSON.parse(record.text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return usableId((value as { id?: unknown }).id);
}

/** A string id that can name the event in a URL (well-formed Unicode), else null: such a line cannot be checked by id. */
function usableId(id: unknown): string | null {
  return typeof id === 'string' && canBeInPath(id) ? id : null;
}

/** The line as a payload to send, or why it cannot be one. */
function parseRecord(record: InputRecord, maxRecordBytes: number): LineToSend | { code: string; reason: string } {
  if (record.problem) {
    const detail =
      record.problem === 'too large'
        ? ` (${record.bytes} bytes; the limit is ${maxRecordBytes})`
        : record.detail
          ? ` (${record.detail})`
          : '';
    return { code: LOCAL_REJECTIONS[record.problem], reason: `${record.problem}${detail}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(record.text);
  } catch (e) {
    return { code: 'NOT_JSON', reason: `not JSON (${(e as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      code: 'NOT_AN_OBJECT',
      reason: `not a JSON object (${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value})`,
    };
  }
  const payload = value as Record<string, unknown>;
  return { text: record.text, id: usableId(payload.id), recorded: recordedFacts(payload) };
}

/**
 * The payload's eventDate in the shape the service gives it back (UTC, whole seconds), its
 * amount and currency; null for what the payload lacks or the service would refuse.
 */
function recordedFacts(payload: Record<string, unknown>): NonNullable<LineToSend['recorded']> {
  const ms = typeof payload.eventDate === 'string' ? Date.parse(payload.eventDate) : Number.NaN;
  return {
    eventDate: Number.isNaN(ms) ? null : new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    amount: typeof payload.amount === 'number' && Number.isFinite(payload.amount) ? payload.amount : null,
    currency: typeof payload.currency === 'string' ? payload.currency : null,
  };
}

/** The ids of the rules an answer says matched (a POST's ruleMatches, a risk assessment's alerts); null: it names none. */
function matchedRuleIds(body: Record<string, unknown>): string[] | null {
  const matches = Array.isArray(body.ruleMatches) ? body.ruleMatches : Array.isArray(body.alerts) ? body.alerts : null;
  if (matches === null) return null;
  return matches.flatMap((m: unknown) => {
    const id = typeof m === 'object' && m !== null ? (m as { ruleId?: unknown }).ruleId : undefined;
    return typeof id === 'string' ? [id] : [];
  });
}

function blank(record: InputRecord, id: string | null): LineResult {
  return {
    line: record.line,
    id,
    outcome: 'FAILED',
    status: null,
    actionType: null,
    totalRiskScore: null,
    errorType: null,
    errorCodes: [],
    attempts: 0,
    latencyMs: 0,
    column: record.column,
    idAssigned: false,
    alreadyExisted: false,
    stateNow: null,
  };
}

/** amountInBaseCurrency and eventDate from an answer that has them (an event summary). */
type EventFacts = Pick<LineResult, 'amountInBaseCurrency' | 'eventDate'>;
function eventFacts(body: { amountInBaseCurrency?: unknown; eventDate?: unknown }): EventFacts {
  return {
    ...(typeof body.amountInBaseCurrency === 'number' ? { amountInBaseCurrency: body.amountInBaseCurrency } : {}),
    ...(typeof body.eventDate === 'string' ? { eventDate: body.eventDate } : {}),
  };
}

/** actionType and totalRiskScore from a decision or risk assessment, read tolerantly. */
function decided(result: LineResult, status: number, body: unknown): LineResult {
  const b = (typeof body === 'object' && body !== null ? body : {}) as {
    actionType?: unknown;
    totalRiskScore?: unknown;
    amountInBaseCurrency?: unknown;
    eventDate?: unknown;
  };
  // An event sent without an id gets one from the service: record it, or nobody can find the event.
  const b2 = b as { id?: unknown; eventId?: unknown };
  const assigned = typeof b2.id === 'string' ? b2.id : typeof b2.eventId === 'string' ? b2.eventId : null;
  return {
    ...result,
    id: result.id ?? assigned,
    idAssigned: result.id === null && assigned !== null,
    outcome: 'DECIDED',
    status,
    actionType: typeof b.actionType === 'string' ? b.actionType : null,
    totalRiskScore: typeof b.totalRiskScore === 'number' ? b.totalRiskScore : null,
    ruleIds: matchedRuleIds(b as Record<string, unknown>),
    ...eventFacts(b),
  };
}

function fieldsOf(error: unknown): { status: number | null; errorType: string; errorCodes: string[]; reason: string } {
  const { status, errorType, errorCodes, message } = failureFields(error);
  return { status, errorType, errorCodes, reason: message };
}

function attemptsOf(error: unknown): number {
  return error instanceof ApiError || error instanceof NetworkError || error instanceof BadResponseError
    ? error.attempts
    : 1;
}

type Check =
  | { found: true; status: number; body: unknown }
  | { found: false }
  /** No trustworthy answer (not the service's, or unreadable): nobody can tell; the line is UNKNOWN. */
  | { untold: unknown }
  /** The check itself failed (network, 5xx, …): the line is FAILED, and resume checks again first. */
  | { error: unknown };

/**
 * Is the event stored? Asked with GET /event/{id}, whose 404 the interface documents; the API
 * client turns every 404 that is not the service's own into a NotTheServiceError. When it is
 * stored, the risk assessment gives the decision (actionType), best effort: a service without
 * that route still has the line DECIDED, with the summary's score.
 */
async function checkStored(client: ApiClient, id: string): Promise<Check & { attempts: number }> {
  let summary: { status: number; body: unknown; attempts: number };
  try {
    summary = await client.getEvent(id);
  } catch (error) {
    const failure = classifyFailure(error);
    if (failure.kind === 'not-found') return { found: false, attempts: attemptsOf(error) };
    if (failure.unreadableAnswer) return { untold: error, attempts: attemptsOf(error) };
    return { error, attempts: attemptsOf(error) };
  }
  const stored = summary.body as { id?: unknown; totalScore?: unknown } & Parameters<typeof eventFacts>[0];
  if (typeof stored.id === 'string' && stored.id !== id) {
    const error = new BadResponseError(
      `GET /event/{id} for "${terminalSafe(truncate(id, 100))}" answered with another event ("${terminalSafe(truncate(stored.id, 100))}")`,
    );
    return { untold: error, attempts: summary.attempts };
  }
  let attempts = summary.attempts;
  const decision: { actionType?: unknown; totalRiskScore?: unknown; alerts?: unknown } & Parameters<
    typeof eventFacts
  >[0] = {
    totalRiskScore: stored.totalScore,
    amountInBaseCurrency: stored.amountInBaseCurrency,
    eventDate: stored.eventDate,
  };
  try {
    const assessment = await client.getRiskAssessment(id);
    attempts += assessment.attempts;
    const a = assessment.body as { actionType?: unknown; totalRiskScore?: unknown; alerts?: unknown };
    decision.actionType = a.actionType;
    decision.alerts = a.alerts;
    if (typeof a.totalRiskScore === 'number') decision.totalRiskScore = a.totalRiskScore;
  } catch (error) {
    attempts += attemptsOf(error);
  }
  return { found: true, status: summary.status, body: decision, attempts };
}

function rejected(record: InputRecord, why: { code: string; reason: string }): LineOutcome {
  // Only a line the reader refused (too large, …) may still hold a readable id; one that failed to parse has none.
  const id = record.problem ? lineId(record) : null;
  return {
    result: { ...blank(record, id), outcome: 'REJECTED', errorType: 'INVALID_LINE', errorCodes: [why.code] },
    reason: why.reason,
  };
}

/**
 * A line's payload to send, or its outcome when it is rejected without a request (not JSON, not
 * an object, too large). Synchronous, so a batch can count a rejection before taking another line.
 */
export function prepareLine(
  record: InputRecord,
  maxRecordBytes: number,
): { send: LineToSend } | { rejected: LineOutcome } {
  const parsed = parseRecord(record, maxRecordBytes);
  return 'code' in parsed ? { rejected: rejected(record, parsed) } : { send: parsed };
}

/**
 * Screens one line that prepareLine found fit to send. `verifyFirst` (resume: the line may have
 * been sent by the run that died) starts with the duplicate check. `sending` (the pool's) is
 * called before a line without an id is sent, since nothing can check it afterwards: a resume
 * then knows which such lines a run that died may have sent; when it cannot be recorded the line
 * is not sent. Returns undefined when the batch was aborted mid-line, or the line not sent so.
 */
export async function submitLine(
  record: InputRecord,
  parsed: LineToSend,
  work: LineWork,
  options: { verifyFirst: boolean; sending?: () => boolean },
): Promise<LineOutcome | undefined> {
  const started = performance.now();
  let result: LineResult = { ...blank(record, parsed.id), ...parsed.recorded };
  const finish = (outcome: LineOutcome): LineOutcome => {
    outcome.result.latencyMs = Math.round(performance.now() - started);
    return outcome;
  };
  // The run that stopped may have sent this line without recording it: without an id nobody can
  // tell whether it was stored, so it is not sent again (README: such lines are UNKNOWN).
  if (options.verifyFirst && parsed.id === null) {
    return finish({
      result: { ...result, outcome: 'UNKNOWN', errorType: 'UNRECORDED', errorCodes: [] },
      reason:
        'the run that stopped may have sent it without recording the answer, and without an id whether it was stored cannot be checked (not sent again)',
    });
  }
  let check = options.verifyFirst && parsed.id !== null;
  let lastError: unknown;
  for (let round = 0; round <= work.maxResubmits; round++) {
    if (check && parsed.id !== null) {
      const stored = await checkStored(work.client, parsed.id);
      result.attempts += stored.attempts;
      if (work.aborted()) return undefined;
      if ('untold' in stored) {
        const f = fieldsOf(stored.untold);
        result = { ...result, status: f.status, errorType: f.errorType, errorCodes: f.errorCodes, outcome: 'UNKNOWN' };
        return finish({
          result,
          reason: `sent, but whether it was stored cannot be told (not sent again): ${f.reason}`,
        });
      }
      if ('error' in stored) {
        const { reason, ...f } = fieldsOf(stored.error);
        // The event may be stored and could not be checked: FAILED, and resume checks again first.
        return finish({
          result: { ...result, ...f, outcome: 'FAILED' },
          reason: `could not check whether it was stored: ${reason}`,
        });
      }
      if (stored.found) return finish({ result: decided(result, stored.status, stored.body) });
      if (round > 0 && work.allowResubmit('error') === false) break;
    }
    if (parsed.id === null && options.sending?.() === false) return undefined;
    try {
      const res = await work.client.submitEventText(parsed.text, parsed.id ?? undefined);
      result.attempts += res.attempts;
      const settled = decided(result, res.status, res.body);
      // 200, not 201: the service had this event already; its decision is the first one, and
      // its state may have moved since: read it once (a failed read leaves stateNow null).
      if (res.status === 200 && settled.id !== null) {
        settled.alreadyExisted = true;
        try {
          const now = await work.client.getEvent(settled.id);
          settled.attempts += now.attempts;
          settled.stateNow = stateIn(now.body);
          Object.assign(settled, eventFacts(now.body as Record<string, unknown>));
        } catch (error) {
          settled.attempts += attemptsOf(error);
        }
      }
      return finish({ result: settled });
    } catch (error) {
      result.attempts += attemptsOf(error);
      if (work.aborted()) return undefined;
      lastError = error;
      if (!classifyFailure(error).mayHaveApplied) break;
      if (parsed.id === null) {
        const f = fieldsOf(error);
        result = { ...result, status: f.status, errorType: f.errorType, errorCodes: f.errorCodes, outcome: 'UNKNOWN' };
        return finish({
          result,
          reason: `${f.reason}; the event has no id, so whether it was stored cannot be checked`,
        });
      }
      check = true;
    }
  }
  // The POST's answer is not the service's: the URL is wrong, and the batch stops at the first
  // such answer. (An answer to the duplicate check that is not the service's only makes that
  // line UNKNOWN: the POST route answered as the service, a proxy may hide the other routes.)
  const failure = classifyFailure(lastError);
  const { reason, ...f } = fieldsOf(failure.error);
  result = { ...result, ...f };
  if (failure.stopsRun)
    return finish({
      result: { ...result, outcome: 'FAILED' },
      reason,
      fatal: { error: failure.error, stop: runStop(failure) },
    });
  if (failure.kind === 'invalid' || failure.kind === 'refused')
    return finish({ result: { ...result, outcome: 'REJECTED' }, reason });
  return finish({ result: { ...result, outcome: 'FAILED' }, reason });
}
