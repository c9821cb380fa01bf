import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { send, type TestSandbox } from './sandbox.js';

/*
 * Events in review, made through the service as a client makes them: the default rules put
 * 1500 EUR with no other field in review (PENDING_REVIEW); examples/review.json, the example a
 * user is shown, lands there too, with items, alerts and a list match. Batch inputs are in
 * batch-events.ts.
 */

/** examples/review.json, as read from the file. */
export const REVIEW_EXAMPLE = JSON.parse(
  readFileSync(new URL('../../examples/review.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** The smallest event the default rules put in review: `{ id, amount: 1500, currency: 'EUR', ...fields }`. */
export const inReview = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  amount: 1500,
  currency: 'EUR',
  ...fields,
});

/** examples/review.json under the id `id`, with `fields` on top. */
export const reviewExample = (id: string, fields: Record<string, unknown> = {}) => ({
  ...REVIEW_EXAMPLE,
  id,
  ...fields,
});

/** POSTs `event` to a sandbox (or the service at a URL) with the demo key and checks that it landed in review; its id. */
export async function postInReview(service: Pick<TestSandbox, 'url'> | string, event: { id: string }): Promise<string> {
  const res = await send(typeof service === 'string' ? service : service.url, 'POST', '/event', { body: event });
  expect((res.json as { state: string }).state).toBe('PENDING_REVIEW');
  return event.id;
}
