import type { ApiClient } from '../api/api-client.js';
import { ApiError, asNotTheService, BadResponseError, failureFields, NetworkError, ProxyError } from '../api/api-error.js';
import type { RetryKind } from '../api/retry-budget.js';
import type { Settled } from '../batch/run-pool.js';
import { UsageError } from '../errors/cli-error.js';
import type { IdListEntry } from '../id-lists/id-list.js';
import { terminalSafe } from '../render/terminal-text.js';
import type { LogEntry } from '../action-log/action-log.js';
import { commentToSend, decideChange, replacesComment, seenIn, type ChangeGuard, type Seen, type SkipReason } from './change-rules.js';
import { HAS_COMMENT, type ChangeResult } from './change-result.js';
import { commentTooLong, MAX_COMMENT_LENGTH } from '../contract/limits.js';
import { sym } from '../render/symbols.js';

/*
 * One id of `set-state` for many events, from its entry to its result. The rules that keep a
 * bulk change from overwriting what it did not see, or changing anything twice:
 *
 * - Read before write: GET the event, decide (change-rules.ts), then PATCH. An event already in
 *   the target state, outside --if-state, or whose state does not allow the change, is SKIPPED.
 * - After a plan that was confirmed, an event whose state changed since the plan is sent only
 *   while the guard still holds; otherwise it is a CONFLICT, naming both states.
 * - A PATCH whose outcome is unknown (timeout, dropped connection, 502/504, an unreadable 2xx)
 *   is settled by reading the event: the target state there is the change made; the state as
 *   before lets the PATCH go again (within the retry budget); anything else is a CONFLICT. The
 *   API client is told not to resend such a PATCH by itself.
 * - With --log, every PATCH is logged before it is sent (`sending`, src/action-log/) and its
 *   outcome after: a PATCH whose line cannot be written is not sent (the id is FAILED, not
 *   sent, and the run stops: run-bulk-change.ts).
 * - A refused key, an answer that is not the service's, or a proxy that fails stops the whole
 *   run (src/batch/).
 */

export interface BulkChange {
  /** The state asked for, as it is sent. */
  target: string;
  /** The comment recorded with the last PATCH; null for none (an empty comment is never sent). */
  comments: string | null;
  /** An event with a comment of its own: keep it and add this one after it, replace it, or (null) skip the event. */
  commentMode: 'append' | 'replace' | null;
  guard: ChangeGuard;
}

/** An id of the input and its place in it (line: the n-th id, what --resume keys on). */
export interface IdItem {
  line: number;
  column: 1;
  entry: IdListEntry;
}

/** What the plan read of an id: the state, and whether the change was planned for it. */
export interface PlannedItem {
  state: string | null;
  send: boolean;
}

export interface ChangeWork {
  client: ApiClient;
  /** Asked before a PATCH is sent again after reading showed it did not land. */
  allowResend(kind: RetryKind): number | false;
  /** How many times one PATCH may be sent again after an unknown outcome. */
  maxResends: number;
  /** True once the run was aborted (second Ctrl-C): the id is left unrecorded. */
  aborted(): boolean;
  /** The plan the person confirmed, by item; null without one (--yes). */
  planned: ReadonlyMap<number, PlannedItem> | null;
  /**
   * Appends a --log line (the review queue's format); false when it could not be written (the
   * run then stops). A `sending` line is written before each PATCH, which is not sent without it.
   */
  log(entry: LogEntry): Promise<boolean>;
}

/** The review queue's action for a target state, so that both write the same --log lines. */
const ACTIONS: Readonly<Record<string, LogEntry['action']>> = { APPROVED: 'approve', DECLINED: 'decline', ESCALATED: 'escalate', FRAUD_CONFIRMED: 'fraud' };

const show = (state: string | null) => (state === null ? 'no state' : terminalSafe(state));

