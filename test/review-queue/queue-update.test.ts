import { describe, expect, it } from 'vitest';
import { answered, noAnswer, notTheService, proxyFailed } from '../support/call-failures.js';
import {
  initialModel,
  type Effect,
  type Key,
  type Model,
  type Msg,
  type QueueOptions,
} from '../../src/review-queue/queue-model.js';
import { stepsFor, update } from '../../src/review-queue/queue-update.js';
import { detailsOf, groupsOf } from '../../src/review-queue/queue-outcomes.js';

/*
 * The queue's decisions, without a terminal or a network: messages in, model and effects out.
 */

const OPTIONS: QueueOptions = { claim: true, includeClaimed: false, includeDecided: false };
const SCREEN = { width: 80, height: 24 };

function summary(id: string, state: string | null, comments: string | null = null) {
  return { id, state, comments, totalScore: 30, items: [] };
}

const assessment = (id: string) => ({
  eventId: id,
  actionType: 'REVIEW',
  totalRiskScore: 30,
  alerts: [],
  listMatches: [],
});

/** A model driven by messages, keeping every effect it asked for. */
class Driver {
  model: Model;
  effects: Effect[] = [];
  constructor(ids: string[], options: Partial<QueueOptions> = {}) {
    this.model = initialModel(
      ids.map((id) => ({ id })),
      { ...OPTIONS, ...options },
      SCREEN,
    );
  }
  send(msg: Msg): Effect[] {
    const [model, effects] = update(this.model, msg);
    this.model = model;
    this.effects.push(...effects);
    return effects;
  }
  key(text: string, key: Key = { name: text, sequence: text }): Effect[] {
    return this.send({ type: 'key', text, key });
  }
  type(text: string): void {
    for (const ch of text) this.key(ch);
  }
  enter(): Effect[] {
    return this.send({ type: 'key', text: '\r', key: { name: 'return', sequence: '\r' } });
  }
  loaded(index: number, state: string | null, comments: string | null = null): Effect[] {
    const id = this.model.entries[index]!.id;
    return this.send({
      type: 'loaded',
      index,
      summary: summary(id, state, comments),
      assessment: assessment(id),
      assessmentProblem: null,
    });
  }
  /** Loads the event at the index as PENDING_REVIEW and lets its claim land. */
  open(index: number): void {
    this.loaded(index, 'PENDING_REVIEW');
    const id = this.model.entries[index]!.id;
    this.send({ type: 'claimed', id, summary: summary(id, 'IN_REVIEW'), requestId: `req-claim-${id}` });
  }
  /** The log lines asked for, in order; the lines written before a change is sent (`sending`) only with `sending`. */
  logs(sending = false): string[] {
    return this.effects
      .flatMap((e) => (e.type === 'log' ? [e.entry] : e.type === 'patch' ? [e.logged] : []))
      .filter((entry) => sending || entry.outcome !== 'sending')
      .map((entry) => `${entry.eventId} ${entry.action} ${entry.from}→${entry.to} ${entry.outcome}`);
  }
}

const ofType = <T extends Effect['type']>(effects: Effect[], type: T) =>
  effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type);

describe('opening events', () => {
  it('fetches the first event and the next one at the start', () => {
    const d = new Driver(['e1', 'e2', 'e3']);
    const effects = d.send({ type: 'start' });
    expect(effects).toEqual([
      { type: 'load', index: 0, id: 'e1' },
      { type: 'load', index: 1, id: 'e2' },
    ]);
    expect(d.model.mode.name).toBe('loading');
  });

  it('claims an event in PENDING_REVIEW while it is on screen', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    expect(d.loaded(0, 'PENDING_REVIEW')).toEqual([{ type: 'claim', id: 'e1' }]);
    expect(d.model.mode.name).toBe('keys');
    expect(d.model.current?.claim).toBe('claiming');
    d.send({ type: 'claimed', id: 'e1', summary: summary('e1', 'IN_REVIEW'), requestId: 'r1' });
    expect(d.model.current).toMatchObject({ claim: 'held', seenState: 'IN_REVIEW' });
    expect(d.logs()).toEqual(['e1 claim PENDING_REVIEW→IN_REVIEW ok']);
  });

  it('does not claim with --no-claim', () => {
    const d = new Driver(['e1'], { claim: false });
    d.send({ type: 'start' });
    expect(d.loaded(0, 'PENDING_REVIEW')).toEqual([]);
    expect(d.model.current).toMatchObject({ claim: 'none', seenState: 'PENDING_REVIEW' });
  });

  it('passes over decided events, events claimed by another session and unknown states, with a note, without blocking', () => {
    const d = new Driver(['done', 'theirs', 'odd', 'open']);
    d.send({ type: 'start' });
    d.loaded(0, 'APPROVED');
    d.loaded(1, 'IN_REVIEW');
    d.loaded(2, 'ON_HOLD');
    d.loaded(3, 'ESCALATED');
    expect(d.model.current?.id).toBe('open');
    // ESCALATED cannot go to IN_REVIEW: shown, not claimed.
    expect(d.model.current?.claim).toBe('none');
    expect(groupsOf(d.model).otherState).toEqual(['done', 'odd']);
    expect(groupsOf(d.model).claimedElsewhere).toEqual(['theirs']);
    // The state as the service spelled it, for the summary.
    expect([...detailsOf(d.model)]).toEqual([
      ['done', 'APPROVED'],
      ['odd', 'ON_HOLD'],
    ]);
    expect(d.model.notes).toEqual([
      { id: 'done', text: 'APPROVED, no longer awaiting review' },
      { id: 'theirs', text: 'IN_REVIEW, claimed by another session (--include-claimed takes these)' },
      { id: 'odd', text: 'ON_HOLD, a state this build does not know (--include-decided shows it)' },
    ]);
    expect(d.effects.filter((e) => e.type === 'claim' || e.type === 'patch')).toEqual([]);
  });

  it('shows them with --include-decided and --include-claimed; a taken-over claim is given back on skip', () => {
    const d = new Driver(['odd', 'theirs'], { includeDecided: true, includeClaimed: true });
    d.send({ type: 'start' });
    d.loaded(0, 'ON_HOLD');
    expect(d.model.current).toMatchObject({ id: 'odd', seenState: 'ON_HOLD', claim: 'none' });
    d.key('s');
    d.loaded(1, 'IN_REVIEW');
    expect(d.model.current).toMatchObject({ id: 'theirs', claim: 'held' });
    expect(d.key('s')).toContainEqual({ type: 'release', id: 'theirs', action: 'skip' });
  });

  it('counts a 404 as not found and goes on', () => {
    const d = new Driver(['gone', 'e2']);
    d.send({ type: 'start' });
    d.send({ type: 'loadFailed', index: 0, failure: answered(404, 'no event "gone"', 'x') });
    expect(groupsOf(d.model).notFound).toEqual(['gone']);
    expect(d.model.mode.name).toBe('loading');
    expect(ofType(d.effects, 'load').map((e) => e.id)).toEqual(['gone', 'e2']);
  });

  it('offers retry or skip when an event cannot be loaded (5xx, network)', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.send({ type: 'loadFailed', index: 0, failure: answered(503, 'unavailable', null) });
    expect(d.model.mode).toEqual({ name: 'loadFailed', message: 'unavailable' });
    expect(d.key('r')).toEqual([{ type: 'load', index: 0, id: 'e1' }]);
    d.send({ type: 'loadFailed', index: 0, failure: noAnswer('connection reset') });
    d.key('s');
    expect(groupsOf(d.model).skipped).toEqual(['e1']);
  });

  it('uses the prefetched next event at once after a decision', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.loaded(1, 'PENDING_REVIEW');
    d.key('a');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    const effects = d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'APPROVED'), requestId: 'r2' });
    expect(d.model.current?.id).toBe('e2');
    expect(d.model.mode.name).toBe('keys');
    expect(effects).toContainEqual({ type: 'claim', id: 'e2' });
    expect(effects.filter((e) => e.type === 'load')).toEqual([]);
  });
  it('keeps when a decision was answered (the time the effect runner put on the message), for --sla', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('a');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'APPROVED'), requestId: 'r2', at: 1_764_000_000_000 });
    expect([...d.model.decidedAt]).toEqual([['e1', 1_764_000_000_000]]);
  });
});

