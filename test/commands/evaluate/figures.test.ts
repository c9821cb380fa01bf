import { describe, expect, it } from 'vitest';
import type { ActionType } from '../../../src/contract/decision.js';
import type { EvaluatedEvent } from '../../../src/commands/evaluate/figures/evaluated-event.js';
import { decisionMatrix, matrixSummary } from '../../../src/commands/evaluate/figures/matrix.js';
import { ruleFigures } from '../../../src/commands/evaluate/figures/per-rule.js';
import { scoreSweep } from '../../../src/commands/evaluate/figures/sweep.js';
import { overTime, periodStart } from '../../../src/commands/evaluate/figures/over-time.js';
import { ShiftTally } from '../../../src/commands/evaluate/figures/replay.js';

/*
 * The figures of evaluate, as tables against cases computed by hand: a small book of events
 * with a known answer for every cell, a tie at a threshold, no fraud at all, every event
 * declined.
 */

let n = 0;
function event(
  actionType: ActionType,
  score: number,
  fraud: boolean,
  ruleIds: string[] = [],
  amount = 100,
  date = '2026-11-20T10:00:00Z',
): EvaluatedEvent {
  return { id: `e-${++n}`, actionType, score, fraud, ruleIds, amount, date: Date.parse(date) };
}

/*
 * The book:            decision  score  fraud  rules                amount
 *   a1                 APPROVE    0     no     -                    10
 *   a2                 APPROVE   20     yes    new_account          20
 *   r1                 REVIEW    30     no     amount               30
 *   r2                 REVIEW    50     yes    amount, country      40
 *   d1                 DECLINE   70     yes    amount, country      50
 *   d2                 DECLINE   90     no     amount, email        60
 */
const book = (): EvaluatedEvent[] => [
  event('APPROVE', 0, false, [], 10),
  event('APPROVE', 20, true, ['new_account'], 20),
  event('REVIEW', 30, false, ['amount'], 30),
  event('REVIEW', 50, true, ['amount', 'country'], 40),
  event('DECLINE', 70, true, ['amount', 'country'], 50),
  event('DECLINE', 90, false, ['amount', 'email'], 60),
];

describe('the decision × outcome matrix', () => {
  it('counts and sums each decision against fraud, no fraud reported and (declined) unknowable', () => {
    const m = decisionMatrix(book());
    expect(m).toEqual({
      APPROVE: { fraud: 1, legit: 1, unknown: 0, fraudAmount: 20, legitAmount: 10, unknownAmount: 0 },
      REVIEW: { fraud: 1, legit: 1, unknown: 0, fraudAmount: 40, legitAmount: 30, unknownAmount: 0 },
      // The declined event without a report is not "legit": no chargeback could come for it.
      DECLINE: { fraud: 1, legit: 0, unknown: 1, fraudAmount: 50, legitAmount: 0, unknownAmount: 60 },
    });
    expect(matrixSummary(m)).toEqual({
      events: 6,
      fraud: 3,
      fraudRate: 0.5,
      fraudDeclined: { count: 1, amount: 50 },
      fraudInReview: { count: 1, amount: 40 },
      fraudLetThrough: { count: 1, amount: 20 },
      declinedNotReported: { count: 1, amount: 60 },
      reviewLoad: { count: 2, share: 2 / 6 },
    });
  });

  it('with no event at all: zeros, and no rate (null, not 0)', () => {
    const s = matrixSummary(decisionMatrix([]));
    expect(s.fraudRate).toBeNull();
    expect(s.reviewLoad).toEqual({ count: 0, share: null });
  });
});

