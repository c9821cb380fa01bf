import { isKnownState } from '../contract/states.js';
import type { Fields } from '../render/records.js';
import { changedSince, changeWords, commentToSend, stepsTo } from '../state-changes/change-rules.js';
import { commentTooLong } from '../contract/limits.js';
import { createStyle } from '../render/colours.js';
import { editLine, insertText } from './comment-editor.js';
import { commandFor, helpLines, helpPageSize, keyContext, type Command } from './keymap.js';
import { eventScreenFit, viewPageSize } from './queue-view.js';
import {
  GROUP_ORDER,
  stringField,
  type ActionName,
  type CallFailure,
  type Current,
  type Effect,
  type Group,
  type Key,
  type LoadState,
  type LogEntry,
  type Model,
  type Msg,
  type Notice,
  type Sending,
} from './queue-model.js';
import { sym } from '../render/symbols.js';

/*
 * update(model, msg) → [model, effects]: everything the queue decides, without a terminal or a
 * network. Effects are run by the loop (queue-loop.ts); their results come back as messages.
 *
 * The rules it keeps:
 * - an event is shown only while it awaits review (PENDING_REVIEW, ESCALATED), or IN_REVIEW by
 *   this session; others are passed over with a note (the include options widen this);
 * - an event in PENDING_REVIEW is claimed (IN_REVIEW) while on screen, and given back
 *   (PENDING_REVIEW) when the analyst leaves it without deciding, however the session ends;
 * - before a change is sent the state is read again, and the change is sent only if the state
 *   and comments are still those this session saw or set; otherwise the analyst sees what
 *   changed and chooses again;
 * - an empty comment is never sent (the service would replace a colleague's note with it).
 */

/** Events fetched ahead of the one on screen, unless the options say otherwise. */
export const PREFETCH_AHEAD = 1;

type Result = [Model, Effect[]];

/** Colour does not change what fits: the screen's fit is judged without it. */
const PLAIN = createStyle(0);

const REVIEWABLE = new Set(['PENDING_REVIEW', 'ESCALATED']);

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

/** The states to set, in order, for an action from `state` (the rule is the state changes': stepsTo); `comment` sets none. */
export function stepsFor(action: ActionName, state: string | null): (string | null)[] {
  const target = action === 'fraud' ? 'FRAUD_CONFIRMED' : TARGET[action];
  return target === null ? [null] : stepsTo(target, state);
}

/**
 * Which group an id ends in when it could be in two (commented, then approved; given back, then
 * the give-back failed): the higher rank. Each id is listed once in the summary.
 */
const GROUP_RANK: Readonly<Record<Group, number>> = {
  stillClaimed: 5,
  approved: 4,
  declined: 4,
  escalated: 4,
  fraudConfirmed: 4,
  notSent: 3,
  commented: 2,
  givenBack: 1,
  leftUndecided: 1,
  skipped: 1,
  notFound: 0,
  invalidId: 0,
  refused: 0,
  otherState: 0,
  claimedElsewhere: 0,
  unreadable: 0,
  notReached: 0,
};

/** Puts `id` in `group` (with why, for the summary), unless it is in a group that says more already. */
function withGroup(model: Model, group: Group, id: string, detail?: string): Model {
  const was = GROUP_ORDER.find((g) => model.groups[g].includes(id));
  if (was !== undefined && GROUP_RANK[was] >= GROUP_RANK[group]) return model;
  const groups = { ...model.groups };
  if (was !== undefined) groups[was] = groups[was].filter((other) => other !== id);
  groups[group] = [...groups[group], id];
  const details = detail === undefined ? model.details : new Map(model.details).set(id, detail);
  return { ...model, groups, details };
}

function note(model: Model, id: string, text: string): Model {
  return { ...model, notes: [...model.notes, { id, text }] };
}

/** An event the service refused to show (a 4xx other than the key's): where it goes in the summary, and the note. */
function refusedLoad(failure: CallFailure): { group: Group; detail?: string; text: string } {
  const detail = `${failure.status}${failure.codes && failure.codes.length > 0 ? ` ${failure.codes.join(', ')}` : ''}`;
  if (failure.status === 404) return { group: 'notFound', text: 'not found' };
  // As `show` has it: the id names no event at all (the service's 422 eventId:INVALID_FORMAT).
  if (failure.status === 400 || failure.status === 422) return { group: 'invalidId', detail, text: `invalid id (${detail})` };
  return { group: 'refused', detail, text: failure.message };
}

