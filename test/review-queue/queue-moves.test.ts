import { describe, expect, it } from 'vitest';
import { answered } from '../support/call-failures.js';
import { initialModel, type Current, type Model } from '../../src/review-queue/queue-model.js';
import {
  advance,
  andThen,
  finish,
  leave,
  open,
  preceded,
  quit,
  withFatal,
} from '../../src/review-queue/queue-moves.js';
import { groupsOf } from '../../src/review-queue/queue-outcomes.js';
import { startSending } from '../../src/review-queue/queue-sending.js';

/*
 * The parts of update() each return [model, effects]: their own effects only, in the order they
 * are to run, and the model they were given left as it was.
 */

const OPTIONS = { claim: true, includeClaimed: false, includeDecided: false };

function queue(ids: string[]): Model {
  return initialModel(
    ids.map((id) => ({ id })),
    OPTIONS,
    { width: 80, height: 24 },
  );
}

function onScreen(model: Model, id: string, claim: Current['claim'], seenState = 'IN_REVIEW'): Model {
  const current: Current = {
    id,
    summary: { id, state: seenState },
    assessment: null,
    assessmentProblem: null,
    seenState,
    seenComments: null,
    claim,
    decidedAs: null,
    notice: null,
  };
  return { ...model, index: model.entries.findIndex((e) => e.id === id), current, mode: { name: 'keys' } };
}

const loaded = (state: string) => ({
  kind: 'loaded' as const,
  summary: { state },
  assessment: null,
  assessmentProblem: null,
});

describe('the queue’s moves return [model, effects]', () => {
  it('leave: a held claim is given back, its log line first; the event gets its outcome', () => {
    const model = onScreen(queue(['e1']), 'e1', 'held');
    const [left, effects] = leave(model, 'givenBack', 'release');
    expect(effects).toEqual([
      {
        type: 'log',
        entry: {
          eventId: 'e1',
          action: 'release',
          from: 'IN_REVIEW',
          to: 'PENDING_REVIEW',
          comments: null,
          requestId: null,
          outcome: 'sending',
          status: null,
        },
      },
      { type: 'release', id: 'e1', action: 'release' },
    ]);
    expect(left.current).toBeNull();
    expect(groupsOf(left).givenBack).toEqual(['e1']);
    expect(model.current?.id).toBe('e1');
    expect(model.outcomes.size).toBe(0);
  });

  it('leave: a claim in flight asks for nothing now and is given back when it lands; unclaimed, a skip is logged', () => {
    const [claiming, none] = leave(onScreen(queue(['e1']), 'e1', 'claiming'), 'skipped', 'skip');
    expect(none).toEqual([]);
    expect([...claiming.abandoned]).toEqual([['e1', 'skip']]);
    const [, skipped] = leave(onScreen(queue(['e1']), 'e1', 'none', 'ESCALATED'), 'skipped', 'skip');
    expect(skipped).toEqual([
      {
        type: 'log',
        entry: {
          eventId: 'e1',
          action: 'skip',
          from: 'ESCALATED',
          to: null,
          comments: null,
          requestId: null,
          outcome: 'ok',
          status: null,
        },
      },
    ]);
    expect(leave(queue(['e1']), 'skipped', 'skip')).toEqual([queue(['e1']), []]);
  });

  it('advance: fetches ahead, then opens; an event in PENDING_REVIEW is claimed after the fetches', () => {
    const start = { ...queue(['e1', 'e2', 'e3']), loads: new Map([[0, loaded('PENDING_REVIEW')]]) };
    const [next, effects] = advance(start);
    expect(effects).toEqual([
      { type: 'load', index: 1, id: 'e2' },
      { type: 'claim', id: 'e1' },
    ]);
    expect(next.current).toMatchObject({ id: 'e1', claim: 'claiming' });
    expect(start.index).toBe(-1);
  });

  it('open: an event passed over gets its outcome and a note, and the next one is opened', () => {
    const model = {
      ...queue(['done', 'e2']),
      index: 0,
      loads: new Map([
        [0, loaded('APPROVED')],
        [1, loaded('ESCALATED')],
      ]),
    };
    const [next, effects] = open(model);
    expect(effects).toEqual([]);
    expect(next.current?.id).toBe('e2');
    expect(groupsOf(next).otherState).toEqual(['done']);
    expect(next.notes).toEqual([{ id: 'done', text: 'APPROVED, no longer awaiting review' }]);
  });

  it('quit and withFatal: the event on screen is given back, then the session is done; finish asks for nothing', () => {
    const model = onScreen(queue(['e1', 'e2']), 'e1', 'held');
    const [quitted, effects] = quit(model, 'quit');
    expect(effects.map((e) => e.type)).toEqual(['log', 'release']);
    expect(quitted.mode.name).toBe('done');
    expect(groupsOf(quitted)).toMatchObject({ givenBack: ['e1'], notReached: ['e2'] });
    const [fatal, fatalEffects] = withFatal(model, answered(401, 'no key', null));
    expect(fatalEffects.map((e) => e.type)).toEqual(['log', 'release']);
    expect(fatal.fatal).toEqual({ message: 'no key', exitCode: 3 });
    expect(finish(model)[1]).toEqual([]);
  });

  it('startSending: reads the event again first, or waits for the claim in flight', () => {
    const [sending, effects] = startSending(onScreen(queue(['e1']), 'e1', 'held'), 'approve', 'fine');
    expect(effects).toEqual([{ type: 'reread', id: 'e1' }]);
    expect(sending.mode).toMatchObject({
      name: 'sending',
      sending: { action: 'approve', steps: ['APPROVED'], phase: 'reread' },
    });
    const [waiting, none] = startSending(onScreen(queue(['e1']), 'e1', 'claiming', 'PENDING_REVIEW'), 'approve', null);
    expect(none).toEqual([]);
    expect(waiting.mode).toMatchObject({ sending: { phase: 'waitClaim' } });
  });

  it('andThen and preceded keep the effects in order', () => {
    const model = queue(['e1']);
    const load = { type: 'load' as const, index: 0, id: 'e1' };
    const claim = { type: 'claim' as const, id: 'e1' };
    const reread = { type: 'reread' as const, id: 'e1' };
    const [, effects] = preceded(
      [load],
      andThen([model, [claim]], (m) => [m, [reread]]),
    );
    expect(effects).toEqual([load, claim, reread]);
  });
});
