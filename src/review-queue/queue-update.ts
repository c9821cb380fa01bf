import { ExitCode } from '../errors/cli-error.js';
import { onClaimed, onClaimFailed, onClaimLost, onReleased, onReleaseFailed } from './queue-claims.js';
import { onKey, onPaste, tooSmall } from './queue-keys.js';
import { advance, isCurrent, open, quit, withCurrent, type Result } from './queue-moves.js';
import { onPatched, onPatchFailed, onReread, onRereadFailed } from './queue-sending.js';
import { viewPageSize } from './screen-layout.js';
import type { Mode, Model, Msg } from './queue-model.js';

export { PREFETCH_AHEAD } from './queue-moves.js';
export { stepsFor } from './queue-sending.js';

/*
 * update(model, msg) → [model, effects]: everything the queue decides, without a terminal or a
 * network; pure (the same model and message give the same answer, nothing is changed in place).
 * Effects are run by the loop (queue-loop.ts); their results come back as messages. Each message
 * goes to the part that decides it: moving through the queue (queue-moves.ts), keys
 * (queue-keys.ts), sending a decision (queue-sending.ts), claims (queue-claims.ts); what became
 * of each id is its outcome (queue-outcomes.ts), from which the summary is derived.
 */

/** The mode with its page of tables measured again for the screen (a resize). */
function remeasured(model: Model, mode: Mode): Mode {
  if (mode.name === 'view') return { ...mode, page: viewPageSize(model, model.screen.width, model.screen.height) };
  if (mode.name === 'help') return { ...mode, back: remeasured(model, mode.back) };
  return mode;
}

/**
 * The log could not take a line: the session ends (src/action-log/), as on q, but with the
 * problem as its end. A claim or a change whose line failed was not sent: a decision waiting on
 * it is not sent either. A change being sent is let finish, then claims are given back.
 */
function onLogFailed(
  model: Model,
  message: string,
  notSent: { id: string; what: 'claim' | 'patch' } | undefined,
  hint?: string,
): Result {
  let next: Model = {
    ...model,
    logProblem: model.logProblem ?? message,
    fatal: model.fatal ?? { message, exitCode: ExitCode.FAILURE, ...(hint !== undefined ? { hint } : {}) },
  };
  if (notSent) {
    const abandoned = new Map(next.abandoned);
    abandoned.delete(notSent.id);
    next = { ...next, abandoned };
    if (notSent.what === 'claim' && isCurrent(next, notSent.id)) next = withCurrent(next, { claim: 'none' });
    const mode = next.mode;
    const waiting =
      mode.name === 'sending' &&
      isCurrent(next, notSent.id) &&
      (notSent.what === 'patch' || mode.sending.phase === 'waitClaim');
    if (waiting)
      next = {
        ...next,
        mode: {
          name: 'sendFailed',
          sending: mode.sending,
          message: 'not sent: it could not be written to the log first',
        },
      };
  }
  return quit(next, 'quit');
}

export function update(model: Model, msg: Msg): Result {
  switch (msg.type) {
    case 'start':
      return advance(model);
    case 'resize': {
      const resized: Model = { ...model, screen: { width: msg.width, height: msg.height } };
      const next: Model = { ...resized, mode: remeasured(resized, resized.mode) };
      // The count is of keys not taken on this small window: it starts again once the window fits.
      return [tooSmall(next) ? next : { ...next, keysNotTaken: 0 }, []];
    }
    case 'key':
      return onKey(model, msg.text, msg.key, msg.shown);
    case 'paste':
      return onPaste(model, msg.text, msg.shown);
    case 'interrupt':
      return quit(model, 'interrupt');
    case 'viewReady':
      if (model.mode.name !== 'view' || !isCurrent(model, msg.id)) return [model, []];
      return [{ ...model, mode: { ...model.mode, lines: msg.lines } }, []];
    case 'loaded':
    case 'loadFailed': {
      if (model.mode.name === 'done' || msg.index < model.index) return [model, []];
      const loads = new Map(model.loads);
      loads.set(
        msg.index,
        msg.type === 'loaded'
          ? {
              kind: 'loaded',
              summary: msg.summary,
              assessment: msg.assessment,
              assessmentProblem: msg.assessmentProblem,
            }
          : { kind: 'failed', failure: msg.failure },
      );
      const next = { ...model, loads };
      if (msg.index === model.index && model.mode.name === 'loading') return open(next);
      return [next, []];
    }
    case 'claimed':
      return onClaimed(model, msg.id, msg.summary, msg.requestId);
    case 'claimLost':
      return onClaimLost(model, msg.id, msg.summary);
    case 'claimFailed':
      return onClaimFailed(model, msg.id, msg.failure);
    case 'released':
      return onReleased(model, msg.id, msg.action, msg.requestId);
    case 'releaseFailed':
      return onReleaseFailed(model, msg.id, msg.action, msg.failure);
    case 'reread':
      return onReread(model, msg.id, msg.summary);
    case 'rereadFailed':
      return onRereadFailed(model, msg.id, msg.failure);
    case 'patched':
      return onPatched(model, msg.id, msg.summary, msg.requestId, undefined, msg.at);
    case 'patchFailed':
      return onPatchFailed(model, msg.id, msg.failure);
    case 'logFailed':
      return onLogFailed(model, msg.message, msg.notSent, msg.hint);
  }
}
