import type { Fields } from '../render/json-fields.js';
import { logEntry } from '../action-log/log-entries.js';
import { sym } from '../render/symbols.js';
import { failedOutcome, endsSession, isRefusal } from './queue-failures.js';
import {
  isCurrent,
  logEffect,
  note,
  notice,
  open,
  preceded,
  releaseAction,
  releaseEffects,
  withCurrent,
  withFatal,
  type Result,
} from './queue-moves.js';
import { withOutcome } from './queue-outcomes.js';
import { stringField, type CallFailure, type Model } from './queue-model.js';

/*
 * Claims settling: an event in PENDING_REVIEW is claimed (IN_REVIEW) while on screen and given
 * back when left. A claim that lands for an event no longer on screen is given back at once;
 * a decision that waited for the claim goes on with the read before it is sent. Each returns
 * [model, effects], the claim's log line first.
 */

/** The log's name of a claim. */
const claimAction = (id: string) => ({
  eventId: id,
  action: 'claim' as const,
  from: 'PENDING_REVIEW',
  to: 'IN_REVIEW',
});

/** `abandoned` without `id`, and whether it was there. */
function withoutAbandoned(model: Model, id: string): { model: Model; wasAbandoned: boolean } {
  const abandoned = new Map(model.abandoned);
  const wasAbandoned = abandoned.delete(id);
  return { model: { ...model, abandoned }, wasAbandoned };
}

/**
 * The claim of the event on screen has settled (held, lost or failed) into `next`. A decision
 * waiting for it goes on: the event is read again before the decision is sent.
 */
function afterClaimSettled(model: Model, next: Model, id: string): Result {
  if (model.mode.name === 'sending' && model.mode.sending.phase === 'waitClaim') {
    return [
      { ...next, mode: { name: 'sending', sending: { ...model.mode.sending, phase: 'reread' } } },
      [{ type: 'reread', id }],
    ];
  }
  return [next, []];
}

export function onClaimed(model: Model, id: string, summary: Fields | null, requestId: string | null): Result {
  const abandonedAs = model.abandoned.get(id);
  const current = model.current;
  const claimed = logEffect(logEntry(claimAction(id), 'ok', { requestId }));
  if (abandonedAs !== undefined || !current || current.id !== id) {
    return [withoutAbandoned(model, id).model, [claimed, ...releaseEffects(id, abandonedAs ?? 'release')]];
  }
  const updated = summary ?? { ...current.summary, state: 'IN_REVIEW' };
  const next = withCurrent(model, {
    claim: 'held',
    summary: updated,
    seenState: stringField(updated, 'state') ?? 'IN_REVIEW',
    seenComments: stringField(updated, 'comments'),
  });
  return preceded([claimed], afterClaimSettled(model, next, id));
}

/** The state, read just before claiming, was no longer PENDING_REVIEW: the event is judged again on what it is now. */
export function onClaimLost(model: Model, id: string, summary: Fields): Result {
  const { model: without, wasAbandoned } = withoutAbandoned(model, id);
  const current = model.current;
  const state = stringField(summary, 'state');
  // Attempted, not sent: the read before the PATCH found the event in another state.
  const lost = logEffect(
    logEntry(claimAction(id), 'conflict', { message: `the state is now ${state ?? 'none'}: not claimed` }),
  );
  if (wasAbandoned || !current || current.id !== id) return [without, [lost]];
  if (model.mode.name === 'keys' || model.mode.name === 'view' || model.mode.name === 'help') {
    const loads = new Map(model.loads).set(model.index, {
      kind: 'loaded',
      summary,
      assessment: current.assessment,
      assessmentProblem: current.assessmentProblem,
    });
    const [next, more] = open({ ...model, loads, current: null });
    return [
      next.current?.id === id
        ? withCurrent(next, {
            notice: notice('warn', `changed while it opened: PENDING_REVIEW ${sym.arrow} ${state ?? 'none'}`),
          })
        : next,
      [lost, ...more],
    ];
  }
  // The analyst is writing a comment or sending: the re-read before sending shows the change.
  return preceded([lost], afterClaimSettled(model, withCurrent(model, { claim: 'none' }), id));
}

export function onClaimFailed(model: Model, id: string, failure: CallFailure): Result {
  const { model: without, wasAbandoned } = withoutAbandoned(model, id);
  const failed = logEffect(
    logEntry(claimAction(id), failedOutcome(failure), {
      requestId: failure.requestId,
      status: failure.status,
      message: failure.message,
    }),
  );
  // The claim did not happen: nothing of this event to give back.
  if (endsSession(failure))
    return preceded(
      [failed],
      withFatal(isCurrent(model, id) ? withCurrent(without, { claim: 'none' }) : without, failure),
    );
  if (wasAbandoned || !isCurrent(model, id)) return [without, [failed]];
  const next = withCurrent(without, {
    claim: 'none',
    notice: notice('warn', `not claimed (colleagues' queues will not skip it): ${failure.message}`),
  });
  return preceded([failed], afterClaimSettled(model, next, id));
}

export function onReleased(model: Model, id: string, action: 'release' | 'skip', requestId: string | null): Result {
  return [model, [logEffect(logEntry(releaseAction(id, action), 'ok', { requestId }))]];
}

export function onReleaseFailed(model: Model, id: string, action: 'release' | 'skip', failure: CallFailure): Result {
  const failed = logEffect(
    logEntry(releaseAction(id, action), failedOutcome(failure), {
      requestId: failure.requestId,
      status: failure.status,
      message: failure.message,
    }),
  );
  // Refused: the event is in another state now (someone moved it), so it is not held by this
  // session; unless the refusal is of the key, which leaves it IN_REVIEW.
  if (isRefusal(failure) && !endsSession(failure))
    return [note(model, id, `not given back: ${failure.message}`), [failed]];
  return [withOutcome(model, 'stillClaimed', id), [failed]];
}
