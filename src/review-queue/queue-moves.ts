import { isKnownState } from '../contract/states.js';
import { logEntry, sendingEntry } from '../action-log/log-entries.js';
import { endsSession, isRefusal, refusedLoad } from './queue-failures.js';
import { withNotReached, withOutcome } from './queue-outcomes.js';
import {
  stringField,
  type CallFailure,
  type Current,
  type Effect,
  type Group,
  type LoadState,
  type LogEntry,
  type Model,
  type Notice,
} from './queue-model.js';

/*
 * Moving through the queue, the parts of update() the others build on: to the next event
 * (fetching ahead), opening it or passing it over with a note, leaving it (its claim given
 * back), quitting, and the end. Each returns [model, effects]: the new model and only the
 * effects it asks for, in the order they are to run; a caller puts its own before or after.
 *
 * The rules they keep: an event is shown only while it awaits review (PENDING_REVIEW,
 * ESCALATED), or IN_REVIEW by this session; others are passed over with a note (the include
 * options widen this); an event in PENDING_REVIEW is claimed while on screen and given back
 * when left undecided, however the session ends.
 */

export type Result = [Model, Effect[]];

/** `result`, then what `next` makes of its model: one result, the effects in order. */
export function andThen([model, effects]: Result, next: (model: Model) => Result): Result {
  const [after, more] = next(model);
  return [after, [...effects, ...more]];
}

/** `result` with `effects` asked for before its own. */
export function preceded(effects: readonly Effect[], [model, more]: Result): Result {
  return [model, [...effects, ...more]];
}

/** Events fetched ahead of the one on screen, unless the options say otherwise. */
export const PREFETCH_AHEAD = 1;

const REVIEWABLE = new Set(['PENDING_REVIEW', 'ESCALATED']);

export function note(model: Model, id: string, text: string): Model {
  return { ...model, notes: [...model.notes, { id, text }] };
}

export function notice(tone: Notice['tone'], ...lines: string[]): Notice {
  return { tone, lines };
}

export function withCurrent(model: Model, change: Partial<Current>): Model {
  return model.current ? { ...model, current: { ...model.current, ...change } } : model;
}

export function isCurrent(model: Model, id: string): boolean {
  return model.current !== null && model.current.id === id;
}

export function logEffect(entry: LogEntry): Effect {
  return { type: 'log', entry };
}

/** An event not awaiting review: the state as the service spelled it, and the note. */
function otherState(state: string | null): { detail: string; text: string } {
  if (state === null) return { detail: '(none)', text: 'the service sent no state' };
  if (isKnownState(state)) return { detail: state, text: `${state}, no longer awaiting review` };
  return { detail: state, text: `${state}, a state this build does not know (--include-decided shows it)` };
}

/** The log's name of giving a claim back (on leaving an event, or on skipping it). */
export function releaseAction(id: string, action: 'release' | 'skip') {
  return { eventId: id, action, from: 'IN_REVIEW', to: 'PENDING_REVIEW' };
}

/** Gives a claim back, its log line first (giving back is done even when the log cannot take the line: src/action-log/). */
export function releaseEffects(id: string, action: 'release' | 'skip'): Effect[] {
  return [logEffect(sendingEntry(releaseAction(id, action))), { type: 'release', id, action }];
}

/** The fetches the next screens need that are not already under way. */
function prefetch(model: Model): Result {
  let loads: Map<number, LoadState> | null = null;
  const effects: Effect[] = [];
  const ahead = model.options.prefetch ?? PREFETCH_AHEAD;
  for (let i = model.index; i <= model.index + ahead && i < model.entries.length; i++) {
    if (i < 0 || model.loads.has(i)) continue;
    loads ??= new Map(model.loads);
    loads.set(i, { kind: 'pending' });
    effects.push({ type: 'load', index: i, id: model.entries[i]!.id });
  }
  return [loads ? { ...model, loads } : model, effects];
}

/** Leaves the event on screen: gives a claim back (now, or when a claim in flight lands) and records it in `group`. */
export function leave(model: Model, group: Group, action: 'release' | 'skip'): Result {
  const current = model.current;
  if (!current) return [model, []];
  let next: Model = { ...model, current: null };
  // Given back only what this session holds (or is claiming); with --no-claim the event is just left.
  const left: Group = group === 'givenBack' && current.claim === 'none' ? 'leftUndecided' : group;
  next = withOutcome(next, current.decidedAs ?? left, current.id);
  if (current.claim === 'held') return [next, releaseEffects(current.id, action)];
  if (current.claim === 'claiming')
    return [{ ...next, abandoned: new Map(next.abandoned).set(current.id, action) }, []];
  if (action === 'skip' && current.decidedAs === null)
    return [
      next,
      [logEffect(logEntry({ eventId: current.id, action: 'skip', from: current.seenState, to: null }, 'ok'))],
    ];
  return [next, []];
}