describe('deciding', () => {
  function onFirst(): Driver {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    return d;
  }

  it('reads the state again, then sends the state with the comment; the next event follows', () => {
    const d = onFirst();
    d.key('d');
    expect(d.model.mode).toMatchObject({ name: 'comment', action: 'decline' });
    d.type('card stolen');
    expect(d.enter()).toEqual([{ type: 'reread', id: 'e1' }]);
    expect(d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') })).toEqual([
      {
        type: 'patch',
        id: 'e1',
        change: { state: 'DECLINED', comments: 'card stolen' },
        // Logged before it is sent (src/action-log/): not sent if the line cannot be written.
        logged: {
          eventId: 'e1',
          action: 'decline',
          from: 'IN_REVIEW',
          to: 'DECLINED',
          comments: 'card stolen',
          requestId: null,
          outcome: 'sending',
          status: null,
        },
      },
    ]);
    d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'DECLINED', 'card stolen'), requestId: 'r2' });
    expect(groupsOf(d.model).declined).toEqual(['e1']);
    expect(d.model.index).toBe(1);
    expect(d.logs()).toEqual(['e1 claim PENDING_REVIEW→IN_REVIEW ok', 'e1 decline IN_REVIEW→DECLINED ok']);
  });

  it('never sends an empty comment: Enter on an empty line sends the state alone', () => {
    const d = onFirst();
    d.key('a');
    d.type('   ');
    d.enter();
    expect(
      ofType(d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'a colleague’s note') }), 'patch'),
    ).toEqual([]);
    // The comment changed since it was seen (a colleague wrote): not sent, shown instead.
    expect(d.model.current?.notice?.lines[0]).toMatch(/not sent/);
    d.key('a');
    d.enter();
    expect(d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'a colleague’s note') })).toEqual([
      expect.objectContaining({ type: 'patch', id: 'e1', change: { state: 'APPROVED' } }),
    ]);
  });

  it('a comment alone needs text, and keeps the event on screen', () => {
    const d = onFirst();
    d.key('c');
    expect(d.enter()).toEqual([]);
    expect(d.model.current?.notice?.lines).toEqual(['nothing sent: a comment needs some text']);
    d.key('c');
    d.type('waiting for documents');
    d.enter();
    expect(d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') })).toEqual([
      expect.objectContaining({ type: 'patch', id: 'e1', change: { comments: 'waiting for documents' } }),
    ]);
    d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'waiting for documents'), requestId: 'r' });
    expect(d.model.current).toMatchObject({ id: 'e1', claim: 'held', seenComments: 'waiting for documents' });
    expect(groupsOf(d.model).commented).toEqual(['e1']);
  });

  it('Esc goes back to the keys without sending', () => {
    const d = onFirst();
    d.key('a');
    d.type('x');
    expect(d.send({ type: 'key', text: '\x1b', key: { name: 'escape' } })).toEqual([]);
    expect(d.model.mode.name).toBe('keys');
  });

  it('shows what changed when the state is no longer the one seen or set, and sends nothing', () => {
    const d = onFirst();
    d.key('a');
    d.enter();
    const effects = d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'DECLINED', 'fraud ring') });
    expect(ofType(effects, 'patch')).toEqual([]);
    expect(d.model.mode.name).toBe('keys');
    expect(d.model.current?.notice?.lines).toEqual([
      'not sent: changed by someone else since you opened it:',
      '  state IN_REVIEW → DECLINED',
      '  comment (none) → "fraud ring"',
      'choose again (a decision that changes their DECLINED asks first)',
    ]);
    expect(d.model.current).toMatchObject({ seenState: 'DECLINED', claim: 'none' });
    expect(d.logs().at(-1)).toBe('e1 approve IN_REVIEW→APPROVED conflict');
    // Skipping now gives nothing back: the claim is gone.
    expect(ofType(d.key('s'), 'release')).toEqual([]);
  });

  it('a change of the comment alone is named as such, never as IN_REVIEW → IN_REVIEW', () => {
    const d = onFirst();
    d.key('a');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'call the bank first') });
    expect(d.model.current?.notice?.lines).toEqual([
      'not sent: changed by someone else since you opened it:',
      '  comment (none) → "call the bank first"',
      'choose again',
    ]);
  });

  it('after a conflict, a decision that overturns the colleague’s asks first: any key but y sends nothing; y goes on', () => {
    const d = onFirst();
    d.key('a');
    d.type('looks fine');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'DECLINED', 'DO NOT APPROVE: police case 7781') });
    // One more key does not overturn it: it asks.
    expect(d.key('a')).toEqual([]);
    expect(d.model.mode).toEqual({ name: 'overturn', action: 'approve', state: 'DECLINED' });
    expect(d.enter()).toEqual([]);
    expect(d.model.mode.name).toBe('keys');
    expect(d.model.current?.notice?.lines).toEqual(['nothing sent: DECLINED stays as they set it']);
    // Fraud from their DECLINED changes it too; n is a no.
    d.key('f');
    expect(d.model.mode).toMatchObject({ name: 'overturn', state: 'DECLINED' });
    d.key('n');
    expect(d.model.mode.name).toBe('keys');
    d.key('a');
    d.key('y');
    expect(d.model.mode).toMatchObject({ name: 'comment', action: 'approve' });
    d.type('spoke to the police: released');
    d.enter();
    const patch = ofType(
      d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'DECLINED', 'DO NOT APPROVE: police case 7781') }),
      'patch',
    )[0]!;
    expect(patch.change.state).toBe('APPROVED');
    expect(d.effects.filter((e) => e.type === 'patch')).toHaveLength(1);
  });

  it('after a conflict, the colleague’s own decision again, or a comment only, is not asked about', () => {
    const d = onFirst();
    d.key('a');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'DECLINED') });
    d.key('c');
    expect(d.model.mode.name).toBe('comment');
    d.send({ type: 'key', text: '\x1b', key: { name: 'escape' } });
    d.key('d');
    expect(d.model.mode).toMatchObject({ name: 'comment', action: 'decline' });
  });

  it('a comment replaces the one the event has unless Tab keeps it, the new one after it', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.loaded(0, 'PENDING_REVIEW', 'fraud ring (alice)');
    d.send({ type: 'claimed', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'fraud ring (alice)'), requestId: 'r' });
    d.key('d');
    expect(d.model.mode).toMatchObject({ name: 'comment', keep: false });
    d.send({ type: 'key', text: '\t', key: { name: 'tab', sequence: '\t' } });
    expect(d.model.mode).toMatchObject({ name: 'comment', keep: true });
    d.type('same card');
    d.enter();
    expect(d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'fraud ring (alice)') })).toEqual([
      expect.objectContaining({
        type: 'patch',
        id: 'e1',
        change: { state: 'DECLINED', comments: 'fraud ring (alice) | same card' },
      }),
    ]);
  });

  it('a comment only (c) keeps the one the event has unless Tab replaces it', () => {
    const d = new Driver(['e1']);
    d.send({ type: 'start' });
    d.loaded(0, 'PENDING_REVIEW', 'DO NOT APPROVE: police case 7781');
    d.send({
      type: 'claimed',
      id: 'e1',
      summary: summary('e1', 'IN_REVIEW', 'DO NOT APPROVE: police case 7781'),
      requestId: 'r',
    });
    d.key('c');
    d.type('customer called');
    d.enter();
    const kept = ofType(
      d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'DO NOT APPROVE: police case 7781') }),
      'patch',
    )[0]!;
    expect(kept.change).toEqual({ comments: 'DO NOT APPROVE: police case 7781 | customer called' });
    d.send({
      type: 'patched',
      id: 'e1',
      summary: summary('e1', 'IN_REVIEW', 'DO NOT APPROVE: police case 7781 | customer called'),
      requestId: 'r2',
    });
    d.key('c');
    d.key('\t', { name: 'tab', sequence: '\t' });
    d.type('all clear');
    d.enter();
    const both = summary('e1', 'IN_REVIEW', 'DO NOT APPROVE: police case 7781 | customer called');
    const replaced = ofType(d.send({ type: 'reread', id: 'e1', summary: both }), 'patch')[0]!;
    expect(replaced.change).toEqual({ comments: 'all clear' });
  });

  it('Tab does nothing when the event has no comment; kept, a comment over the limit together is not sent', () => {
    const d = new Driver(['e1']);
    d.send({ type: 'start' });
    d.loaded(0, 'ESCALATED', 'x'.repeat(3990));
    // A comment only keeps the event's comment by default.
    d.key('c');
    d.send({ type: 'paste', text: 'y'.repeat(20) });
    expect(d.enter()).toEqual([]);
    expect(d.model.mode.name).toBe('comment');
    expect(d.model.current?.notice?.lines[0]).toMatch(
      /^the comment is 4,013 characters long; the service takes at most 4,000 with the comment it keeps/,
    );
    const bare = new Driver(['e1']);
    bare.send({ type: 'start' });
    bare.loaded(0, 'ESCALATED');
    bare.key('c');
    const before = bare.model.mode;
    bare.send({ type: 'key', text: '\t', key: { name: 'tab', sequence: '\t' } });
    expect(bare.model.mode).toEqual(before);
  });

  it('confirms fraud from review in two steps, DECLINED then FRAUD_CONFIRMED, the comment on the last', () => {
    expect(stepsFor('fraud', 'IN_REVIEW')).toEqual(['DECLINED', 'FRAUD_CONFIRMED']);
    expect(stepsFor('fraud', 'ESCALATED')).toEqual(['DECLINED', 'FRAUD_CONFIRMED']);
    expect(stepsFor('fraud', 'APPROVED')).toEqual(['FRAUD_CONFIRMED']);
    expect(stepsFor('fraud', 'SOMETHING_NEW')).toEqual(['FRAUD_CONFIRMED']);
    const d = onFirst();
    d.key('f');
    d.type('chargeback');
    d.enter();
    expect(d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') })).toEqual([
      expect.objectContaining({
        type: 'patch',
        id: 'e1',
        change: { state: 'DECLINED' },
        logged: expect.objectContaining({ action: 'fraud', from: 'IN_REVIEW', to: 'DECLINED', comments: null }),
      }),
    ]);
    expect(d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'DECLINED'), requestId: 'r1' })).toContainEqual(
      expect.objectContaining({
        type: 'patch',
        id: 'e1',
        change: { state: 'FRAUD_CONFIRMED', comments: 'chargeback' },
        logged: expect.objectContaining({ from: 'DECLINED', to: 'FRAUD_CONFIRMED', comments: 'chargeback' }),
      }),
    );
    d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'FRAUD_CONFIRMED', 'chargeback'), requestId: 'r2' });
    expect(groupsOf(d.model).fraudConfirmed).toEqual(['e1']);
    expect(groupsOf(d.model).declined).toEqual([]);
    expect(d.logs().slice(1)).toEqual(['e1 fraud IN_REVIEW→DECLINED ok', 'e1 fraud DECLINED→FRAUD_CONFIRMED ok']);
  });

  it('a refusal (4xx) shows the service’s reason and lets the analyst choose again', () => {
    const d = onFirst();
    d.key('e');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    d.send({
      type: 'patchFailed',
      id: 'e1',
      failure: answered(
        422,
        'the service rejected the request (422 VALIDATION_ERROR: INVALID_STATE_TRANSITION, request q)',
        'q',
      ),
    });
    expect(d.model.mode.name).toBe('keys');
    expect(d.model.current?.notice?.lines[1]).toContain('INVALID_STATE_TRANSITION');
    expect(d.logs().at(-1)).toBe('e1 escalate IN_REVIEW→ESCALATED refused');
  });

  it('a failure (5xx, network) offers retry, which reads again first and takes a change that did land as done', () => {
    const d = onFirst();
    d.key('a');
    d.type('ok');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    d.send({ type: 'patchFailed', id: 'e1', failure: noAnswer('the connection dropped') });
    expect(d.model.mode.name).toBe('sendFailed');
    expect(d.key('r')).toEqual([{ type: 'reread', id: 'e1' }]);
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'APPROVED', 'ok') });
    expect(groupsOf(d.model).approved).toEqual(['e1']);
    expect(d.logs().slice(-2)).toEqual(['e1 approve IN_REVIEW→APPROVED failed', 'e1 approve IN_REVIEW→APPROVED ok']);
  });

  it('skipping after a failure counts the decision as not sent and gives the event back', () => {
    const d = onFirst();
    d.key('a');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    d.send({ type: 'patchFailed', id: 'e1', failure: answered(503, 'unavailable', 'z') });
    expect(d.key('s')).toContainEqual({ type: 'release', id: 'e1', action: 'skip' });
    expect(groupsOf(d.model).notSent).toEqual(['e1']);
  });
});

