import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, type RetryPolicy } from '../../src/api/retry-policy.js';

const NOW = Date.parse('2030-01-01T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds as milliseconds', () => {
    expect(parseRetryAfter('2', NOW)).toBe(2000);
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
  });

  it('reads an HTTP date as the time left until it', () => {
    expect(parseRetryAfter('Tue, 01 Jan 2030 12:00:30 GMT', NOW)).toBe(30_000);
  });

  it('treats an HTTP date in the past as "now", never a negative wait', () => {
    expect(parseRetryAfter('Tue, 01 Jan 2030 11:59:00 GMT', NOW)).toBe(0);
  });

  it('uses the first value when the header came several times', () => {
    expect(parseRetryAfter(['3', '60'], NOW)).toBe(3000);
  });

  it.each([undefined, '', 'soon', '5s', 'tomorrow', 'NaN'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  const policy: RetryPolicy = { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 1000 };

  it('is full jitter: a random share of base·2^(n-1)', () => {
    expect(backoffDelay(policy, 1, undefined, () => 0.5)).toBe(50);
    expect(backoffDelay(policy, 2, undefined, () => 0.5)).toBe(100);
    expect(backoffDelay(policy, 3, undefined, () => 0.5)).toBe(200);
    expect(backoffDelay(policy, 1, undefined, () => 0)).toBe(0);
  });

  it('is capped by maxDelayMs however many attempts', () => {
    expect(backoffDelay(policy, 10, undefined, () => 0.999)).toBeCloseTo(999);
    expect(backoffDelay(policy, 60, undefined, () => 0.5)).toBe(500);
  });

  it('always lies within [0, min(max, base·2^(n-1))]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, baseDelayMs, maxDelayMs, r) => {
          const p = { ...policy, baseDelayMs, maxDelayMs };
          const wait = backoffDelay(p, attempt, undefined, () => r);
          expect(wait).toBeGreaterThanOrEqual(0);
          expect(wait).toBeLessThanOrEqual(Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));
        },
      ),
    );
  });

  it('never waits less than the Retry-After the server asked for', () => {
    expect(backoffDelay(policy, 1, 2000, () => 0.5)).toBe(2000);
    expect(backoffDelay(policy, 1, 2000, () => 0)).toBe(2000);
  });

  it('keeps the jittered wait when it is longer than Retry-After', () => {
    expect(backoffDelay(policy, 4, 10, () => 0.5)).toBe(400);
  });

  it('waits a long Retry-After in full (the deadline, not a clamp, bounds it): never less, and no more than the jitter allows beyond it', () => {
    expect(backoffDelay(policy, 1, 3_600_000, () => 0.5)).toBe(3_600_000);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, retryAfter, r) => {
          const wait = backoffDelay(policy, attempt, retryAfter, () => r);
          expect(wait).toBeGreaterThanOrEqual(retryAfter);
          expect(wait).toBeLessThanOrEqual(Math.max(policy.maxDelayMs, retryAfter));
        },
      ),
    );
  });
});