/** An event not awaiting review: the state as the service spelled it, and the note. */
function otherState(state: string | null): { detail: string; text: string } {
  if (state === null) return { detail: '(none)', text: 'the service sent no state' };
  if (isKnownState(state)) return { detail: state, text: `${state}, no longer awaiting review` };
  return { detail: state, text: `${state}, a state this build does not know (--include-decided shows it)` };
}

function log(entry: LogEntry): Effect {
  return { type: 'log', entry };
}

function isRefusal(failure: CallFailure): boolean {
  return failure.status !== null && failure.status >= 400 && failure.status < 500 && failure.status !== 429;
}

function isAuthFailure(failure: CallFailure): boolean {
  return failure.status === 401 || failure.status === 403;
}

function withFatal(model: Model, failure: CallFailure, effects: Effect[] = []): Result {
  const left = leave(model, 'givenBack', 'release', effects);
  return finish({ ...left, fatal: { message: failure.message, status: failure.status ?? 0 } }, effects);
}

/** The fetches the next screens need that are not already under way. */
function prefetch(model: Model, effects: Effect[]): Model {
  let loads: Map<number, LoadState> | null = null;
  const ahead = model.options.prefetch ?? PREFETCH_AHEAD;
  for (let i = model.index; i <= model.index + ahead && i < model.entries.length; i++) {
    if (i < 0 || model.loads.has(i)) continue;
    loads ??= new Map(model.loads);
    loads.set(i, { kind: 'pending' });
    effects.push({ type: 'load', index: i, id: model.entries[i]!.id });
  }
  return loads ? { ...model, loads } : model;
}

/** Leaves the event on screen: gives a claim back (now, or when a claim in flight lands) and records it in `group`. */
function leave(model: Model, group: Group, action: 'release' | 'skip', effects: Effect[]): Model {
  const current = model.current;
  if (!current) return model;
  let next: Model = { ...model, current: null };
  // Given back only what this session holds (or is claiming); with --no-claim the event is just left.
  const left: Group = group === 'givenBack' && current.claim === 'none' ? 'leftUndecided' : group;
  next = withGroup(next, current.decidedAs ?? left, current.id);
  if (current.claim === 'held') {
    release(effects, current.id, action);
  } else if (current.claim === 'claiming') {
    next = { ...next, abandoned: new Map(next.abandoned).set(current.id, action) };
  } else if (action === 'skip' && current.decidedAs === null) {
    effects.push(log({ eventId: current.id, action: 'skip', from: current.seenState, to: null, comments: null, requestId: null, outcome: 'ok', status: null }));
  }
  return next;
}

/** The session ends (the event on screen already left): every id in no group was not reached. */
function finish(model: Model, effects: Effect[]): Result {
  const seen = new Set(GROUP_ORDER.flatMap((g) => model.groups[g]));
  const notReached = model.entries.filter((e) => !seen.has(e.id)).map((e) => e.id);
  return [{ ...model, mode: { name: 'done' }, current: null, groups: { ...model.groups, notReached } }, effects];
}

/** To the next event in the queue (or the end). */
function advance(model: Model, effects: Effect[]): Result {
  if (model.quitting !== 'no') return finish(model, effects);
  let next: Model = { ...model, index: model.index + 1, current: null };
  if (next.index >= next.entries.length) return finish(next, effects);
  next = prefetch(next, effects);
  return open(next, effects);
}