describe('reason codes after a decision key (the profile’s, config set reasons)', () => {
  const codes = (text: string) =>
    text.split(',').map((entry) => {
      const [code, states] = entry.split(':');
      return { code: code!, states: states === undefined ? null : states.split('+') };
    });
  function onFirst(reasons: string, required = false, comments: string | null = null): Driver {
    const d = new Driver(['e1', 'e2'], { reasons: { profile: 'team', codes: codes(reasons), required } });
    d.send({ type: 'start' });
    d.loaded(0, 'PENDING_REVIEW', comments);
    d.send({ type: 'claimed', id: 'e1', summary: summary('e1', 'IN_REVIEW', comments), requestId: 'rc' });
    return d;
  }

  it('confirming fraud in two steps: each step’s log line has the reason, the comment (reason at its head) goes with the last', () => {
    const d = onFirst('stolen-card:FRAUD_CONFIRMED,other:APPROVED');
    d.key('f');
    expect(d.model.mode).toMatchObject({
      name: 'reason',
      action: 'fraud',
      codes: ['stolen-card'],
      more: 0,
      required: false,
    });
    d.key('1');
    d.type('chargeback');
    d.enter();
    const first = ofType(d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') }), 'patch')[0]!;
    expect([first.change, first.logged.reason, first.logged.comments]).toEqual([
      { state: 'DECLINED' },
      'stolen-card',
      null,
    ]);
    const second = ofType(
      d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'DECLINED'), requestId: 'r1' }),
      'patch',
    )[0]!;
    expect([second.change, second.logged.reason]).toEqual([
      { state: 'FRAUD_CONFIRMED', comments: '[reason: stolen-card] chargeback' },
      'stolen-card',
    ]);
    d.send({
      type: 'patched',
      id: 'e1',
      summary: summary('e1', 'FRAUD_CONFIRMED', '[reason: stolen-card] chargeback'),
      requestId: 'r2',
    });
    const ok = ofType(d.effects, 'log')
      .filter((e) => e.entry.action === 'fraud')
      .map((e) => [e.entry.to, e.entry.reason]);
    expect(ok).toEqual([
      ['DECLINED', 'stolen-card'],
      ['FRAUD_CONFIRMED', 'stolen-card'],
    ]);
  });

  it('Tab keeps the event’s comment: the reason heads the part added after it, as set-state --append-comment', () => {
    const d = onFirst('stolen-card', false, 'called the bank');
    d.key('d');
    d.key('1');
    d.key('\t', { name: 'tab', sequence: '\t' });
    d.type('confirmed');
    d.enter();
    const patch = ofType(
      d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'called the bank') }),
      'patch',
    )[0]!;
    expect(patch.change.comments).toBe('called the bank | [reason: stolen-card] confirmed');
  });

  it('Enter with a reason and nothing typed keeps a colleague’s note: the reason goes after it, never in its place', () => {
    const d = onFirst('stolen-card', false, 'DO NOT APPROVE: police case 7781');
    d.key('d');
    d.key('1');
    d.enter();
    const patch = ofType(
      d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'DO NOT APPROVE: police case 7781') }),
      'patch',
    )[0]!;
    expect(patch.change).toEqual({
      state: 'DECLINED',
      comments: 'DO NOT APPROVE: police case 7781 | [reason: stolen-card]',
    });
    expect(patch.logged.reason).toBe('stolen-card');
  });

  it('a comment only (c) with a reason and nothing typed keeps the note too', () => {
    // Tab (either way) cannot turn an empty line into one that erases the note.
    for (const tabs of [0, 1, 2]) {
      const d = onFirst('stolen-card', false, 'DO NOT APPROVE: police case 7781');
      d.key('c');
      d.key('1');
      for (let i = 0; i < tabs; i++) d.key('\t', { name: 'tab', sequence: '\t' });
      d.enter();
      const patch = ofType(
        d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'DO NOT APPROVE: police case 7781') }),
        'patch',
      )[0]!;
      expect(patch.change, `${tabs} Tab`).toEqual({
        comments: 'DO NOT APPROVE: police case 7781 | [reason: stolen-card]',
      });
    }
  });

  it('a profile that requires a reason and has none for this decision: nothing sent, the screen says how to add one', () => {
    const d = onFirst('customer-confirmed:APPROVED', true);
    expect(d.key('d')).toEqual([]);
    expect(d.model.mode.name).toBe('keys');
    expect(d.model.current?.notice?.lines).toEqual([
      'not sent: profile "team" requires a reason for a change of state, and has no code for DECLINED',
      "see the profile's codes: fraudctl config get reasons --profile team; how to add one: fraudctl help config",
    ]);
  });

  it('at most 9 codes are offered by number, the rest counted; a digit past them does nothing', () => {
    const d = onFirst(Array.from({ length: 11 }, (_, i) => `c${i + 1}`).join(','));
    d.key('a');
    expect(d.model.mode).toMatchObject({
      name: 'reason',
      codes: ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9'],
      more: 2,
    });
    d.key('0');
    expect(d.model.mode.name).toBe('reason');
    d.key('9');
    expect(d.model.mode).toMatchObject({ name: 'comment', reason: 'c9' });
  });
});

