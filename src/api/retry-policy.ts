/*
 * When to try a request again, and how long to wait first: full-jitter exponential backoff
 * (a random wait between 0 and min(cap, base·2^attempt)), never shorter than the server's
 * Retry-After, in full (a wait cut short would send again before the service asked), and never
 * past the caller's deadline: a Retry-After beyond it ends the call at once (api-client.ts).
 *
 * Written here rather than taken from a retry package because it has to honour Retry-After
 * per response and share the request's single deadline, which p-retry and undici's
 * RetryHandler (no jitter) do not offer together; it is a few lines.
 */

export interface RetryPolicy {
  /** Retries after the first attempt (0: no retry). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 200, maxDelayMs: 5_000 };

/** Statuses that mean "not processed, come back later": safe to retry for any method; they throttle a batch. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * 408: the server did not receive the whole request in time (RFC 9110 §15.5.9), so nothing was
 * processed: safe to send again for any method, as got and ky do. It says nothing of the
 * service's load (a slow link, a proxy), so it does not throttle a batch and has no Retry-After.
 */
export const NOT_RECEIVED_STATUSES: ReadonlySet<number> = new Set([408]);

/** A gateway gave up (502, 504): the request may have been processed, so only GETs are retried (a repeated PATCH could be refused as a transition already made). */
export const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 504]);

/** Retry-After in milliseconds (delta-seconds or an HTTP date, read against the wall clock `now`, as the server wrote it), or undefined. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  // An HTTP date ("Wed, 21 Oct 2026 07:28:00 GMT"); Date.parse alone would read junk like "-1" as a year.
  if (!/GMT\s*$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait before retry number `attempt` (1 for the first retry). */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  random = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = random() * ceiling;
  return retryAfterMs === undefined ? jittered : Math.max(jittered, retryAfterMs);
}