/** Why a change passes an event over, in words. */
export function skipWords(why: SkipReason, state: string | null, target: string): string {
  switch (why) {
    case 'already':
      return `already ${show(state)}`;
    case 'not-listed':
      return `${show(state)}, not one of --if-state`;
    case 'not-allowed':
      return `${show(state)} ${sym.arrow} ${terminalSafe(target)} is not allowed (--force-state sends it)`;
    case 'unknown-state':
      return state === null ? 'the event has no state' : `${show(state)} is not a state this build knows (--force-state sends it)`;
  }
}

function blank(item: IdItem, change: BulkChange): ChangeResult {
  return { id: item.entry.id, from: null, to: change.target, outcome: 'FAILED', reason: null, status: null, errorType: null, errorCodes: [], requestId: null, item: item.line, where: item.entry.where };
}

/** The result of a call that failed, by what the failure means for the id (and for the run). */
function failed(result: ChangeResult, error: unknown, reading: boolean, prefix = ''): Settled<ChangeResult> {
  if (error instanceof UsageError) return { result: { ...result, outcome: 'INVALID', reason: error.message } };
  const foreign = asNotTheService(error);
  const { message, ...fields } = failureFields(foreign ?? error);
  const base = { ...result, ...fields, reason: `${prefix}${message}` };
  if (foreign) return { result: { ...base, outcome: 'FAILED' }, fatal: { error: foreign, stop: 'not-the-service' } };
  if (error instanceof ProxyError) return { result: { ...base, outcome: 'FAILED' }, fatal: { error, stop: 'proxy' } };
  if (error instanceof ApiError) {
    if (error.status === 401 || error.status === 403) return { result: { ...base, outcome: 'FAILED' }, fatal: { error, stop: 'auth' } };
    if (reading && error.status === 404) return { result: { ...base, outcome: 'NOT_FOUND', reason: null } };
    if (reading && (error.status === 400 || error.status === 422)) return { result: { ...base, outcome: 'INVALID' } };
    if (error.status >= 400 && error.status < 500 && error.status !== 429) return { result: { ...base, outcome: 'REFUSED' } };
  }
  return { result: { ...base, outcome: 'FAILED' } };
}

/** True when the PATCH may have been applied although no usable answer came. */
function outcomeUnknown(error: unknown): boolean {
  if (error instanceof ApiError) return error.status === 502 || error.status === 504;
  if (error instanceof NetworkError) return error.maybeProcessed && error.failure !== 'budget';
  return error instanceof BadResponseError && asNotTheService(error) === undefined;
}

type Read = Seen;
const readOf = seenIn;

/**
 * An id whose input line names none (a results line without an id): INVALID at once, without a
 * request. Synchronous, so the pool records it before taking the next id.
 */
export function unnamed(item: IdItem, change: BulkChange): Settled<ChangeResult> {
  const code = item.entry.problemCode;
  return { result: { ...blank(item, change), outcome: 'INVALID', reason: item.entry.problem ?? 'no id', errorType: 'INVALID_LINE', errorCodes: code ? [code] : [] } };
}

/**
 * Reads the event and decides. `plan`: only say what would be done (PLANNED, or why not);
 * `change`: do it. Undefined when the run was aborted mid-id.
 */