/** Shows the event at the index if its fetch has finished, or passes over it. */
function open(model: Model, effects: Effect[]): Result {
  const load = model.loads.get(model.index);
  const id = model.entries[model.index]!.id;
  if (!load || load.kind === 'pending') return [{ ...model, mode: { name: 'loading' } }, effects];
  const loads = new Map(model.loads);
  loads.delete(model.index);
  const base: Model = { ...model, loads };
  if (load.kind === 'failed') {
    const failure: CallFailure = { status: load.status, message: load.message, requestId: null, codes: load.codes };
    if (isAuthFailure(failure)) return withFatal(base, failure);
    if (isRefusal(failure)) {
      const { group, detail, text } = refusedLoad(failure);
      return advance(note(withGroup(base, group, id, detail), id, text), effects);
    }
    // Kept, so that retry knows what to fetch again.
    return [{ ...model, mode: { name: 'loadFailed', message: load.message } }, effects];
  }
  const state = stringField(load.summary, 'state');
  const current: Current = {
    id,
    summary: load.summary,
    assessment: load.assessment,
    assessmentProblem: load.assessmentProblem,
    seenState: state,
    seenComments: stringField(load.summary, 'comments'),
    claim: 'none',
    decidedAs: null,
    notice: null,
  };
  const { options } = model;
  if (state === 'IN_REVIEW') {
    if (!options.includeClaimed) return advance(note(withGroup(base, 'claimedElsewhere', id), id, 'IN_REVIEW, claimed by another session (--include-claimed takes these)'), effects);
    // Taken over: this session gives it back if it leaves it undecided.
    return [{ ...base, current: { ...current, claim: 'held', notice: { tone: 'warn', lines: ['taken over: this event was IN_REVIEW, claimed by another session'] } }, mode: { name: 'keys' } }, effects];
  }
  if (state === null || !REVIEWABLE.has(state)) {
    if (!options.includeDecided) {
      const { detail, text } = otherState(state);
      return advance(note(withGroup(base, 'otherState', id, detail), id, text), effects);
    }
    return [{ ...base, current, mode: { name: 'keys' } }, effects];
  }
  if (state === 'PENDING_REVIEW' && options.claim) {
    effects.push({ type: 'claim', id });
    return [{ ...base, current: { ...current, claim: 'claiming' }, mode: { name: 'keys' } }, effects];
  }
  return [{ ...base, current, mode: { name: 'keys' } }, effects];
}

function withCurrent(model: Model, change: Partial<Current>): Model {
  return model.current ? { ...model, current: { ...model.current, ...change } } : model;
}

function notice(tone: Notice['tone'], ...lines: string[]): Notice {
  return { tone, lines };
}

/** Quit (q), Ctrl-C or a signal: a change being sent is finished first; then the event is given back. */
function quit(model: Model, how: 'quit' | 'interrupt', effects: Effect[]): Result {
  const next: Model = { ...model, quitting: model.quitting === 'interrupt' ? 'interrupt' : how };
  if (model.mode.name === 'done') return [next, effects];
  if (model.mode.name === 'sending') return [next, effects];
  const group: Group = model.mode.name === 'sendFailed' ? 'notSent' : 'givenBack';
  return finish(leave(next, group, 'release', effects), effects);
}

function startSending(model: Model, action: ActionName, comments: string | null): Result {
  const current = model.current!;
  const sending: Sending = { action, steps: stepsFor(action, current.seenState), step: 0, comments, phase: current.claim === 'claiming' ? 'waitClaim' : 'reread' };
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
  const logged: LogEntry = { eventId: id, action: sending.action, from, to: state ?? null, comments: last ? sending.comments : null, requestId: null, outcome: 'sending', status: null };
  return { type: 'patch', id, change, logged };
}

/** Gives a claim back, its log line first (giving back is done even when the log cannot take the line: src/action-log/). */
function release(effects: Effect[], id: string, action: 'release' | 'skip'): void {
  effects.push(log({ eventId: id, action, from: 'IN_REVIEW', to: 'PENDING_REVIEW', comments: null, requestId: null, outcome: 'sending', status: null }), { type: 'release', id, action });
}

