import type { ApiClient } from '../api/api-client.js';
import { failureFields } from '../api/api-error.js';
import { classifyFailure, runStop, saidNo, type Failure, type FailureKind } from '../failures/failure-kind.js';
import type { RetryKind } from '../api/retry-budget.js';
import type { Settled } from '../batch/run-pool.js';
import { UsageError } from '../errors/cli-error.js';
import type { IdListEntry } from '../id-lists/id-list.js';
import { terminalSafe } from '../render/terminal-text.js';
import type { LogEntry } from '../action-log/action-log.js';
import {
  commentToSend,
  decideChange,
  replacesComment,
  seenIn,
  type ChangeGuard,
  type Seen,
  type SkipReason,
} from './change-rules.js';
import type { ChangeResult } from '../results-file/change-result.js';
import { HAS_COMMENT } from './change-lines.js';
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
  /** The reason code (`--reason`, already at the head of `comments`), logged in its own field; null for none. */
  reason: string | null;
  /** --include-claimed: change events IN_REVIEW (held in a review session) too. */
  includeClaimed?: boolean;
  /** Who holds an event IN_REVIEW and since when, in words (claim-holders.ts: from --log when given). */
  claimWords?: (id: string) => Promise<string>;
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
const ACTIONS: Readonly<Record<string, LogEntry['action']>> = {
  APPROVED: 'approve',
  DECLINED: 'decline',
  ESCALATED: 'escalate',
  FRAUD_CONFIRMED: 'fraud',
};

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
      return state === null
        ? 'the event has no state'
        : `${show(state)} is not a state this build knows (--force-state sends it)`;
  }
}

function blank(item: IdItem, change: BulkChange): ChangeResult {
  return {
    id: item.entry.id,
    from: null,
    to: change.target,
    outcome: 'FAILED',
    reason: null,
    status: null,
    errorType: null,
    errorCodes: [],
    requestId: null,
    item: item.line,
    where: item.entry.where,
    reasonCode: change.reason,
  };
}

/** The outcome of a failed call, by its kind (src/failures/): a read decides the id; a PATCH the service said no to is REFUSED. */
const READ_OUTCOMES: Partial<Record<FailureKind, ChangeResult['outcome']>> = {
  'not-found': 'NOT_FOUND',
  invalid: 'INVALID',
  refused: 'REFUSED',
};
const PATCH_OUTCOMES: Partial<Record<FailureKind, ChangeResult['outcome']>> = {
  'not-found': 'REFUSED',
  invalid: 'REFUSED',
  refused: 'REFUSED',
};

/** The result of a call that failed, by what the failure means for the id (and for the run). */
function failed(
  result: ChangeResult,
  error: unknown,
  reading: boolean,
  prefix = '',
  failure: Failure = classifyFailure(error),
): Settled<ChangeResult> {
  if (error instanceof UsageError) return { result: { ...result, outcome: 'INVALID', reason: error.message } };
  const { message, ...fields } = failureFields(failure.error);
  const base = { ...result, ...fields, reason: `${prefix}${message}` };
  if (failure.stopsRun)
    return { result: { ...base, outcome: 'FAILED' }, fatal: { error: failure.error, stop: runStop(failure) } };
  const outcome = (reading ? READ_OUTCOMES : PATCH_OUTCOMES)[failure.kind] ?? 'FAILED';
  return { result: { ...base, outcome, ...(outcome === 'NOT_FOUND' ? { reason: null } : {}) } };
}

type Read = Seen;
const readOf = seenIn;

/**
 * An id whose input line names none (a results line without an id): INVALID at once, without a
 * request. Synchronous, so the pool records it before taking the next id.
 */
export function unnamed(item: IdItem, change: BulkChange): Settled<ChangeResult> {
  const code = item.entry.problemCode;
  return {
    result: {
      ...blank(item, change),
      outcome: 'INVALID',
      reason: item.entry.problem ?? 'no id',
      errorType: 'INVALID_LINE',
      errorCodes: code ? [code] : [],
    },
  };
}

/** What becomes of an id when it is settled early, or undefined when the run was aborted mid-id. */
type Early = Settled<ChangeResult> | undefined;

