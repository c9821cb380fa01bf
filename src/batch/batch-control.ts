import { setTimeout as sleep } from 'node:timers/promises';
import { Semaphore } from 'async-mutex';
import type { RequestControl } from '../api/api-client.js';
import { RetryBudget, type RetryKind } from '../api/retry-budget.js';
import { RETRYABLE_STATUSES } from '../api/retry-policy.js';

/*
 * What all lines of a batch share, handed to the API client as its RequestControl:
 * - the request slots: --concurrency N lines may be sending at once. A line holds a slot from
 *   the moment the pool takes it until its result is written, except while it waits out a
 *   backoff or a Retry-After: then the slot is free for other lines, so one line's 503 delays
 *   that line only. A line back from its wait goes before lines not yet started.
 * - the pace: with --rate N, attempts are spaced 1/N s apart across the batch;
 * - the batch-wide slowdown: when most recent answers are throttles (at least half of the last
 *   THROTTLE_WINDOW), the service is asking the whole batch for air, as gRPC's retry throttling
 *   and the AWS SDKs' adaptive mode read it. Then a Retry-After holds every attempt of the batch
 *   until it has passed, and a waiting line keeps its slot, so no new lines are started either;
 * - the retry budget (AWS standard mode), so an outage cannot turn into a retry storm.
 *
 * The pacing is written here rather than taken from a queue library (p-queue, bottleneck):
 * those pace the start of tasks in fixed windows, while the batch must pace every attempt —
 * retries included — and fold the server's Retry-After into the same schedule; that is one
 * timestamp. The slots are async-mutex's Semaphore (maintained, typed, no dependencies): it
 * has the waiting queue with priorities that lets a line back from its wait go first, which is
 * the part worth not writing again.
 */

/** Answers remembered to tell one line's throttle from a service that throttles the batch. */
export const THROTTLE_WINDOW = 32;

/**
 * The longest a Retry-After pauses the whole batch. The line that got it waits it out in full,
 * or ends with its answer when the wait would pass its --timeout (api-client.ts); other lines
 * are not held longer than this by a service that asks for hours.
 */
export const MAX_BATCH_PAUSE_MS = 30_000;

/** Priority of a line back from a wait over the pool starting a new line. */
const RESUMING = 1;

export class BatchControl implements RequestControl {
  readonly budget = new RetryBudget();
  /** 429/503 answers seen, for the summary. */
  throttled = 0;
  private readonly intervalMs: number;
  private readonly slots: Semaphore;
  private nextSlot = 0;
  private pausedUntil = 0;
  /** The last THROTTLE_WINDOW answers, 1 for a throttle, as a ring. */
  private readonly recent = new Uint8Array(THROTTLE_WINDOW);
  private recentNext = 0;
  private recentThrottles = 0;

  constructor(rate: number | null, concurrency: number) {
    this.intervalMs = rate ? 1000 / rate : 0;
    this.slots = new Semaphore(concurrency);
  }

  /** True while at least half of the last THROTTLE_WINDOW answers were 429/503 (fewer answers count as not throttled). */
  get slowingDown(): boolean {
    return this.recentThrottles * 2 >= THROTTLE_WINDOW;
  }

  /** Request slots free now (for tests and the pool's view). */
  get freeSlots(): number {
    return this.slots.getValue();
  }

  /** The pool takes a slot for a line before reading it, and gives it back once its result is written. */
  async takeSlot(): Promise<void> {
    await this.slots.acquire();
  }

  releaseSlot(): void {
    this.slots.release();
  }

  async beforeAttempt(): Promise<void> {
    for (;;) {
      const now = performance.now();
      if (this.pausedUntil > now) {
        await sleep(this.pausedUntil - now);
        continue;
      }
      if (this.intervalMs === 0) return;
      const slot = Math.max(now, this.nextSlot);
      this.nextSlot = slot + this.intervalMs;
      // Under a millisecond early is close enough: timers cannot wait less.
      if (slot - now >= 1) await sleep(slot - now);
      return;
    }
  }

  onAnswer(status: number): void {
    const throttle = RETRYABLE_STATUSES.has(status) ? 1 : 0;
    this.recentThrottles += throttle - this.recent[this.recentNext]!;
    this.recent[this.recentNext] = throttle;
    this.recentNext = (this.recentNext + 1) % THROTTLE_WINDOW;
  }

  async retryWait(wait: Promise<void>): Promise<void> {
    // A service throttling most requests gets the old, whole-batch behaviour: the slot stays taken.
    if (this.slowingDown) return wait;
    this.slots.release();
    try {
      await wait;
    } finally {
      await this.slots.acquire(1, RESUMING);
    }
  }

  allowRetry(kind: RetryKind): number | false {
    return this.budget.acquire(kind);
  }

  onThrottle(retryAfterMs: number | undefined): void {
    this.throttled++;
    if (retryAfterMs !== undefined && retryAfterMs > 0 && this.slowingDown)
      this.pausedUntil = Math.max(this.pausedUntil, performance.now() + Math.min(retryAfterMs, MAX_BATCH_PAUSE_MS));
  }

  onSettled(retryCost: number): void {
    this.budget.succeeded(retryCost);
  }
}