describe('per rule', () => {
  it('hits, fraud hits, precision over knowable outcomes, recall, the fraud only it caught, what it fires with', () => {
    const rules = ruleFigures(book(), ['unused']);
    const by = Object.fromEntries(rules.map((r) => [r.rule, r]));
    // amount: hits r1 (legit), r2 (fraud), d1 (fraud), d2 (unknown): precision 2 / (2 + 1); recall 2 / 3.
    expect(by.amount).toEqual({
      rule: 'amount',
      hits: 4,
      fraudHits: 2,
      legitHits: 1,
      unknownHits: 1,
      precision: 2 / 3,
      recall: 2 / 3,
      onlyRule: 0,
      fraudAmount: 90,
      firesWith: [
        { rule: 'country', count: 2 },
        { rule: 'email', count: 1 },
      ],
    });
    // new_account: a2 alone, fraud, and the only rule on it.
    expect(by.new_account).toMatchObject({
      hits: 1,
      fraudHits: 1,
      precision: 1,
      recall: 1 / 3,
      onlyRule: 1,
      firesWith: [],
    });
    // email: one hit, on a declined event without a report: no knowable outcome, so no precision.
    expect(by.email).toMatchObject({ hits: 1, fraudHits: 0, unknownHits: 1, precision: null, recall: 0 });
    // A candidate's rule that never fired is listed, with nothing to say of its precision.
    expect(by.unused).toMatchObject({ hits: 0, precision: null, recall: 0 });
    // Most fraud first.
    expect(rules.map((r) => r.rule)).toEqual(['amount', 'country', 'new_account', 'email', 'unused']);
  });

  it('with no fraud at all: recall is null for every rule (there was nothing to catch)', () => {
    const rules = ruleFigures([event('REVIEW', 40, false, ['amount']), event('APPROVE', 10, false, ['amount'])]);
    expect(rules).toEqual([
      expect.objectContaining({ rule: 'amount', hits: 2, fraudHits: 0, precision: 0, recall: null, onlyRule: 0 }),
    ]);
  });
});

describe('the score sweep', () => {
  const point = (t: number) => scoreSweep(book(), { review: 30, decline: 70 })[t]!;

  it('has every threshold 0–100, with the service’s two marked', () => {
    const sweep = scoreSweep(book(), { review: 30, decline: 70 });
    expect(sweep.map((p) => p.threshold)).toEqual(Array.from({ length: 101 }, (_, i) => i));
    expect(sweep.filter((p) => p.current !== null).map((p) => [p.threshold, p.current])).toEqual([
      [30, 'review'],
      [70, 'decline'],
    ]);
  });

  it('flags a score equal to the threshold (as the service does), exactly, at the tie and just above it', () => {
    // At 50: r2 (50, fraud), d1 (70, fraud), d2 (90, unknown). Precision 2 / 2 knowable; FPR 0 of 2 legit.
    expect(point(50)).toEqual({
      threshold: 50,
      flagged: 3,
      fraudFlagged: 2,
      legitFlagged: 0,
      unknownFlagged: 1,
      precision: 1,
      recall: 2 / 3,
      falsePositiveRate: 0,
      approvalRate: 3 / 6,
      fraudAmountCaught: 90,
      current: null,
    });
    // At 51 the tie is gone: r2 is no longer flagged.
    expect(point(51)).toMatchObject({ flagged: 2, fraudFlagged: 1, recall: 1 / 3, fraudAmountCaught: 50 });
    // At 30 (a tie with r1, legit): flagged r1, r2, d1, d2.
    expect(point(30)).toMatchObject({
      flagged: 4,
      fraudFlagged: 2,
      legitFlagged: 1,
      precision: 2 / 3,
      falsePositiveRate: 1 / 2,
      approvalRate: 2 / 6,
      current: 'review',
    });
    // At 0 every event is flagged; at 100 none is, and precision with nothing flagged is null, not 0.
    expect(point(0)).toMatchObject({ flagged: 6, recall: 1, falsePositiveRate: 1, approvalRate: 0 });
    expect(point(100)).toMatchObject({
      flagged: 0,
      precision: null,
      recall: 0,
      falsePositiveRate: 0,
      approvalRate: 1,
      fraudAmountCaught: 0,
    });
  });

  it('with no fraud at all: recall null everywhere, precision 0 where legit events are flagged', () => {
    const sweep = scoreSweep([event('APPROVE', 10, false), event('REVIEW', 40, false)], { review: 30, decline: 70 });
    expect(sweep.every((p) => p.recall === null)).toBe(true);
    expect(sweep[10]).toMatchObject({ flagged: 2, precision: 0, falsePositiveRate: 1 });
    expect(sweep[11]).toMatchObject({ flagged: 1, precision: 0, falsePositiveRate: 1 / 2 });
    expect(sweep[41]).toMatchObject({ flagged: 0, precision: null, falsePositiveRate: 0 });
  });

  it('with every event declined: no knowable "legit", no false-positive rate, precision from reported fraud', () => {
    const all = [
      event('DECLINE', 80, true, [], 10),
      event('DECLINE', 90, false, [], 20),
      event('DECLINE', 100, false, [], 30),
    ];
    const sweep = scoreSweep(all, { review: 30, decline: 70 });
    expect(sweep[70]).toEqual({
      threshold: 70,
      flagged: 3,
      fraudFlagged: 1,
      legitFlagged: 0,
      unknownFlagged: 2,
      precision: 1,
      recall: 1,
      falsePositiveRate: null,
      approvalRate: 0,
      fraudAmountCaught: 10,
      current: 'decline',
    });
    expect(decisionMatrix(all).DECLINE).toEqual({
      fraud: 1,
      legit: 0,
      unknown: 2,
      fraudAmount: 10,
      legitAmount: 0,
      unknownAmount: 50,
    });
  });
});