describe('leaving and quitting', () => {
  it('skip gives the claim back and moves on', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    const effects = d.key('s');
    expect(effects).toContainEqual({ type: 'release', id: 'e1', action: 'skip' });
    expect(groupsOf(d.model).skipped).toEqual(['e1']);
    d.send({ type: 'released', id: 'e1', action: 'skip', requestId: 'r' });
    expect(d.logs().at(-1)).toBe('e1 skip IN_REVIEW→PENDING_REVIEW ok');
  });

  it('a claim that lands after the event was left is given back at once', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.loaded(0, 'PENDING_REVIEW');
    expect(ofType(d.key('s'), 'release')).toEqual([]);
    expect(d.send({ type: 'claimed', id: 'e1', summary: null, requestId: 'late' })).toContainEqual({
      type: 'release',
      id: 'e1',
      action: 'skip',
    });
  });

  it('q gives the event back and ends; the rest is "not reached"', () => {
    const d = new Driver(['e1', 'e2', 'e3']);
    d.send({ type: 'start' });
    d.open(0);
    expect(d.key('q')).toContainEqual({ type: 'release', id: 'e1', action: 'release' });
    expect(d.model.mode.name).toBe('done');
    expect(groupsOf(d.model)).toMatchObject({ givenBack: ['e1'], skipped: [], notReached: ['e2', 'e3'] });
  });

  it('Ctrl-C while a decision is being sent waits for it, then ends without claiming the next event', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.loaded(1, 'PENDING_REVIEW');
    d.key('a');
    d.enter();
    expect(d.send({ type: 'key', text: '\x03', key: { name: 'c', ctrl: true } })).toEqual([]);
    expect(d.model.mode.name).toBe('sending');
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    const effects = d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'APPROVED'), requestId: 'r' });
    expect(ofType(effects, 'claim')).toEqual([]);
    expect(d.model).toMatchObject({ quitting: 'interrupt', mode: { name: 'done' } });
    expect(groupsOf(d.model)).toMatchObject({ approved: ['e1'], notReached: ['e2'] });
  });

  it('a signal gives the claimed event back', () => {
    const d = new Driver(['e1']);
    d.send({ type: 'start' });
    d.open(0);
    expect(ofType(d.send({ type: 'interrupt' }), 'release')).toEqual([
      { type: 'release', id: 'e1', action: 'release' },
    ]);
    expect(d.model.quitting).toBe('interrupt');
  });

  it('a release that fails on the network leaves the event listed as still claimed', () => {
    const d = new Driver(['e1']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('q');
    d.send({ type: 'releaseFailed', id: 'e1', action: 'release', failure: noAnswer('refused') });
    expect(groupsOf(d.model).stillClaimed).toEqual(['e1']);
  });

  it('a refused key (401) ends the session', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.send({ type: 'loadFailed', index: 0, failure: answered(401, 'the service did not accept the API key', null) });
    expect(d.model.mode.name).toBe('done');
    expect(d.model.fatal).toEqual({ message: 'the service did not accept the API key', exitCode: 3 });
  });
});