/**
 * Reads the event and decides. `plan`: only say what would be done (PLANNED, or why not);
 * `change`: do it. Undefined when the run was aborted mid-id.
 */
export async function changeOne(
  item: IdItem,
  change: BulkChange,
  work: ChangeWork,
  mode: 'plan' | 'change',
): Promise<Settled<ChangeResult> | undefined> {
  const id = item.entry.id!;
  const first = await readFirst(id, blank(item, change), work);
  if (!('read' in first)) return first.settled;
  const { read } = first;
  // Every line carries the status that settled it: the read's for a line settled by it (SKIPPED,
  // PLANNED, CONFLICT), the PATCH's for a change.
  const result: ChangeResult = { ...first.result, from: read.state, status: first.status };
  const decision = decideChange(read.state, change.target, change.guard);
  const plan = mode === 'change' ? work.planned?.get(item.line) : undefined;
  const departed = await departedFromPlan(id, result, read, decision, plan, change, work);
  if (departed) return departed;
  if (!decision.send)
    return { result: { ...result, outcome: 'SKIPPED', reason: skipWords(decision.why, read.state, change.target) } };
  // A review session holds it: changed from under the analyst only when asked to (--include-claimed).
  if (read.state === 'IN_REVIEW' && change.target !== 'IN_REVIEW' && change.includeClaimed !== true) {
    const held = change.claimWords ? await change.claimWords(id) : 'claimed for review by another session';
    const reason = `IN_REVIEW, ${held}: not changed (--include-claimed changes it)`;
    return { result: { ...result, outcome: 'CLAIMED', reason } };
  }
  if (plan && !plan.send) return { result: { ...result, outcome: 'SKIPPED', reason: 'not in the plan' } };
  const comments = commentFor(read, change);
  if (typeof comments === 'object' && comments !== null) return { result: { ...result, ...comments } };
  if (mode === 'plan') return { result: { ...result, outcome: 'PLANNED' } };
  return sendSteps(id, result, read.state, decision.steps, comments, change, work);
}

/** The read before any change: the event as it is, or the id settled (not found, a failure, aborted). */
async function readFirst(
  id: string,
  result: ChangeResult,
  work: ChangeWork,
): Promise<{ read: Read; status: number; result: ChangeResult } | { settled: Early }> {
  try {
    const reply = await work.client.getEvent(id);
    return { read: readOf(reply.body), status: reply.status, result };
  } catch (error) {
    return { settled: work.aborted() ? undefined : failed(result, error, true) };
  }
}

/**
 * After a confirmed plan: a CONFLICT when the event's state changed since the plan so that the
 * change no longer applies, or now applies where it was not planned (logged, not sent); else null.
 */
async function departedFromPlan(
  id: string,
  result: ChangeResult,
  read: Read,
  decision: ReturnType<typeof decideChange>,
  plan: PlannedItem | undefined,
  change: BulkChange,
  work: ChangeWork,
): Promise<Settled<ChangeResult> | null> {
  if (!plan || plan.state === read.state || !(plan.send ? !decision.send && decision.why !== 'already' : decision.send))
    return null;
  const reason = `${show(plan.state)} at the plan, ${show(read.state)} now: ${plan.send ? 'the change no longer applies' : 'it was not in the plan'}, not sent`;
  await work.log({
    eventId: id,
    action: ACTIONS[change.target] ?? 'set-state',
    from: read.state,
    to: change.target,
    comments: change.comments,
    reason: change.reason,
    requestId: null,
    outcome: 'conflict',
    status: null,
    message: reason,
  });
  return { result: { ...result, outcome: 'CONFLICT', reason } };
}

/**
 * The comment to send (null: none), or why the event is skipped: the service keeps one comment,
 * and a colleague's note is never replaced without being asked to.
 */
function commentFor(read: Read, change: BulkChange): string | null | { outcome: 'SKIPPED'; reason: string } {
  const comments = change.comments;
  if (comments === null || !replacesComment(read.comments, comments)) return comments;
  if (change.commentMode === null) return { outcome: 'SKIPPED', reason: HAS_COMMENT };
  const sent = change.commentMode === 'append' ? commentToSend(read.comments, comments, true) : comments;
  // Counted as the service counts (contract/limits.ts), as one event's set-state does.
  if (commentTooLong(sent) !== null)
    return {
      outcome: 'SKIPPED',
      reason: `its comment and this one together are over ${MAX_COMMENT_LENGTH.toLocaleString('en-US')} characters: not sent`,
    };
  return sent;
}

