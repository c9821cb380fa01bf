import type { Fields } from '../render/json-fields.js';
import { logEntry, sendingEntry } from '../action-log/log-entries.js';
import { changedSince, changeWords, stepsTo } from '../state-changes/change-rules.js';
import { failedOutcome, endsSession, isRefusal } from './queue-failures.js';
import {
  advance,
  andThen,
  finish,
  leave,
  logEffect,
  notice,
  preceded,
  withCurrent,
  withFatal,
  type Result,
} from './queue-moves.js';
import { withOutcome } from './queue-outcomes.js';
import {
  stringField,
  type ActionName,
  type CallFailure,
  type Current,
  type Effect,
  type Group,
  type Model,
  type Sending,
} from './queue-model.js';

/*
 * A decision or a comment on its way to the service: read the event again, send each step
 * (a PATCH, its log line written first), and settle what came back. Returns [model, effects].
 *
 * The rules it keeps: a change is sent only while the state and comments are still those this
 * session saw or set (read again just before); otherwise the analyst sees what changed and
 * chooses again. A retry after a failure the service may have acted on is settled by that read.
 */

const GROUP_OF_STATE: Readonly<Record<string, Group>> = {
  APPROVED: 'approved',
  DECLINED: 'declined',
  ESCALATED: 'escalated',
  FRAUD_CONFIRMED: 'fraudConfirmed',
};

const TARGET: Readonly<Record<Exclude<ActionName, 'fraud'>, string | null>> = {
  approve: 'APPROVED',
  decline: 'DECLINED',
  escalate: 'ESCALATED',
  comment: null,
};

/** The state an action ends in (fraud: FRAUD_CONFIRMED, whatever the steps); null for a comment. */
export function targetOf(action: ActionName): string | null {
  return action === 'fraud' ? 'FRAUD_CONFIRMED' : TARGET[action];
}

/** The states to set, in order, for an action from `state` (the rule is the state changes': stepsTo); `comment` sets none. */
export function stepsFor(action: ActionName, state: string | null): (string | null)[] {
  const target = targetOf(action);
  return target === null ? [null] : stepsTo(target, state);
}

/** The step of a decision being sent, when `id` is the event on screen and one is being sent. */
interface Step {
  current: Current;
  sending: Sending;
  target: string | null;
  last: boolean;
}

function sendingStep(model: Model, id: string): Step | null {
  const current = model.current;
  if (!current || current.id !== id || model.mode.name !== 'sending') return null;
  const sending = model.mode.sending;
  return {
    current,
    sending,
    target: sending.steps[sending.step] ?? null,
    last: sending.step === sending.steps.length - 1,
  };
}

/** What the log says a step is: from the state seen to its target, with the comment on the last step. */
function stepAction(id: string, { current, sending, target, last }: Step) {
  return {
    eventId: id,
    action: sending.action,
    from: current.seenState,
    to: target,
    comments: last ? sending.comments : null,
    reason: sending.reason,
  };
}

/** Starts sending a decision (`reason`: its code, at the head of `comments` already): the event is read again first (once a claim in flight has landed). */
export function startSending(
  model: Model,
  action: ActionName,
  comments: string | null,
  reason: string | null = null,
): Result {
  const current = model.current!;
  const sending: Sending = {
    action,
    steps: stepsFor(action, current.seenState),
    step: 0,
    comments,
    reason,
    phase: current.claim === 'claiming' ? 'waitClaim' : 'reread',
  };
  const next: Model = { ...withCurrent(model, { notice: null }), mode: { name: 'sending', sending } };
  return [next, sending.phase === 'reread' ? [{ type: 'reread', id: current.id }] : []];
}

/** The PATCH of the step being sent, from the state `from`, with its log line (written before it is sent). */
function patchEffect(id: string, sending: Sending, from: string | null): Effect {
  const state = sending.steps[sending.step];
  const last = sending.step === sending.steps.length - 1;
  const change: { state?: string; comments?: string } = {};
  if (state !== null && state !== undefined) change.state = state;
  if (last && sending.comments !== null) change.comments = sending.comments;
  const logged = sendingEntry({
    eventId: id,
    action: sending.action,
    from,
    to: state ?? null,
    comments: last ? sending.comments : null,
    reason: sending.reason,
  });
  return { type: 'patch', id, change, logged };
}

/** What a summary says changed against what this session saw: null when nothing did (change-rules.ts). */
function changeSeen(current: Current, summary: Fields): { state: string | null; comments: string | null } | null {
  return changedSince(
    { state: current.seenState, comments: current.seenComments },
    { state: stringField(summary, 'state'), comments: stringField(summary, 'comments') },
  );
}