describe('view and help', () => {
  it('v asks for the tables and scrolls them within bounds; v goes back', () => {
    const d = new Driver(['e1']);
    d.send({ type: 'start' });
    d.open(0);
    expect(ofType(d.key('v'), 'renderView')).toHaveLength(1);
    d.send({ type: 'viewReady', id: 'e1', lines: Array.from({ length: 30 }, (_, i) => `line ${i}`) });
    d.key('k');
    expect(d.model.mode).toMatchObject({ name: 'view', scroll: 0 });
    d.send({ type: 'key', text: ' ', key: { name: 'space' } });
    d.send({ type: 'key', text: ' ', key: { name: 'space' } });
    // 30 lines, 22 to a page: at most 8 down.
    expect(d.model.mode).toMatchObject({ scroll: 8 });
    d.key('v');
    expect(d.model.mode.name).toBe('keys');
  });

  it('? shows help and any key goes back where it was', () => {
    const d = new Driver(['e1']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('?');
    expect(d.model.mode.name).toBe('help');
    d.key('x');
    expect(d.model.mode.name).toBe('keys');
  });
});

describe('the log: every action the queue attempts has its line, whatever ends it', () => {
  const REFUSED_KEY = answered(401, 'the service did not accept the API key', 'k1');
  const BLOCKED = answered(403, 'the service refused the key (403 FORBIDDEN: MERCHANT_BLOCKED)', 'k2');
  const DOWN = answered(503, 'the service is unavailable', 'u1');
  const NETWORK = noAnswer('the connection dropped');
  const TRANSITION = answered(
    422,
    'the service rejected the request (422 VALIDATION_ERROR: INVALID_STATE_TRANSITION)',
    'v1',
  );

  /** A decision on e1 sent as far as the re-read before the PATCH. */
  function deciding(): Driver {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('a');
    d.type('ok');
    d.enter();
    return d;
  }

  it.each([
    ['a refused key (401)', REFUSED_KEY, 'e1 claim PENDING_REVIEW→IN_REVIEW refused'],
    ['a blocked merchant (403)', BLOCKED, 'e1 claim PENDING_REVIEW→IN_REVIEW refused'],
    ['an unavailable service (503)', DOWN, 'e1 claim PENDING_REVIEW→IN_REVIEW failed'],
    ['the network', NETWORK, 'e1 claim PENDING_REVIEW→IN_REVIEW failed'],
  ])('a claim that fails on %s', (_what, failure, line) => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.loaded(0, 'PENDING_REVIEW');
    const effects = d.send({ type: 'claimFailed', id: 'e1', failure });
    expect(d.logs()).toEqual([line]);
    const entry = ofType(effects, 'log')[0]!.entry;
    expect(entry).toMatchObject({ status: failure.status, message: failure.message, requestId: failure.requestId });
    // A refused key ends the session; any other failure leaves the event on screen, unclaimed.
    expect(d.model.mode.name).toBe(failure.status === 401 || failure.status === 403 ? 'done' : 'keys');
  });

  it('a claim that finds the event moved on before the PATCH', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.loaded(0, 'PENDING_REVIEW');
    d.send({ type: 'claimLost', id: 'e1', summary: summary('e1', 'APPROVED') });
    expect(d.logs()).toEqual(['e1 claim PENDING_REVIEW→IN_REVIEW conflict']);
  });

  it.each([
    ['a refused key (401)', REFUSED_KEY, 'e1 approve IN_REVIEW→APPROVED refused'],
    ['a blocked merchant (403)', BLOCKED, 'e1 approve IN_REVIEW→APPROVED refused'],
    ['an unavailable service (503)', DOWN, 'e1 approve IN_REVIEW→APPROVED failed'],
    ['the network', NETWORK, 'e1 approve IN_REVIEW→APPROVED failed'],
  ])('a decision whose re-read fails on %s: not sent, and logged so', (_what, failure, line) => {
    const d = deciding();
    d.send({ type: 'rereadFailed', id: 'e1', failure });
    expect(d.logs().slice(1)).toEqual([line]);
    const entry = ofType(d.effects, 'log')
      .filter((e) => e.entry.action === 'approve')
      .at(-1)!.entry;
    expect(entry.comments).toBe('ok');
    expect(entry.message).toMatch(/^not sent: could not read the event again first/);
  });

  it.each([
    ['a refused key (401)', REFUSED_KEY, 'refused'],
    ['a blocked merchant (403)', BLOCKED, 'refused'],
    ['a transition the service does not allow (422)', TRANSITION, 'refused'],
    ['an unavailable service (503)', DOWN, 'failed'],
    ['the network', NETWORK, 'failed'],
  ])('a decision whose PATCH fails on %s', (_what, failure, outcome) => {
    const d = deciding();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    d.send({ type: 'patchFailed', id: 'e1', failure });
    expect(d.logs().slice(1)).toEqual([`e1 approve IN_REVIEW→APPROVED ${outcome}`]);
  });

  it.each([
    ['a refused key (401)', REFUSED_KEY, 'refused'],
    ['a state moved on (422)', TRANSITION, 'refused'],
    ['the network', NETWORK, 'failed'],
  ])('a give-back that fails on %s', (_what, failure, outcome) => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('s');
    d.send({ type: 'releaseFailed', id: 'e1', action: 'skip', failure });
    expect(d.logs()).toEqual(['e1 claim PENDING_REVIEW→IN_REVIEW ok', `e1 skip IN_REVIEW→PENDING_REVIEW ${outcome}`]);
  });

  it('skipping an event that could not be loaded', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.send({ type: 'loadFailed', index: 0, failure: DOWN });
    d.key('s');
    expect(d.logs()).toEqual(['e1 skip null→null ok']);
  });

  it('a refused key at a claim ends the session with the claim logged and the event given back', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('s');
    d.send({ type: 'released', id: 'e1', action: 'skip', requestId: 'r' });
    d.loaded(1, 'PENDING_REVIEW');
    d.send({ type: 'claimFailed', id: 'e2', failure: BLOCKED });
    expect(d.model.fatal).toEqual({ message: BLOCKED.message, exitCode: 3 });
    expect(d.logs()).toEqual([
      'e1 claim PENDING_REVIEW→IN_REVIEW ok',
      'e1 skip IN_REVIEW→PENDING_REVIEW ok',
      'e2 claim PENDING_REVIEW→IN_REVIEW refused',
    ]);
    // Its claim never happened: nothing to give back.
    expect(ofType(d.effects, 'release').map((e) => e.id)).toEqual(['e1']);
    expect(groupsOf(d.model)).toMatchObject({ skipped: ['e1'], leftUndecided: ['e2'], givenBack: [] });
  });
});