function onCommand(model: Model, command: Command, effects: Effect[]): Result {
  const current = model.current;
  switch (command) {
    case 'approve':
    case 'decline':
    case 'escalate':
    case 'fraud':
    case 'comment':
      if (!current) return [model, effects];
      return [{ ...model, mode: { name: 'comment', action: command, text: '', cursor: 0, keep: false } }, effects];
    case 'skip': {
      if (model.mode.name === 'loadFailed') {
        const id = model.entries[model.index]!.id;
        const loads = new Map(model.loads);
        loads.delete(model.index);
        effects.push(log({ eventId: id, action: 'skip', from: null, to: null, comments: null, requestId: null, outcome: 'ok', status: null, message: `skipped: it could not be loaded (${model.mode.message})` }));
        return advance(note(withGroup({ ...model, loads }, 'skipped', id), id, 'skipped, it could not be loaded'), effects);
      }
      const group: Group = model.mode.name === 'sendFailed' ? 'notSent' : 'skipped';
      const left = leave(model, group, 'skip', effects);
      return advance({ ...left, current: null, notes: [] }, effects);
    }
    case 'retry':
      if (model.mode.name === 'loadFailed') {
        const loads = new Map(model.loads);
        loads.set(model.index, { kind: 'pending' });
        effects.push({ type: 'load', index: model.index, id: model.entries[model.index]!.id });
        return [{ ...model, loads, mode: { name: 'loading' } }, effects];
      }
      if (model.mode.name === 'sendFailed' && current) {
        const sending: Sending = { ...model.mode.sending, phase: 'reread' };
        effects.push({ type: 'reread', id: current.id });
        return [{ ...model, mode: { name: 'sending', sending } }, effects];
      }
      return [model, effects];
    case 'view':
      if (!current) return [model, effects];
      effects.push({ type: 'renderView', id: current.id, summary: current.summary, assessment: current.assessment });
      return [{ ...model, mode: { name: 'view', lines: null, scroll: 0 } }, effects];
    case 'help':
      return [{ ...model, mode: { name: 'help', back: model.mode, scroll: 0 } }, effects];
    case 'quit':
      return quit(model, 'quit', effects);
    case 'back':
      return [{ ...model, mode: { name: 'keys' } }, effects];
    case 'scrollDown':
    case 'scrollUp':
    case 'pageDown':
    case 'pageUp': {
      if (model.mode.name !== 'view') return [model, effects];
      const page = viewPageSize(model, model.screen.width, model.screen.height);
      const delta = command === 'scrollDown' ? 1 : command === 'scrollUp' ? -1 : command === 'pageDown' ? page : -page;
      const max = Math.max(0, (model.mode.lines?.length ?? 0) - page);
      const scroll = Math.min(max, Math.max(0, model.mode.scroll + delta));
      return [{ ...model, mode: { ...model.mode, scroll } }, effects];
    }
  }
}

/**
 * True while the window is too small for the event screen (queue-view.ts says what it needs):
 * its keys are not all on screen, so none of them is taken, q and Ctrl-C aside.
 */
function tooSmall(model: Model): boolean {
  const { current, mode } = model;
  if (!current || mode.name === 'help' || mode.name === 'view' || mode.name === 'done') return false;
  return !eventScreenFit(model, current, model.screen.width, model.screen.height, PLAIN).fits;
}

/** A key or a paste that arrived while another event (or none) was on screen: it was meant for that one. */
function staleInput(model: Model, shown: string | null | undefined): boolean {
  return shown !== undefined && shown !== (model.current?.id ?? null);
}

/**
 * A bracketed paste: on the comment line, text (one line, up to the limit; Enter still sends);
 * anywhere else ignored, with a word, so that pasted text is never taken as keys.
 */
function onPaste(model: Model, text: string, shown: string | null | undefined): Result {
  const mode = model.mode;
  if (staleInput(model, shown) || tooSmall(model)) return [model, []];
  if (mode.name === 'comment') {
    const result = insertText({ text: mode.text, cursor: mode.cursor }, text);
    if (result.kind !== 'edit') return [model, []];
    return [{ ...withCurrent(model, { notice: null }), mode: { ...mode, text: result.line.text, cursor: result.line.cursor } }, []];
  }
  if (!model.current || mode.name === 'help') return [model, []];
  return [withCurrent(model, { notice: notice('info', 'paste ignored: a paste is taken only as a comment (press a, d, e, f or c first)') }), []];
}

