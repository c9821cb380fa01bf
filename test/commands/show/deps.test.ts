import { afterEach, describe, expect, it, vi } from 'vitest';
import { showDeps } from '../../../src/commands/show/deps.js';
import { quietContext, sessionFor } from '../../support/room-deps.js';

/*
 * The real clock of show's deps, under vitest's fake timers: the watch's wait between checks
 * lasts its interval, and ends at once, without a rejection, when the watch is stopped.
 */

afterEach(() => {
  vi.useRealTimers();
});

describe("show's clock", () => {
  const clock = () => showDeps(quietContext(), sessionFor('http://127.0.0.1:9')).clock;

  it('a wait lasts its milliseconds', async () => {
    vi.useFakeTimers();
    let done = false;
    void clock()
      .sleep(5000, new AbortController().signal)
      .then(() => (done = true));
    await vi.advanceTimersByTimeAsync(4999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it('an abort ends it at once, resolved (the watch then sees its signal), and leaves no timer', async () => {
    vi.useFakeTimers();
    const abort = new AbortController();
    const waiting = clock().sleep(60_000, abort.signal);
    expect(vi.getTimerCount()).toBe(1);
    abort.abort();
    await expect(waiting).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
    // Stopped before it began: no wait at all.
    await expect(clock().sleep(60_000, abort.signal)).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