export async function changeOne(item: IdItem, change: BulkChange, work: ChangeWork, mode: 'plan' | 'change'): Promise<Settled<ChangeResult> | undefined> {
  const id = item.entry.id!;
  let result = blank(item, change);
  let read: Read;
  let readStatus: number;
  try {
    const reply = await work.client.getEvent(id);
    read = readOf(reply.body);
    readStatus = reply.status;
  } catch (error) {
    if (work.aborted()) return undefined;
    return failed(result, error, true);
  }
  // Every line carries the status that settled it: the read's for a line settled by it (SKIPPED,
  // PLANNED, CONFLICT), the PATCH's for a change.
  result = { ...result, from: read.state, status: readStatus };
  const decision = decideChange(read.state, change.target, change.guard);
  const plan = mode === 'change' ? work.planned?.get(item.line) : undefined;
  if (plan && plan.state !== read.state && (plan.send ? !decision.send && decision.why !== 'already' : decision.send)) {
    const reason = `${show(plan.state)} at the plan, ${show(read.state)} now: ${plan.send ? 'the change no longer applies' : 'it was not in the plan'}, not sent`;
    await work.log({ eventId: id, action: ACTIONS[change.target] ?? 'set-state', from: read.state, to: change.target, comments: change.comments, requestId: null, outcome: 'conflict', status: null, message: reason });
    return { result: { ...result, outcome: 'CONFLICT', reason } };
  }
  if (!decision.send) return { result: { ...result, outcome: 'SKIPPED', reason: skipWords(decision.why, read.state, change.target) } };
  if (plan && !plan.send) return { result: { ...result, outcome: 'SKIPPED', reason: 'not in the plan' } };
  // The service keeps one comment: a colleague's note is never replaced without being asked to.
  let comments = change.comments;
  if (comments !== null && replacesComment(read.comments, comments)) {
    if (change.commentMode === null) return { result: { ...result, outcome: 'SKIPPED', reason: HAS_COMMENT } };
    const sent = change.commentMode === 'append' ? commentToSend(read.comments, comments, true) : comments;
    comments = sent;
    // Counted as the service counts (contract/limits.ts), as one event's set-state does.
    if (commentTooLong(sent) !== null) return { result: { ...result, outcome: 'SKIPPED', reason: `its comment and this one together are over ${MAX_COMMENT_LENGTH.toLocaleString('en-US')} characters: not sent` } };
  }
  if (mode === 'plan') return { result: { ...result, outcome: 'PLANNED' } };

  let state = read.state;
  for (const [i, to] of decision.steps.entries()) {
    const last = i === decision.steps.length - 1;
    const body = { state: to, ...(last && comments !== null ? { comments } : {}) };
    const entry = { eventId: id, action: ACTIONS[change.target] ?? 'set-state', from: state, to, comments: body.comments ?? null } as const;
    const partial = i > 0 ? `${decision.steps.slice(0, i).map(terminalSafe).join(', then ')} was set, then: ` : '';
    for (let resends = 0; ; resends++) {
      if (!(await work.log({ ...entry, requestId: null, outcome: 'sending', status: null }))) {
        return { result: { ...result, outcome: 'FAILED', reason: `${partial}not sent: the change could not be written to the log first` } };
      }
      try {
        const reply = await work.client.changeState(id, body, { resendWhenUnsure: false });
        result.requestId = reply.requestId;
        result.status = reply.status;
        await work.log({ ...entry, requestId: reply.requestId, outcome: 'ok', status: null });
        break;
      } catch (error) {
        if (work.aborted()) return undefined;
        const settled = failed(result, error, false, partial);
        const refused = settled.result.outcome === 'REFUSED';
        await work.log({ ...entry, requestId: settled.result.requestId, outcome: refused ? 'refused' : 'failed', status: settled.result.status, message: settled.result.reason ?? '' });
        if (!outcomeUnknown(error)) return settled;
        // Whether it landed is told by the event itself, never by sending again blindly.
        let now: Read;
        try {
          now = readOf((await work.client.getEvent(id)).body);
        } catch (readError) {
          if (work.aborted()) return undefined;
          return failed(result, readError, false, `${partial}the change to ${terminalSafe(to)} got no answer, and reading the event failed too: `);
        }
        if (now.state === to) {
          await work.log({ ...entry, requestId: null, outcome: 'ok', status: null, message: 'confirmed by reading the event again after the failure' });
          break;
        }
        if (now.state !== state) {
          const reason = `${partial}${show(state)} before the change to ${terminalSafe(to)}, ${show(now.state)} now (changed by someone else): not sent again`;
          return { result: { ...result, from: read.state, outcome: 'CONFLICT', reason } };
        }
        if (resends >= work.maxResends || work.allowResend('error') === false) return settled;
      }
    }
    state = to;
  }
  return { result: { ...result, outcome: 'CHANGED' } };
}