function onKey(model: Model, text: string | undefined, key: Key, shown?: string | null): Result {
  const effects: Effect[] = [];
  if (key.ctrl && key.name === 'c') return quit(model, 'interrupt', effects);
  // Typed ahead while the next event loaded: it was meant for the one before.
  if (staleInput(model, shown)) return [model, effects];
  const mode = model.mode;
  if (tooSmall(model)) return text === 'q' && !key.ctrl && !key.meta ? quit(model, 'quit', effects) : [{ ...model, keysNotTaken: model.keysNotTaken + 1 }, effects];
  // A help longer than the screen scrolls with the keys that scroll the view; any other key goes back to where `?` was pressed.
  if (mode.name === 'help') {
    const command = commandFor('view', text, key);
    const page = helpPageSize(model.screen.height);
    const max = Math.max(0, helpLines(model.screen.width).length - page);
    const delta = command === 'scrollDown' ? 1 : command === 'scrollUp' ? -1 : command === 'pageDown' ? page : command === 'pageUp' ? -page : null;
    if (delta === null || max === 0) return [{ ...model, mode: mode.back }, effects];
    return [{ ...model, mode: { ...mode, scroll: Math.min(max, Math.max(0, mode.scroll + delta)) } }, effects];
  }
  if (mode.name === 'comment') {
    const existing = model.current?.seenComments ?? null;
    // Tab: keep the event's comment (this one is added after it), or replace it again.
    if (key.name === 'tab' && !key.ctrl && !key.meta) {
      if (existing === null || existing.trim() === '') return [model, effects];
      return [{ ...model, mode: { ...mode, keep: !mode.keep } }, effects];
    }
    const result = editLine({ text: mode.text, cursor: mode.cursor }, text, key);
    switch (result.kind) {
      case 'edit':
        return [{ ...model, mode: { ...mode, text: result.line.text, cursor: result.line.cursor } }, effects];
      case 'cancel':
        return [{ ...model, mode: { name: 'keys' } }, effects];
      case 'ignored':
        return [model, effects];
      case 'submit': {
        const typed = mode.text.trim() === '' ? null : mode.text.trim();
        if (mode.action === 'comment' && typed === null) {
          return [{ ...withCurrent(model, { notice: notice('info', 'nothing sent: a comment needs some text') }), mode: { name: 'keys' } }, effects];
        }
        const comments = typed === null ? null : commentToSend(existing, typed, mode.keep);
        const problem = comments === null ? null : commentTooLong(comments);
        // Kept with the comment the event has, it would be over the service's limit: nothing is sent.
        if (problem !== null) return [withCurrent(model, { notice: notice('error', `${problem} with the comment it keeps: shorten yours, or Tab to replace it`) }), effects];
        return startSending(model, mode.action, comments);
      }
    }
  }
  const context = keyContext(mode);
  if (context === null) return [model, effects];
  const command = commandFor(context, text, key);
  if (command === null) return [model, effects];
  return onCommand(model, command, effects);
}

function isCurrent(model: Model, id: string): boolean {
  return model.current !== null && model.current.id === id;
}

/** What a summary says changed against what this session saw: null when nothing did (change-rules.ts). */
function changeSeen(current: Current, summary: Fields): { state: string | null; comments: string | null } | null {
  return changedSince({ state: current.seenState, comments: current.seenComments }, { state: stringField(summary, 'state'), comments: stringField(summary, 'comments') });
}

/** The step of a decision being sent, when `id` is the event on screen and one is being sent. */
function sendingStep(model: Model, id: string): { current: Current; sending: Sending; target: string | null; last: boolean } | null {
  const current = model.current;
  if (!current || current.id !== id || model.mode.name !== 'sending') return null;
  const sending = model.mode.sending;
  return { current, sending, target: sending.steps[sending.step] ?? null, last: sending.step === sending.steps.length - 1 };
}

