import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestControl } from '../api/api-client.js';
import { RetryBudget, type RetryKind } from '../api/retry-budget.js';

/*
 * What all lines of a batch share, handed to the API client as its RequestControl:
 * - the pace: with --rate N, attempts are spaced 1/N s apart across the batch;
 * - a pause: a 429 or 503 with Retry-After holds every attempt of the batch until then, so a
 *   service that asks for air gets it from the whole batch, not from one line;
 * - the retry budget (AWS standard mode), so an outage cannot turn into a retry storm.
 *
 * The pacing is written here rather than taken from a queue library (p-queue, bottleneck):
 * those pace the start of tasks in fixed windows, while the batch must pace every attempt —
 * retries included — and fold the server's Retry-After into the same schedule; with the pool
 * of workers in run-batch.ts that is one timestamp.
 */

export class BatchControl implements RequestControl {
  readonly budget = new RetryBudget();
  /** 429/503 answers seen, for the summary. */
  throttled = 0;
  private readonly intervalMs: number;
  private nextSlot = 0;
  private pausedUntil = 0;

  constructor(rate: number | null) {
    this.intervalMs = rate ? 1000 / rate : 0;
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

  allowRetry(kind: RetryKind): number | false {
    return this.budget.acquire(kind);
  }

  onThrottle(retryAfterMs: number | undefined): void {
    this.throttled++;
    if (retryAfterMs !== undefined && retryAfterMs > 0) this.pausedUntil = Math.max(this.pausedUntil, performance.now() + retryAfterMs);
  }

  onSettled(retryCost: number): void {
    this.budget.succeeded(retryCost);
  }
}