export function onReread(model: Model, id: string, summary: Fields): Result {
  const step = sendingStep(model, id);
  if (!step || step.sending.phase !== 'reread') return [model, []];
  const { current, sending, target, last } = step;
  const freshState = stringField(summary, 'state');
  const freshComments = stringField(summary, 'comments');
  const expectedComments = last && sending.comments !== null ? sending.comments : current.seenComments;
  // A retry after a failure the service may have acted on: the change is there already.
  if (
    target !== null &&
    freshState === target &&
    freshState !== current.seenState &&
    freshComments === expectedComments
  ) {
    return onPatched(model, id, summary, null, 'confirmed by reading the event again after the failure');
  }
  const changed = changeSeen(current, summary);
  if (changed === null) {
    return [
      { ...model, mode: { name: 'sending', sending: { ...sending, phase: 'patch' } } },
      [patchEffect(id, sending, current.seenState)],
    ];
  }
  const words = changeWords({ state: current.seenState, comments: current.seenComments }, changed);
  const what = words.join('; ');
  const conflict = logEffect(
    logEntry(
      {
        eventId: id,
        action: sending.action,
        from: current.seenState,
        to: target,
        comments: sending.comments,
        reason: sending.reason,
      },
      'conflict',
      { message: `changed since it was opened (${what}): not sent` },
    ),
  );
  // Someone else's decision (or claim): a decision that changes it is asked about first.
  const moved = changed.state !== current.seenState;
  const decidedByThem = moved && changed.state !== null && changed.state !== 'PENDING_REVIEW';
  const theirs = decidedByThem ? changed.state : (current.othersState ?? null);
  // Each field that changed, in words, on a line of its own so that none is cut: a note alone is
  // `comment (none) → "…"`, never `IN_REVIEW → IN_REVIEW`.
  const lines = [
    'not sent: changed by someone else since you opened it:',
    ...words.map((w) => `  ${w}`),
    theirs !== null ? `choose again (a decision that changes their ${theirs} asks first)` : 'choose again',
  ];
  const next = withCurrent(model, {
    othersState: theirs,
    summary,
    seenState: changed.state,
    seenComments: changed.comments,
    // The service holds it in another state now: no claim of ours to give back.
    claim: changed.state === 'IN_REVIEW' && current.claim === 'held' ? 'held' : 'none',
    notice: notice('warn', ...lines),
  });
  return [{ ...next, mode: { name: 'keys' } }, [conflict]];
}

export function onPatched(
  model: Model,
  id: string,
  summary: Fields | null,
  requestId: string | null,
  message?: string,
  at?: number,
): Result {
  const step = sendingStep(model, id);
  if (!step) return [model, []];
  const { current, sending, target, last } = step;
  const comments = last ? sending.comments : null;
  const done = logEffect(logEntry(stepAction(id, step), 'ok', { requestId, message }));
  const seenState = target ?? current.seenState;
  const seenComments = comments ?? current.seenComments;
  const updated: Fields = summary ?? { ...current.summary, state: seenState, comments: seenComments };
  const decidedAs = target !== null ? (GROUP_OF_STATE[target] ?? current.decidedAs) : current.decidedAs;
  let next = withCurrent(model, {
    summary: updated,
    seenState: stringField(updated, 'state') ?? seenState,
    seenComments: stringField(updated, 'comments') ?? seenComments,
    claim: target !== null && target !== 'IN_REVIEW' ? 'none' : current.claim,
    decidedAs,
    othersState: target !== null ? null : (current.othersState ?? null),
  });
  if (decidedAs !== current.decidedAs && at !== undefined)
    next = { ...next, decidedAt: new Map(next.decidedAt).set(id, at) };
  if (!last) {
    const following: Sending = { ...sending, step: sending.step + 1, phase: 'patch' };
    return [
      { ...next, mode: { name: 'sending', sending: following } },
      [done, patchEffect(id, following, next.current?.seenState ?? null)],
    ];
  }
  if (sending.action === 'comment') {
    next = withOutcome(next, 'commented', id);
    if (next.quitting !== 'no') return preceded([done], andThen(leave(next, 'givenBack', 'release'), finish));
    return [{ ...withCurrent(next, { notice: notice('info', 'comment recorded') }), mode: { name: 'keys' } }, [done]];
  }
  // Decided: leave() lists it under its decision.
  return preceded(
    [done],
    andThen(leave(next, 'givenBack', 'release'), (left) => advance({ ...left, current: null, notes: [] })),
  );
}

/** The log line of a step of a decision that was not sent (refused, failed, or not read again first). */
function failedStepLog(id: string, step: Step, failure: CallFailure, message: string): Effect {
  return logEffect(
    logEntry(stepAction(id, step), failedOutcome(failure), {
      requestId: failure.requestId,
      status: failure.status,
      message,
    }),
  );
}

/** Not sent (the read failed, or the PATCH did not go through): the analyst can retry; quitting, it is left as not sent. */
function sendFailed(next: Model): Result {
  if (next.quitting !== 'no') return andThen(leave(next, 'notSent', 'release'), finish);
  return [next, []];
}

export function onPatchFailed(model: Model, id: string, failure: CallFailure): Result {
  const step = sendingStep(model, id);
  if (!step) return [model, []];
  const { current, sending, target } = step;
  const refused = isRefusal(failure);
  const failed = failedStepLog(id, step, failure, failure.message);
  if (endsSession(failure)) return preceded([failed], withFatal(model, failure));
  const partial = sending.step > 0 ? `${current.seenState ?? ''} was set, then ` : '';
  if (refused) {
    const next = withCurrent(model, {
      notice: notice(
        'error',
        `not sent: ${partial}the service refused ${target ?? 'the comment'}`,
        failure.message,
        'choose again',
      ),
    });
    if (next.quitting !== 'no') return preceded([failed], andThen(leave(next, 'notSent', 'release'), finish));
    return [{ ...next, mode: { name: 'keys' } }, [failed]];
  }
  return preceded(
    [failed],
    sendFailed({
      ...model,
      mode: { name: 'sendFailed', sending: { ...sending, phase: 'reread' }, message: failure.message },
    }),
  );
}

export function onRereadFailed(model: Model, id: string, failure: CallFailure): Result {
  const step = sendingStep(model, id);
  if (!step) return [model, []];
  const message = `not sent: could not read the event again first: ${failure.message}`;
  // The decision was attempted and not sent: the log says so, whatever comes next.
  const failed = failedStepLog(id, step, failure, message);
  if (endsSession(failure)) return preceded([failed], withFatal(model, failure));
  return preceded([failed], sendFailed({ ...model, mode: { name: 'sendFailed', sending: step.sending, message } }));
}
