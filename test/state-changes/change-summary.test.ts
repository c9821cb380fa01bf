import { describe, expect, it } from 'vitest';
import {
  ApiError,
  BadResponseError,
  failureFields,
  NetworkError,
  NotTheServiceError,
} from '../../src/api/api-error.js';
import { classifyFailure } from '../../src/failures/failure-kind.js';
import type { ChangeResult } from '../../src/results-file/change-result.js';
import { ChangeStats, changeSummaryText, exitCodeOfResult, planText } from '../../src/state-changes/change-summary.js';

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

describe('the exit code a failed id comes to', () => {
  const patch = { method: 'PATCH', eventId: 'e-1' } as const;
  const on = <E extends { operation?: unknown }>(error: E) => Object.assign(error, { operation: patch });
  const foreign = on(new ApiError('answered 405', 405, null, [], null));
  foreign.notTheService = new NotTheServiceError('answered 405, not the service', 405, 'text/plain: "x"');
  const calls: [string, Error][] = [
    ...[401, 403, 408, 429, 500, 502, 503, 504].map((s): [string, Error] => [
      `${s}`,
      on(new ApiError(`answered ${s}`, s, 'T', [], 'r-1')),
    ]),
    ...(['refused', 'dns', 'tls', 'timeout', 'reset', 'connect-timeout', 'budget'] as const).map(
      (f): [string, Error] => [f, on(new NetworkError(f, f, f === 'timeout'))],
    ),
    ['a 404 not the service’s', on(new NotTheServiceError('answered 404 with a page', 404, 'an HTML page'))],
    ['a 405 not the service’s', foreign],
    ['an unreadable 2xx', on(new BadResponseError('not JSON'))],
  ];

  // Its result line keeps what failureFields keeps of the call; the code is the one classifyFailure gave the call.
  it.each(calls)('%s: the code of its failure, as one event’s set-state exits with', (_what, error) => {
    const failure = classifyFailure(error);
    const { message, ...fields } = failureFields(failure.error);
    const failed = { ...result('e-1', 'FAILED', 'PENDING_REVIEW', message), ...fields };
    expect(exitCodeOfResult(failed)).toBe(failure.exitCode);
  });
});