describe('a failure that stops a run ends the session, as it stops a batch', () => {
  const FOREIGN = notTheService(
    405,
    "GET /event/e1 answered 405 with text/plain: that is not the fraud-screening service's answer",
  );
  const PROXY = proxyFailed('the proxy 127.0.0.1:3128 (HTTPS_PROXY) asks for credentials');

  it.each([
    ["an answer that is not the service's (405 text/plain)", FOREIGN, 1],
    ['the proxy', PROXY, 1],
    ['a refused key (401)', answered(401, 'the service did not accept the API key'), 3],
  ])(
    'a load that meets %s: the session ends with its exit code, no event counted as refused',
    (_what, failure, exitCode) => {
      const d = new Driver(['e1', 'e2', 'e3']);
      d.send({ type: 'start' });
      d.send({ type: 'loadFailed', index: 0, failure });
      expect(d.model.mode.name).toBe('done');
      expect(d.model.fatal).toMatchObject({ message: failure.message, exitCode });
      expect(groupsOf(d.model)).toMatchObject({ refused: [], notReached: ['e1', 'e2', 'e3'] });
      // Nothing more is fetched from it.
      expect(ofType(d.effects, 'load').map((e) => e.id)).toEqual(['e1', 'e2']);
    },
  );

  it("the hint of an answer that is not the service's goes with it (check the URL)", () => {
    const d = new Driver(['e1']);
    d.send({ type: 'start' });
    d.send({ type: 'loadFailed', index: 0, failure: FOREIGN });
    expect(d.model.fatal).toEqual({ message: FOREIGN.message, hint: 'check --base-url', exitCode: 1 });
  });

  it.each([
    ['the re-read before a decision', (d: Driver) => d.send({ type: 'rereadFailed', id: 'e1', failure: FOREIGN })],
    [
      'the PATCH of a decision',
      (d: Driver) => {
        d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
        d.send({ type: 'patchFailed', id: 'e1', failure: FOREIGN });
      },
    ],
  ])("%s meeting an answer that is not the service's: the claim is given back and the session ends", (_what, fail) => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('a');
    d.enter();
    fail(d);
    expect(d.model.mode.name).toBe('done');
    expect(d.model.fatal).toMatchObject({ exitCode: 1 });
    expect(ofType(d.effects, 'release').map((e) => e.id)).toEqual(['e1']);
    // Sent again it may go through once the URL is right: failed, not refused.
    expect(d.logs().filter((l) => l.includes('approve'))).toEqual(['e1 approve IN_REVIEW→APPROVED failed']);
  });

  it("a claim meeting an answer that is not the service's: logged as failed, the session ends", () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.loaded(0, 'PENDING_REVIEW');
    d.send({ type: 'claimFailed', id: 'e1', failure: FOREIGN });
    expect(d.logs()).toEqual(['e1 claim PENDING_REVIEW→IN_REVIEW failed']);
    expect(d.model.mode.name).toBe('done');
    expect(ofType(d.effects, 'release')).toEqual([]);
  });
});