/** The session ends (the event on screen already left): every id with no outcome was not reached. */
export function finish(model: Model): Result {
  return [{ ...withNotReached(model), mode: { name: 'done' }, current: null }, []];
}

/**
 * A failure that stops a run (the key refused, not the service, the proxy): the event on screen
 * is left (its claim given back), and the session ends with the failure's exit code.
 */
export function withFatal(model: Model, failure: CallFailure): Result {
  const fatal: NonNullable<Model['fatal']> = { message: failure.message, exitCode: failure.exitCode };
  if (failure.hint !== undefined) fatal.hint = failure.hint;
  return andThen(leave(model, 'givenBack', 'release'), (left) => finish({ ...left, fatal }));
}

/** To the next event in the queue (or the end). */
export function advance(model: Model): Result {
  if (model.quitting !== 'no') return finish(model);
  const next: Model = { ...model, index: model.index + 1, current: null };
  if (next.index >= next.entries.length) return finish(next);
  const [fetching, loads] = prefetch(next);
  const [opened, effects] = open(fetching);
  // A failure that stops the run on the way (the key refused, not the service): the session ends, nothing more is fetched.
  if (opened.fatal !== null && fetching.fatal === null) return [opened, effects];
  return [opened, [...loads, ...effects]];
}

/** The eventDates with the one of a loaded event (for the summary's overdue count). */
function withEventDate(model: Model, id: string, load: LoadState): Partial<Model> {
  if (load.kind !== 'loaded') return {};
  const at = Date.parse(stringField(load.summary, 'eventDate') ?? '');
  return Number.isNaN(at) ? {} : { eventDates: new Map(model.eventDates).set(id, at) };
}

/** Shows the event at the index if its fetch has finished, or passes over it. */
export function open(model: Model): Result {
  const load = model.loads.get(model.index);
  const id = model.entries[model.index]!.id;
  if (!load || load.kind === 'pending') return [{ ...model, mode: { name: 'loading' } }, []];
  const loads = new Map(model.loads);
  loads.delete(model.index);
  const base: Model = { ...model, loads, ...withEventDate(model, id, load) };
  if (load.kind === 'failed') {
    const { failure } = load;
    if (endsSession(failure)) return withFatal(base, failure);
    if (isRefusal(failure)) {
      const { group, detail, text } = refusedLoad(failure);
      return advance(note(withOutcome(base, group, id, detail), id, text));
    }
    // Kept, so that retry knows what to fetch again.
    return [{ ...model, mode: { name: 'loadFailed', message: failure.message } }, []];
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
    if (!options.includeClaimed)
      return advance(
        note(
          withOutcome(base, 'claimedElsewhere', id),
          id,
          'IN_REVIEW, claimed by another session (--include-claimed takes these)',
        ),
      );
    // Taken over: this session gives it back if it leaves it undecided.
    return [
      {
        ...base,
        current: {
          ...current,
          claim: 'held',
          notice: { tone: 'warn', lines: ['taken over: this event was IN_REVIEW, claimed by another session'] },
        },
        mode: { name: 'keys' },
      },
      [],
    ];
  }
  if (state === null || !REVIEWABLE.has(state)) {
    if (!options.includeDecided) {
      const { detail, text } = otherState(state);
      return advance(note(withOutcome(base, 'otherState', id, detail), id, text));
    }
    return [{ ...base, current, mode: { name: 'keys' } }, []];
  }
  if (state === 'PENDING_REVIEW' && options.claim) {
    return [{ ...base, current: { ...current, claim: 'claiming' }, mode: { name: 'keys' } }, [{ type: 'claim', id }]];
  }
  return [{ ...base, current, mode: { name: 'keys' } }, []];
}

/** Quit (q), Ctrl-C or a signal: a change being sent is finished first; then the event is given back. */
export function quit(model: Model, how: 'quit' | 'interrupt'): Result {
  const next: Model = { ...model, quitting: model.quitting === 'interrupt' ? 'interrupt' : how };
  if (model.mode.name === 'done') return [next, []];
  if (model.mode.name === 'sending') return [next, []];
  const group: Group = model.mode.name === 'sendFailed' ? 'notSent' : 'givenBack';
  return andThen(leave(next, group, 'release'), finish);
}