function onReread(model: Model, id: string, summary: Fields): Result {
  const effects: Effect[] = [];
  const step = sendingStep(model, id);
  if (!step || step.sending.phase !== 'reread') return [model, effects];
  const { current, sending, target, last } = step;
  const freshState = stringField(summary, 'state');
  const freshComments = stringField(summary, 'comments');
  const expectedComments = last && sending.comments !== null ? sending.comments : current.seenComments;
  // A retry after a failure the service may have acted on: the change is there already.
  if (target !== null && freshState === target && freshState !== current.seenState && freshComments === expectedComments) {
    return onPatched(model, id, summary, null, 'confirmed by reading the event again after the failure');
  }
  const changed = changeSeen(current, summary);
  if (changed === null) {
    effects.push(patchEffect(id, sending, current.seenState));
    return [{ ...model, mode: { name: 'sending', sending: { ...sending, phase: 'patch' } } }, effects];
  }
  const what = changeWords({ state: current.seenState, comments: current.seenComments }, changed).join('; ');
  effects.push(log({ eventId: id, action: sending.action, from: current.seenState, to: target, comments: sending.comments, requestId: null, outcome: 'conflict', status: null, message: `changed since it was opened (${what}): not sent` }));
  // Each field that changed, in words: a note alone is `comment (none) → "…"`, never `IN_REVIEW → IN_REVIEW`.
  const lines = [`not sent: changed by someone else since you opened it: ${what}`, 'choose again'];
  const next = withCurrent(model, {
    summary,
    seenState: changed.state,
    seenComments: changed.comments,
    // The service holds it in another state now: no claim of ours to give back.
    claim: changed.state === 'IN_REVIEW' && current.claim === 'held' ? 'held' : 'none',
    notice: notice('warn', ...lines),
  });
  return [{ ...next, mode: { name: 'keys' } }, effects];
}

function onPatched(model: Model, id: string, summary: Fields | null, requestId: string | null, message?: string): Result {
  const effects: Effect[] = [];
  const step = sendingStep(model, id);
  if (!step) return [model, effects];
  const { current, sending, target, last } = step;
  const comments = last ? sending.comments : null;
  effects.push(
    log({
      eventId: id,
      action: sending.action,
      from: current.seenState,
      to: target,
      comments,
      requestId,
      outcome: 'ok',
      status: null,
      ...(message !== undefined ? { message } : {}),
    }),
  );
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
  });
  if (!last) {
    const step: Sending = { ...sending, step: sending.step + 1, phase: 'patch' };
    effects.push(patchEffect(id, step, next.current?.seenState ?? null));
    return [{ ...next, mode: { name: 'sending', sending: step } }, effects];
  }
  if (sending.action === 'comment') {
    next = withGroup(next, 'commented', id);
    if (next.quitting !== 'no') return finish(leave(next, 'givenBack', 'release', effects), effects);
    return [{ ...withCurrent(next, { notice: notice('info', 'comment recorded') }), mode: { name: 'keys' } }, effects];
  }
  // Decided: leave() lists it under its decision.
  const left = leave(next, 'givenBack', 'release', effects);
  return advance({ ...left, current: null, notes: [] }, effects);
}

/** The log line of a step of a decision that was not sent (refused, failed, or not read again first). */
function failedStepLog(id: string, step: NonNullable<ReturnType<typeof sendingStep>>, failure: CallFailure, message: string): Effect {
  const { current, sending, target, last } = step;
  return log({
    eventId: id,
    action: sending.action,
    from: current.seenState,
    to: target,
    comments: last ? sending.comments : null,
    requestId: failure.requestId,
    outcome: isRefusal(failure) ? 'refused' : 'failed',
    status: failure.status,
    message,
  });
}

function onPatchFailed(model: Model, id: string, failure: CallFailure): Result {
  const effects: Effect[] = [];
  const step = sendingStep(model, id);
  if (!step) return [model, effects];
  const { current, sending, target } = step;
  const refused = isRefusal(failure);
  effects.push(failedStepLog(id, step, failure, failure.message));
  if (isAuthFailure(failure)) return withFatal(model, failure, effects);
  const partial = sending.step > 0 ? `${current.seenState ?? ''} was set, then ` : '';
  if (refused) {
    const next = withCurrent(model, { notice: notice('error', `not sent: ${partial}the service refused ${target ?? 'the comment'}`, failure.message, 'choose again') });
    if (next.quitting !== 'no') return finish(leave(next, 'notSent', 'release', effects), effects);
    return [{ ...next, mode: { name: 'keys' } }, effects];
  }
  const next: Model = { ...model, mode: { name: 'sendFailed', sending: { ...sending, phase: 'reread' }, message: failure.message } };
  if (next.quitting !== 'no') return finish(leave(next, 'notSent', 'release', effects), effects);
  return [next, effects];
}