describe('the summary’s groups: each passed-over id with why, each id once', () => {
  it('tells a malformed id (the service’s 422 eventId:INVALID_FORMAT) from one not found, and keeps other refusals apart', () => {
    const d = new Driver(['ord/1', 'gone', 'odd', 'e4']);
    d.send({ type: 'start' });
    d.send({ type: 'loadFailed', index: 0, failure: answered(422, 'rejected', 'x', ['eventId:INVALID_FORMAT']) });
    d.send({ type: 'loadFailed', index: 1, failure: answered(404, 'no event', 'y', ['EVENT_NOT_FOUND']) });
    d.send({ type: 'loadFailed', index: 2, failure: answered(410, 'gone for good', 'z', ['EVENT_ARCHIVED']) });
    expect(groupsOf(d.model)).toMatchObject({ invalidId: ['ord/1'], notFound: ['gone'], refused: ['odd'] });
    expect(detailsOf(d.model).get('ord/1')).toBe('422 eventId:INVALID_FORMAT');
    expect(detailsOf(d.model).get('odd')).toBe('410 EVENT_ARCHIVED');
    expect(d.model.notes[0]).toEqual({ id: 'ord/1', text: 'invalid id (422 eventId:INVALID_FORMAT)' });
  });

  it('the event on screen at q or Ctrl-C is given back, not skipped; with --no-claim it is left undecided', () => {
    for (const how of ['q', 'ctrl-c'] as const) {
      const d = new Driver(['e1', 'e2']);
      d.send({ type: 'start' });
      d.open(0);
      if (how === 'q') d.key('q');
      else d.send({ type: 'key', text: '\x03', key: { name: 'c', ctrl: true } });
      expect(groupsOf(d.model)).toMatchObject({ givenBack: ['e1'], skipped: [], notReached: ['e2'] });
    }
    const unclaimed = new Driver(['e1'], { claim: false });
    unclaimed.send({ type: 'start' });
    unclaimed.loaded(0, 'PENDING_REVIEW');
    unclaimed.key('q');
    expect(groupsOf(unclaimed.model)).toMatchObject({ leftUndecided: ['e1'], givenBack: [] });
  });

  it('lists an event once: a comment then a decision is the decision; a give-back that failed is still claimed, not given back', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('c');
    d.type('note');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'note'), requestId: 'r' });
    d.key('a');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW', 'note') });
    d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'APPROVED', 'note'), requestId: 'r2' });
    d.open(1);
    d.key('q');
    d.send({ type: 'releaseFailed', id: 'e2', action: 'release', failure: noAnswer('reset') });
    const listed = Object.entries(groupsOf(d.model)).filter(([, ids]) => ids.length > 0);
    expect(listed).toEqual([
      ['approved', ['e1']],
      ['stillClaimed', ['e2']],
    ]);
  });
});

describe('a paste is a message, never keys', () => {
  function onFirst(): Driver {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    return d;
  }

  it('on an event screen a paste does nothing to the event, and says it was ignored', () => {
    const d = onFirst();
    const before = d.model;
    expect(d.send({ type: 'paste', text: 'Customer called, address verified\r' })).toEqual([]);
    expect(d.model.mode.name).toBe('keys');
    expect(d.model.current).toMatchObject({ id: 'e1', claim: 'held' });
    expect(d.model.index).toBe(before.index);
    expect(d.model.current?.notice?.lines).toEqual([
      'paste ignored: a paste is taken only as a comment (press a, d, e, f or c first)',
    ]);
  });

  it('on the comment line a paste is one line of text (line breaks and tabs as spaces), and nothing is sent before Enter', () => {
    const d = onFirst();
    d.key('e');
    d.type('note: ');
    expect(d.send({ type: 'paste', text: 'line one\r\nline two\n\tindented\r' })).toEqual([]);
    expect(d.model.mode).toMatchObject({
      name: 'comment',
      text: 'note: line one line two  indented ',
      action: 'escalate',
    });
    expect(ofType(d.effects, 'reread')).toEqual([]);
    expect(d.enter()).toEqual([{ type: 'reread', id: 'e1' }]);
    expect(d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') })).toEqual([
      expect.objectContaining({
        type: 'patch',
        id: 'e1',
        change: { state: 'ESCALATED', comments: 'note: line one line two  indented' },
      }),
    ]);
  });

  it('a paste on the comment line stops at the service’s limit', () => {
    const d = onFirst();
    d.key('c');
    d.send({ type: 'paste', text: 'z'.repeat(5000) });
    expect(d.model.mode).toMatchObject({ name: 'comment' });
    expect((d.model.mode as { text: string }).text).toHaveLength(4000);
  });
});

describe('keys typed ahead act only on the event that was on screen', () => {
  it('a key tagged with the event before (or the loading screen) is dropped; one tagged with the event on screen acts', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.loaded(1, 'PENDING_REVIEW');
    // `s` skips e1; e2 opens at once (it was fetched ahead), but the frame still shows e1.
    d.send({ type: 'key', text: 's', key: { name: 's', sequence: 's' }, shown: 'e1' });
    expect(d.model.current?.id).toBe('e2');
    d.send({ type: 'key', text: 'e', key: { name: 'e', sequence: 'e' }, shown: 'e1' });
    expect(d.model.mode.name).toBe('keys');
    d.send({ type: 'key', text: 'e', key: { name: 'e', sequence: 'e' }, shown: null });
    expect(d.model.mode.name).toBe('keys');
    d.send({ type: 'paste', text: 'x', shown: 'e1' });
    expect(d.model.current?.notice).toBeNull();
    d.send({ type: 'key', text: 'e', key: { name: 'e', sequence: 'e' }, shown: 'e2' });
    expect(d.model.mode).toMatchObject({ name: 'comment', action: 'escalate' });
  });

  it('Ctrl-C acts whatever was on screen', () => {
    const d = new Driver(['e1']);
    d.send({ type: 'start' });
    d.open(0);
    d.send({ type: 'key', text: '\x03', key: { name: 'c', ctrl: true }, shown: null });
    expect(d.model.mode.name).toBe('done');
  });
});

