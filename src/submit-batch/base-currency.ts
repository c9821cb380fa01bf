import { baseCurrencyOf } from '../contract/currency.js';
import type { LineResult } from '../results-file/submit-result.js';

/*
 * The service's base currency, learned once per batch so that a results line holds what
 * `evaluate` needs without a request: the contract's POST answer has no amount in the base
 * currency, but an event summary names the base currency, and an event sent in it has its amount
 * as its base amount. After the first DECIDED answer, one GET /event/{id} of that event (one
 * attempt, no retry); every DECIDED line waits for that read before it is written (one round trip
 * at the start of the run), then gets `baseCurrency` and, in that currency, `amountInBaseCurrency`.
 * A read that fails in any way (404, 5xx, a refused key, the network) or names no code is "not
 * learned": the lines are written as they would have been, and nothing is said. It never stops
 * the run: a refused key stops it through the POSTs, as before.
 */

export class BaseCurrencyLearner {
  /** The one read: started by the first DECIDED line with an id; null until then. */
  private learning: Promise<string | null> | null = null;
  /** What it came to, once it has: the code, or null (not learned). */
  private learned: string | null | undefined;

  /** `read(id)`: the summary of that event, one request (its failure only means "not learned"). */
  constructor(private readonly read: (id: string) => Promise<{ body: unknown }>) {}

  /** The result as it is written: at once, or once the one read is done when the line is DECIDED. */
  complete(result: LineResult): LineResult | Promise<LineResult> {
    if (result.outcome !== 'DECIDED') return result;
    if (this.learned !== undefined) return withBase(result, this.learned);
    if (this.learning === null) {
      if (result.id === null) return result;
      this.learning = this.read(result.id).then(
        ({ body }) => (this.learned = baseCurrencyOf(body)),
        () => (this.learned = null),
      );
    }
    return this.learning.then((code) => withBase(result, code));
  }
}

/**
 * The line given the base currency, and the payload's amount as its base amount when sent in it
 * (an answer's own stays). In place: the result is the line's own, and a copy per line is garbage.
 */
function withBase(result: LineResult, code: string | null): LineResult {
  if (code === null) return result;
  result.baseCurrency = code;
  if (result.currency === code && typeof result.amount === 'number') result.amountInBaseCurrency ??= result.amount;
  return result;
}