function onRereadFailed(model: Model, id: string, failure: CallFailure): Result {
  const effects: Effect[] = [];
  const step = sendingStep(model, id);
  if (!step) return [model, effects];
  const { sending } = step;
  const message = `not sent: could not read the event again first: ${failure.message}`;
  // The decision was attempted and not sent: the log says so, whatever comes next.
  effects.push(failedStepLog(id, step, failure, message));
  if (isAuthFailure(failure)) return withFatal(model, failure, effects);
  const next: Model = { ...model, mode: { name: 'sendFailed', sending, message } };
  if (next.quitting !== 'no') return finish(leave(next, 'notSent', 'release', effects), effects);
  return [next, effects];
}

function onClaimed(model: Model, id: string, summary: Fields | null, requestId: string | null): Result {
  const effects: Effect[] = [];
  const abandonedAs = model.abandoned.get(id);
  const current = model.current;
  const from = 'PENDING_REVIEW';
  effects.push(log({ eventId: id, action: 'claim', from, to: 'IN_REVIEW', comments: null, requestId, outcome: 'ok', status: null }));
  if (abandonedAs !== undefined || !current || current.id !== id) {
    const abandoned = new Map(model.abandoned);
    abandoned.delete(id);
    release(effects, id, abandonedAs ?? 'release');
    return [{ ...model, abandoned }, effects];
  }
  const updated = summary ?? { ...current.summary, state: 'IN_REVIEW' };
  const next = withCurrent(model, { claim: 'held', summary: updated, seenState: stringField(updated, 'state') ?? 'IN_REVIEW', seenComments: stringField(updated, 'comments') });
  return afterClaimSettled(model, next, id, effects);
}

/**
 * The claim of the event on screen has settled (held, lost or failed) into `next`. A decision
 * waiting for it goes on: the event is read again before the decision is sent.
 */
function afterClaimSettled(model: Model, next: Model, id: string, effects: Effect[]): Result {
  if (model.mode.name === 'sending' && model.mode.sending.phase === 'waitClaim') {
    effects.push({ type: 'reread', id });
    return [{ ...next, mode: { name: 'sending', sending: { ...model.mode.sending, phase: 'reread' } } }, effects];
  }
  return [next, effects];
}

/** The state, read just before claiming, was no longer PENDING_REVIEW: the event is judged again on what it is now. */
function onClaimLost(model: Model, id: string, summary: Fields): Result {
  const effects: Effect[] = [];
  const abandoned = new Map(model.abandoned);
  const wasAbandoned = abandoned.delete(id);
  const current = model.current;
  const state = stringField(summary, 'state');
  // Attempted, not sent: the read before the PATCH found the event in another state.
  effects.push(log({ eventId: id, action: 'claim', from: 'PENDING_REVIEW', to: 'IN_REVIEW', comments: null, requestId: null, outcome: 'conflict', status: null, message: `the state is now ${state ?? 'none'}: not claimed` }));
  if (wasAbandoned || !current || current.id !== id) return [{ ...model, abandoned }, effects];
  if (model.mode.name === 'keys' || model.mode.name === 'view' || model.mode.name === 'help') {
    const loads = new Map(model.loads).set(model.index, { kind: 'loaded', summary, assessment: current.assessment, assessmentProblem: current.assessmentProblem });
    const [next, more] = open({ ...model, loads, current: null }, effects);
    return [next.current?.id === id ? withCurrent(next, { notice: notice('warn', `changed while it opened: PENDING_REVIEW ${sym.arrow} ${state ?? 'none'}`) }) : next, more];
  }
  // The analyst is writing a comment or sending: the re-read before sending shows the change.
  const next = withCurrent(model, { claim: 'none' });
  return afterClaimSettled(model, next, id, effects);
}

function onClaimFailed(model: Model, id: string, failure: CallFailure): Result {
  const effects: Effect[] = [];
  const abandoned = new Map(model.abandoned);
  const wasAbandoned = abandoned.delete(id);
  effects.push(log({ eventId: id, action: 'claim', from: 'PENDING_REVIEW', to: 'IN_REVIEW', comments: null, requestId: failure.requestId, outcome: isRefusal(failure) ? 'refused' : 'failed', status: failure.status, message: failure.message }));
  // The claim did not happen: nothing of this event to give back.
  if (isAuthFailure(failure)) return withFatal(isCurrent(model, id) ? withCurrent({ ...model, abandoned }, { claim: 'none' }) : { ...model, abandoned }, failure, effects);
  if (wasAbandoned || !isCurrent(model, id)) return [{ ...model, abandoned }, effects];
  const next = withCurrent({ ...model, abandoned }, { claim: 'none', notice: notice('warn', `not claimed (colleagues' queues will not skip it): ${failure.message}`) });
  return afterClaimSettled(model, next, id, effects);
}