describe('a window too small for the event and its keys', () => {
  /** An event with items and alerts, as the sandbox scores one in review. */
  function small(width: number, height: number): Driver {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    const items = [1, 2, 3].map((i) => ({
      itemId: `i${i}`,
      itemName: `Item ${i}`,
      itemQuantity: 1,
      itemPrice: 100 * i,
    }));
    const alerts = ['HIGH', 'MEDIUM', 'LOW'].map((severity, i) => ({
      ruleId: `rule-${i}`,
      severity,
      score: 30 - i,
      description: 'a rule that fired',
    }));
    d.send({
      type: 'loaded',
      index: 0,
      summary: { ...summary('e1', 'PENDING_REVIEW'), amount: 1500, currency: 'EUR', items },
      assessment: { ...assessment('e1'), alerts },
      assessmentProblem: null,
    });
    d.send({ type: 'claimed', id: 'e1', summary: null, requestId: 'r' });
    d.send({ type: 'resize', width, height });
    return d;
  }

  it.each([
    [80, 12],
    [45, 11],
    [40, 10],
    [30, 30],
  ])('at %i×%i no decision key is taken; q still quits and gives the claim back', (width, height) => {
    const d = small(width, height);
    for (const k of ['a', 'd', 'e', 'f', 'c', 's', 'v', '?']) expect(d.key(k)).toEqual([]);
    expect(d.model.mode.name).toBe('keys');
    expect(d.send({ type: 'paste', text: 'a' })).toEqual([]);
    expect(ofType(d.key('q'), 'release')).toEqual([{ type: 'release', id: 'e1', action: 'release' }]);
    expect(d.model.mode.name).toBe('done');
  });

  it('once resized back, the keys act again', () => {
    const d = small(80, 12);
    d.send({ type: 'resize', width: 80, height: 24 });
    d.key('a');
    expect(d.model.mode).toMatchObject({ name: 'comment', action: 'approve' });
  });
});

describe('a log that cannot be written: no action it cannot show, the session ends, claims are given back', () => {
  const FULL = 'cannot write review.log: no space left on its disk (ENOSPC)';

  it('each change and each give-back has its line before it is sent', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('a');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'APPROVED'), requestId: 'r1' });
    d.open(1);
    const effects = d.key('s');
    expect(effects.map((e) => (e.type === 'log' ? `log ${e.entry.action} ${e.entry.outcome}` : e.type))).toEqual([
      'log skip sending',
      'release',
    ]);
    expect(d.logs(true)).toEqual([
      'e1 claim PENDING_REVIEW→IN_REVIEW ok',
      'e1 approve IN_REVIEW→APPROVED sending',
      'e1 approve IN_REVIEW→APPROVED ok',
      'e2 claim PENDING_REVIEW→IN_REVIEW ok',
      'e2 skip IN_REVIEW→PENDING_REVIEW sending',
    ]);
  });

  it('a decision whose line could not be written is not sent: the session ends with the problem, the event given back, listed as not sent', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('d');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    const effects = d.send({ type: 'logFailed', message: FULL, notSent: { id: 'e1', what: 'patch' } });
    expect(d.model.mode.name).toBe('done');
    expect(d.model.fatal).toEqual({ message: FULL, exitCode: 1 });
    expect(d.model.logProblem).toBe(FULL);
    expect(ofType(effects, 'release')).toEqual([{ type: 'release', id: 'e1', action: 'release' }]);
    expect(ofType(effects, 'patch')).toEqual([]);
    expect(groupsOf(d.model)).toMatchObject({ notSent: ['e1'], declined: [], notReached: ['e2'] });
  });

  it('a claim whose line could not be written was not sent: nothing to give back, and a decision waiting on it is not sent', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.loaded(0, 'PENDING_REVIEW');
    d.key('a');
    d.enter();
    expect(d.model.mode).toMatchObject({ name: 'sending', sending: { phase: 'waitClaim' } });
    const effects = d.send({ type: 'logFailed', message: FULL, notSent: { id: 'e1', what: 'claim' } });
    expect(d.model.mode.name).toBe('done');
    expect(effects).toEqual([]);
    expect(groupsOf(d.model)).toMatchObject({ notSent: ['e1'], givenBack: [] });
  });

  it('an outcome line that fails while a change is being sent: the change finishes, then the session ends and gives the event back', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('e');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    d.send({ type: 'logFailed', message: FULL, hint: 'free some space and try again' });
    expect(d.model.mode.name).toBe('sending');
    const effects = d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'ESCALATED'), requestId: 'r1' });
    expect(d.model.mode.name).toBe('done');
    // The run ends with the writer's words and what to do about it, as every other command's.
    expect(d.model.fatal).toEqual({ message: FULL, hint: 'free some space and try again', exitCode: 1 });
    expect(ofType(effects, 'patch')).toEqual([]);
    expect(groupsOf(d.model)).toMatchObject({ escalated: ['e1'], notReached: ['e2'] });
  });
});

describe('every claim is given back, even when the key is refused on the way to the next event', () => {
  it('s on a claimed event whose next event’s fetch was refused for the key: e1 is given back, then the session stops', () => {
    const d = new Driver(['e1', 'e2']);
    d.send({ type: 'start' });
    d.open(0);
    d.send({ type: 'loadFailed', index: 1, failure: answered(401, 'the service did not accept the API key', null) });
    const effects = d.key('s');
    expect(ofType(effects, 'release')).toEqual([{ type: 'release', id: 'e1', action: 'skip' }]);
    expect(d.logs(true)).toContain('e1 skip IN_REVIEW→PENDING_REVIEW sending');
    expect(d.model.mode.name).toBe('done');
    expect(d.model.fatal).toMatchObject({ exitCode: 3 });
  });

  it('a decision sent, and the next event’s fetch refused for the key: nothing is fetched with that key any more', () => {
    const d = new Driver(['e1', 'e2', 'e3']);
    d.send({ type: 'start' });
    d.open(0);
    d.send({ type: 'loadFailed', index: 1, failure: answered(403, 'forbidden', null) });
    d.key('a');
    d.enter();
    d.send({ type: 'reread', id: 'e1', summary: summary('e1', 'IN_REVIEW') });
    const effects = d.send({ type: 'patched', id: 'e1', summary: summary('e1', 'APPROVED'), requestId: 'r' });
    expect(ofType(effects, 'load')).toEqual([]);
    expect(d.logs()).toContain('e1 approve IN_REVIEW→APPROVED ok');
    expect(d.model.fatal).toMatchObject({ exitCode: 3 });
  });
});

describe('the view’s page is the model’s', () => {
  it('a page of v follows the window: after a resize, space scrolls by the new page', () => {
    const d = new Driver(['e1']);
    d.send({ type: 'start' });
    d.open(0);
    d.key('v');
    d.send({ type: 'viewReady', id: 'e1', lines: Array.from({ length: 100 }, (_, i) => `line ${i}`) });
    expect(d.model.mode).toMatchObject({ name: 'view', page: 22 });
    d.send({ type: 'resize', width: 80, height: 40 });
    expect(d.model.mode).toMatchObject({ name: 'view', page: 38 });
    d.send({ type: 'key', text: ' ', key: { name: 'space' } });
    expect(d.model.mode).toMatchObject({ scroll: 38 });
    // Resized while ? is over the view: the view it goes back to has the new page.
    d.key('?');
    d.send({ type: 'resize', width: 80, height: 24 });
    d.key('x');
    expect(d.model.mode).toMatchObject({ name: 'view', page: 22 });
  });
});
