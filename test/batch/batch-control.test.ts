import { describe, expect, it } from 'vitest';
import { BatchControl, THROTTLE_WINDOW } from '../../src/batch/batch-control.js';

/*
 * The batch's shared schedule. These check ordering and lower bounds (nothing is sent before
 * its time), and whether a promise has settled once everything runnable has run — not speed.
 */

/** Lets every timer-free continuation run (promise chains, semaphore hand-overs). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Tracks whether a promise has settled. */
function watch(promise: Promise<unknown>): { readonly done: boolean } {
  const state = { done: false };
  void promise.then(() => (state.done = true));
  return state;
}

function answers(control: BatchControl, statuses: number[]): void {
  for (const s of statuses) control.onAnswer(s);
}
const times = (n: number, status: number) => Array.from({ length: n }, () => status);

describe('BatchControl: one line throttled, or the batch', () => {
  it('one throttle among answers that are mostly not does not hold the batch, whatever its Retry-After', async () => {
    const control = new BatchControl(null, 4);
    answers(control, [...times(THROTTLE_WINDOW - 1, 201), 503]);
    control.onThrottle(60_000);
    expect(control.slowingDown).toBe(false);
    const attempt = watch(control.beforeAttempt());
    await settle();
    expect(attempt.done).toBe(true);
    expect(control.throttled).toBe(1);
  });

  it('reads "most answers are throttles" as at least half of the last 32: 15 are not, 16 are, and older answers drop out', () => {
    const control = new BatchControl(null, 4);
    answers(control, [...times(THROTTLE_WINDOW - 15, 201), ...times(15, 503)]);
    expect(control.slowingDown).toBe(false);
    control.onAnswer(429); // pushes out a 201: 16 of the last 32
    expect(control.slowingDown).toBe(true);
    // 16 good answers push out the other 201s; the 17th pushes out the oldest throttle.
    answers(control, times(16, 200));
    expect(control.slowingDown).toBe(true);
    control.onAnswer(200);
    expect(control.slowingDown).toBe(false);
  });

  it('recognises a service that throttles from the start after 16 answers, with the window not yet full', () => {
    const control = new BatchControl(null, 4);
    answers(control, times(15, 503));
    expect(control.slowingDown).toBe(false);
    control.onAnswer(503);
    expect(control.slowingDown).toBe(true);
  });

  it('when most answers are throttles, a Retry-After holds every attempt of the batch until it has passed', async () => {
    const control = new BatchControl(null, 4);
    answers(control, times(THROTTLE_WINDOW / 2, 503));
    const start = performance.now();
    control.onThrottle(150);
    const waited = await Promise.all(
      [1, 2, 3].map(async () => (await control.beforeAttempt(), performance.now() - start)),
    );
    for (const ms of waited) expect(ms).toBeGreaterThanOrEqual(145);
    expect(control.throttled).toBe(1);
  });

  it('a throttle without Retry-After (or 0) does not pause the batch, even when most answers are throttles', async () => {
    const control = new BatchControl(null, 4);
    answers(control, times(THROTTLE_WINDOW, 503));
    control.onThrottle(undefined);
    control.onThrottle(0);
    const attempt = watch(control.beforeAttempt());
    await settle();
    expect(attempt.done).toBe(true);
  });
});

describe('BatchControl: request slots', () => {
  it('a line waiting to retry frees its slot for a new line, and takes one back when its wait is over and a slot is free', async () => {
    const control = new BatchControl(null, 1);
    await control.takeSlot();
    expect(control.freeSlots).toBe(0);
    const wait = deferred();
    const retrying = watch(control.retryWait(wait.promise));
    expect(control.freeSlots).toBe(1);
    // The pool starts another line on the freed slot.
    const newLine = watch(control.takeSlot());
    await settle();
    expect(newLine.done).toBe(true);
    // The wait is over, but the slot is the new line's until it is done with it.
    wait.resolve();
    await settle();
    expect(retrying.done).toBe(false);
    control.releaseSlot();
    await settle();
    expect(retrying.done).toBe(true);
    expect(control.freeSlots).toBe(0);
  });

  it('a line back from its wait goes before a line not yet started', async () => {
    const control = new BatchControl(null, 2);
    await control.takeSlot(); // line A
    await control.takeSlot(); // line B
    const wait = deferred();
    const bRetrying = watch(control.retryWait(wait.promise));
    const c = watch(control.takeSlot()); // line C takes B's slot
    await settle();
    expect(c.done).toBe(true);
    const d = watch(control.takeSlot()); // the pool asks for a slot for line D first…
    wait.resolve(); // …then B's wait ends
    await settle();
    control.releaseSlot(); // A is done
    await settle();
    expect(bRetrying.done).toBe(true);
    expect(d.done).toBe(false);
  });

  it('when most answers are throttles, a line waiting to retry keeps its slot: no new lines are started', async () => {
    const control = new BatchControl(null, 1);
    answers(control, times(THROTTLE_WINDOW / 2, 503));
    await control.takeSlot();
    const wait = deferred();
    const retrying = watch(control.retryWait(wait.promise));
    const newLine = watch(control.takeSlot());
    await settle();
    expect(control.freeSlots).toBe(0);
    expect(newLine.done).toBe(false);
    wait.resolve();
    await settle();
    expect(retrying.done).toBe(true);
    expect(newLine.done).toBe(false);
  });
});

describe('BatchControl: pace and budget', () => {
  it('--rate spaces attempts 1/N s apart across all lines', async () => {
    const control = new BatchControl(50, 16);
    const start = performance.now();
    const times = await Promise.all(
      Array.from({ length: 10 }, async () => (await control.beforeAttempt(), performance.now() - start)),
    );
    times.sort((a, b) => a - b);
    // The 10th attempt is due 9 × 20 ms after the first.
    expect(times[9]).toBeGreaterThanOrEqual(175);
  });

  it('retries draw on the shared budget until it is spent', () => {
    const control = new BatchControl(null, 16);
    let granted = 0;
    while (control.allowRetry('error') !== false) granted++;
    expect(granted).toBe(100);
    expect(control.budget.spent).toBe(true);
  });
});