describe('over time', () => {
  it('per UTC day, with a day without events listed as zeros between the first and the last', () => {
    const events = [
      event('APPROVE', 0, false, [], 1, '2026-11-20T23:59:59Z'),
      event('DECLINE', 90, true, [], 1, '2026-11-20T00:00:00Z'),
      event('REVIEW', 40, false, [], 1, '2026-11-22T12:00:00Z'),
    ];
    expect(overTime(events, 'day')).toEqual([
      { start: '2026-11-20', events: 2, APPROVE: 1, REVIEW: 0, DECLINE: 1, fraud: 1, fraudRate: 0.5 },
      { start: '2026-11-21', events: 0, APPROVE: 0, REVIEW: 0, DECLINE: 0, fraud: 0, fraudRate: null },
      { start: '2026-11-22', events: 1, APPROVE: 0, REVIEW: 1, DECLINE: 0, fraud: 0, fraudRate: 0 },
    ]);
  });

  it('per ISO week, from Monday: Sunday 2026-11-22 is in the week of 2026-11-16, Monday 2026-11-23 starts one', () => {
    expect(new Date(periodStart(Date.parse('2026-11-22T23:00:00Z'), 'week')).toISOString().slice(0, 10)).toBe(
      '2026-11-16',
    );
    expect(new Date(periodStart(Date.parse('2026-11-23T00:00:00Z'), 'week')).toISOString().slice(0, 10)).toBe(
      '2026-11-23',
    );
    const weeks = overTime(
      [
        event('APPROVE', 0, false, [], 1, '2026-11-22T10:00:00Z'),
        event('APPROVE', 0, true, [], 1, '2026-11-23T10:00:00Z'),
      ],
      'week',
    );
    expect(weeks.map((w) => [w.start, w.events, w.fraud])).toEqual([
      ['2026-11-16', 1, 0],
      ['2026-11-23', 1, 1],
    ]);
  });
});

describe('the decision shift', () => {
  it('counts each event from today’s decision to the candidate’s, with its outcome and amount', () => {
    const tally = new ShiftTally();
    const [a1, a2, r1, r2, d1, d2] = book();
    tally.add(a1!, 'APPROVE');
    tally.add(a2!, 'REVIEW');
    tally.add(r1!, 'DECLINE');
    tally.add(r2!, 'DECLINE');
    tally.add(d1!, 'DECLINE');
    tally.add(d2!, 'REVIEW');
    expect(tally.changed).toBe(4);
    expect(tally.shift).toEqual({
      APPROVE: {
        APPROVE: { count: 1, fraud: 0, legit: 1, unknown: 0, amount: 10 },
        REVIEW: { count: 1, fraud: 1, legit: 0, unknown: 0, amount: 20 },
      },
      REVIEW: { DECLINE: { count: 2, fraud: 1, legit: 1, unknown: 0, amount: 70 } },
      DECLINE: {
        DECLINE: { count: 1, fraud: 1, legit: 0, unknown: 0, amount: 50 },
        REVIEW: { count: 1, fraud: 0, legit: 0, unknown: 1, amount: 60 },
      },
    });
  });
});