/** The PATCHes of the decision, one after the other (the comment with the last); CHANGED when all landed. */
async function sendSteps(
  id: string,
  result: ChangeResult,
  from: string | null,
  steps: readonly string[],
  comments: string | null,
  change: BulkChange,
  work: ChangeWork,
): Promise<Early> {
  let state = from;
  for (const [i, to] of steps.entries()) {
    const body = { state: to, ...(i === steps.length - 1 && comments !== null ? { comments } : {}) };
    const entry: StepEntry = {
      eventId: id,
      action: ACTIONS[change.target] ?? 'set-state',
      from: state,
      to,
      comments: body.comments ?? null,
      reason: change.reason,
    };
    const partial = i > 0 ? `${steps.slice(0, i).map(terminalSafe).join(', then ')} was set, then: ` : '';
    const sent = await sendStep(id, result, body, entry, partial, work);
    if (sent !== 'landed') return sent;
    state = to;
  }
  return { result: { ...result, outcome: 'CHANGED' } };
}

type StepEntry = Pick<LogEntry, 'eventId' | 'action' | 'from' | 'comments' | 'reason'> & { to: string };

/**
 * One PATCH, logged before it is sent: 'landed' when it did (its answer, or the event read back
 * after an unknown outcome), else the id's result. An outcome the failure leaves unknown
 * (src/failures/: may have been applied) is settled by reading the event, never by sending
 * blindly: sent again only when the event is as before, within the budget.
 */
async function sendStep(
  id: string,
  result: ChangeResult,
  body: { state: string; comments?: string },
  entry: StepEntry,
  partial: string,
  work: ChangeWork,
): Promise<'landed' | Early> {
  for (let resends = 0; ; resends++) {
    if (!(await work.log({ ...entry, requestId: null, outcome: 'sending', status: null }))) {
      return {
        result: {
          ...result,
          outcome: 'FAILED',
          reason: `${partial}not sent: the change could not be written to the log first`,
        },
      };
    }
    try {
      const reply = await work.client.changeState(id, body, { resendWhenUnsure: false });
      result.requestId = reply.requestId;
      result.status = reply.status;
      await work.log({ ...entry, requestId: reply.requestId, outcome: 'ok', status: null });
      return 'landed';
    } catch (error) {
      if (work.aborted()) return undefined;
      const failure = classifyFailure(error);
      const settled = failed(result, error, false, partial, failure);
      await work.log({
        ...entry,
        requestId: settled.result.requestId,
        outcome: saidNo(failure.kind) ? 'refused' : 'failed',
        status: settled.result.status,
        message: settled.result.reason ?? '',
      });
      if (!failure.mayHaveApplied) return settled;
      const now = await readBack(id, result, entry, partial, work);
      if (now !== 'as-before') return now;
      if (resends >= work.maxResends || work.allowResend('error') === false) return settled;
    }
  }
}

/** After an unknown outcome: the event read again tells whether the change landed, was not made ('as-before'), or met another change (CONFLICT). */
async function readBack(
  id: string,
  result: ChangeResult,
  entry: StepEntry,
  partial: string,
  work: ChangeWork,
): Promise<'landed' | 'as-before' | Early> {
  let now: Read;
  try {
    now = readOf((await work.client.getEvent(id)).body);
  } catch (readError) {
    if (work.aborted()) return undefined;
    return failed(
      result,
      readError,
      false,
      `${partial}the change to ${terminalSafe(entry.to)} got no answer, and reading the event failed too: `,
    );
  }
  if (now.state === entry.to) {
    await work.log({
      ...entry,
      requestId: null,
      outcome: 'ok',
      status: null,
      message: 'confirmed by reading the event again after the failure',
    });
    return 'landed';
  }
  if (now.state === entry.from) return 'as-before';
  const reason = `${partial}${show(entry.from)} before the change to ${terminalSafe(entry.to)}, ${show(now.state)} now (changed by someone else): not sent again`;
  return { result: { ...result, outcome: 'CONFLICT', reason } };
}
