import { describe, expect, it } from 'vitest';
import type { ChangeResult } from '../../src/results-file/change-result.js';
import { ChangeStats, changeSummaryText, planText } from '../../src/state-changes/change-summary.js';

/*
 * Ids settle in the order their requests complete, which no run repeats: the plan and the summary
 * must read the same whatever that order was.
 */

function result(
  id: string,
  outcome: ChangeResult['outcome'],
  from: string,
  reason: string | null = null,
): ChangeResult {
  const rest = { errorType: null, errorCodes: [], requestId: null, item: 1, where: 'argument 1', reasonCode: null };
  return { id, from, to: 'DECLINED', outcome, reason, status: null, ...rest } as ChangeResult;
}

const results = [
  result('a', 'PLANNED', 'PENDING_REVIEW'),
  result('b', 'PLANNED', 'ESCALATED'),
  result('c', 'SKIPPED', 'FRAUD_CONFIRMED', 'FRAUD_CONFIRMED → DECLINED is not allowed'),
  result('d', 'SKIPPED', 'DECLINED', 'already DECLINED'),
  result('e', 'PLANNED', 'PENDING_REVIEW'),
];

function plan(order: readonly ChangeResult[]): string {
  const stats = new ChangeStats();
  for (const r of order) stats.add(r);
  return planText(stats, 'DECLINED');
}

describe('the plan of a change of many events', () => {
  it('lists states and reasons most first, then by name, whatever order the ids settled in', () => {
    const forward = plan(results);
    expect(plan([...results].reverse())).toBe(forward);
    expect(forward).toMatch(/PENDING_REVIEW 2 · ESCALATED 1/);
    expect(forward).toMatch(/already DECLINED 1 · FRAUD_CONFIRMED → DECLINED is not allowed 1/);
  });
});

describe('the summary of a change of many events', () => {
  const summary = (outcomes: ChangeResult['outcome'][]) => {
    const stats = new ChangeStats();
    for (const [i, outcome] of outcomes.entries()) stats.add(result(`x${i}`, outcome, 'APPROVED'));
    return changeSummaryText({
      stats,
      target: 'DECLINED',
      stopped: null,
      results: null,
      retries: 0,
      throttled: 0,
      logProblem: null,
    }).split('\n')[0];
  };
  it('says "1 id" for one and "2 ids" for two', () => {
    expect(summary(['CHANGED'])).toMatch(/^Set-state done: 1 id in /);
    expect(summary(['CHANGED', 'CHANGED'])).toMatch(/^Set-state done: 2 ids in /);
  });
});