/**
 * The log could not take a line: the session ends (src/action-log/), as on q, but with the
 * problem as its end. A claim or a change whose line failed was not sent: a decision waiting on
 * it is not sent either. A change being sent is let finish, then claims are given back.
 */
function onLogFailed(model: Model, message: string, notSent: { id: string; what: 'claim' | 'patch' } | undefined): Result {
  let next: Model = { ...model, logProblem: model.logProblem ?? message, fatal: model.fatal ?? { message, status: 0 } };
  if (notSent) {
    const abandoned = new Map(next.abandoned);
    abandoned.delete(notSent.id);
    next = { ...next, abandoned };
    if (notSent.what === 'claim' && isCurrent(next, notSent.id)) next = withCurrent(next, { claim: 'none' });
    const mode = next.mode;
    const waiting = mode.name === 'sending' && isCurrent(next, notSent.id) && (notSent.what === 'patch' || mode.sending.phase === 'waitClaim');
    if (waiting) next = { ...next, mode: { name: 'sendFailed', sending: mode.sending, message: 'not sent: it could not be written to the log first' } };
  }
  return quit(next, 'quit', []);
}

export function update(model: Model, msg: Msg): Result {
  switch (msg.type) {
    case 'start':
      return advance(model, []);
    case 'resize': {
      const next = { ...model, screen: { width: msg.width, height: msg.height } };
      // The count is of keys not taken on this small window: it starts again once the window fits.
      return [tooSmall(next) ? next : { ...next, keysNotTaken: 0 }, []];
    }
    case 'key':
      return onKey(model, msg.text, msg.key, msg.shown);
    case 'paste':
      return onPaste(model, msg.text, msg.shown);
    case 'interrupt':
      return quit(model, 'interrupt', []);
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
          ? { kind: 'loaded', summary: msg.summary, assessment: msg.assessment, assessmentProblem: msg.assessmentProblem }
          : { kind: 'failed', status: msg.failure.status, message: msg.failure.message, codes: msg.failure.codes ?? [] },
      );
      const next = { ...model, loads };
      if (msg.index === model.index && model.mode.name === 'loading') return open(next, []);
      return [next, []];
    }
    case 'claimed':
      return onClaimed(model, msg.id, msg.summary, msg.requestId);
    case 'claimLost':
      return onClaimLost(model, msg.id, msg.summary);
    case 'claimFailed':
      return onClaimFailed(model, msg.id, msg.failure);
    case 'released':
      return [model, [log({ eventId: msg.id, action: msg.action, from: 'IN_REVIEW', to: 'PENDING_REVIEW', comments: null, requestId: msg.requestId, outcome: 'ok', status: null })]];
    case 'releaseFailed': {
      const effects: Effect[] = [
        log({ eventId: msg.id, action: msg.action, from: 'IN_REVIEW', to: 'PENDING_REVIEW', comments: null, requestId: msg.failure.requestId, outcome: isRefusal(msg.failure) ? 'refused' : 'failed', status: msg.failure.status, message: msg.failure.message }),
      ];
      // Refused: the event is in another state now (someone moved it), so it is not held by this
      // session; unless the refusal is of the key, which leaves it IN_REVIEW.
      if (isRefusal(msg.failure) && !isAuthFailure(msg.failure)) return [note(model, msg.id, `not given back: ${msg.failure.message}`), effects];
      return [withGroup(model, 'stillClaimed', msg.id), effects];
    }
    case 'reread':
      return onReread(model, msg.id, msg.summary);
    case 'rereadFailed':
      return onRereadFailed(model, msg.id, msg.failure);
    case 'patched':
      return onPatched(model, msg.id, msg.summary, msg.requestId);
    case 'patchFailed':
      return onPatchFailed(model, msg.id, msg.failure);
    case 'logFailed':
      return onLogFailed(model, msg.message, msg.notSent);
  }
}
