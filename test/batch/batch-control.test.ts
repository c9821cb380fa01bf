import { describe, expect, it } from 'vitest';
import { BatchControl } from '../../src/batch/batch-control.js';

/*
 * The batch's shared schedule. These check ordering and lower bounds (nothing is sent before
 * its time), not speed.
 */

describe('BatchControl', () => {
  it('a Retry-After from one answer holds every attempt of the batch until it has passed', async () => {
    const control = new BatchControl(null);
    const start = performance.now();
    control.onThrottle(150);
    const waited = await Promise.all([1, 2, 3].map(async () => (await control.beforeAttempt(), performance.now() - start)));
    for (const ms of waited) expect(ms).toBeGreaterThanOrEqual(145);
    expect(control.throttled).toBe(1);
  });

  it('a throttle without Retry-After (or 0) does not pause the batch', async () => {
    const control = new BatchControl(null);
    control.onThrottle(undefined);
    control.onThrottle(0);
    const start = performance.now();
    await control.beforeAttempt();
    expect(performance.now() - start).toBeLessThan(50);
  });

  it('--rate spaces attempts 1/N s apart across all workers', async () => {
    const control = new BatchControl(50);
    const start = performance.now();
    const times = await Promise.all(Array.from({ length: 10 }, async () => (await control.beforeAttempt(), performance.now() - start)));
    times.sort((a, b) => a - b);
    // The 10th attempt is due 9 × 20 ms after the first.
    expect(times[9]).toBeGreaterThanOrEqual(175);
  });

  it('retries draw on the shared budget until it is spent', () => {
    const control = new BatchControl(null);
    let granted = 0;
    while (control.allowRetry('error') !== false) granted++;
    expect(granted).toBe(100);
    expect(control.budget.spent).toBe(true);
  });
});
