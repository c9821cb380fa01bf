import type { RetryKind } from './retry-budget.js';

/**
 * How a batch steers the requests of all its lines at once. Without it, each call retries on
 * its own policy alone.
 */
export interface RequestControl {
  /** Awaited before every attempt: the batch's rate limit and any pause a 429/503 asked for. */
  beforeAttempt(): Promise<void>;
  /** Every HTTP answer an attempt got, retried or not: how the batch tells a throttled line from a throttled service. */
  onAnswer(status: number): void;
  /**
   * The call waits `wait` out (backoff, Retry-After) before its next attempt. A batch lets other
   * lines use this line's request slot meanwhile, and takes one back before resolving.
   */
  retryWait(wait: Promise<void>): Promise<void>;
  /** Asked before every retry: the cost taken from the shared budget, or false to give up now. */
  allowRetry(kind: RetryKind): number | false;
  /**
   * Asked before every retry, when present: false ends the call at once with its failure as it
   * is, not retried (the watch's first check on a terminal, which says so and checks again itself).
   */
  wantsRetries?(): boolean;
  /** A 429 or 503 arrived; `retryAfterMs` is the server's Retry-After as it came (the call itself never waits past its deadline). */
  onThrottle(retryAfterMs: number | undefined): void;
  /** The call ended with an answer that needs no retry; `retryCost` is what its retries took. */
  onSettled(retryCost: number): void;
}
