/*
 * A retry budget shared by every request of a batch, as the AWS SDKs' "standard" retry mode
 * keeps one: a bucket of tokens that each retry draws from and each success refills. While the
 * service is healthy the bucket stays full; in an outage it empties after a bounded number of
 * retries, and from then on failures are final at once instead of multiplying the load.
 *
 * Written here because it is a counter with three rules; no maintained package offers the
 * AWS token-bucket semantics apart from the AWS SDK itself.
 */

export interface RetryBudgetOptions {
  /** Tokens in a full bucket (AWS: 500). */
  capacity: number;
  /** Cost of a retry after an error or throttle (AWS: 5). */
  retryCost: number;
  /** Cost of a retry after a timeout (AWS: 10): a slow service is the one to spare most. */
  timeoutCost: number;
  /** Refill for a request that succeeded without a retry (AWS: 1). */
  successRefill: number;
}

export const DEFAULT_RETRY_BUDGET: RetryBudgetOptions = {
  capacity: 500,
  retryCost: 5,
  timeoutCost: 10,
  successRefill: 1,
};

export type RetryKind = 'error' | 'timeout';

export class RetryBudget {
  private tokens: number;
  private spentValue = false;
  /** Retries granted so far, for the summary. */
  granted = 0;

  constructor(private readonly options: RetryBudgetOptions = DEFAULT_RETRY_BUDGET) {
    this.tokens = options.capacity;
  }

  /** Takes the cost of one retry; false (and the budget is marked spent) when the bucket cannot pay it. */
  acquire(kind: RetryKind): number | false {
    const cost = kind === 'timeout' ? this.options.timeoutCost : this.options.retryCost;
    if (this.tokens < cost) {
      this.spentValue = true;
      return false;
    }
    this.tokens -= cost;
    this.granted++;
    return cost;
  }

  /** A request succeeded: give back what its retries took, or a small refill when it needed none. */
  succeeded(retryCostPaid: number): void {
    this.tokens = Math.min(
      this.options.capacity,
      this.tokens + (retryCostPaid > 0 ? retryCostPaid : this.options.successRefill),
    );
  }

  /** True once a retry was refused for want of tokens. */
  get spent(): boolean {
    return this.spentValue;
  }

  get available(): number {
    return this.tokens;
  }
}
