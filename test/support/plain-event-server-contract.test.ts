import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent } from './batch-events.js';
import { expectError, expectShape } from './contract-validator.js';
import { REVIEW_EXAMPLE } from './event-fixtures.js';
import { startPlainEventServer, type PlainServer } from './plain-event-server.js';
import { send } from './sandbox.js';

/*
 * The plain event server stands in for the service, so a test that passes against it must hold
 * against what the service may say: every answer it gives (a decision, a summary, a risk
 * assessment, each error and each fault's answer) is a body the contract's schemas allow, with
 * X-Request-Id equal to its requestId. Its states may be ones this build does not know (PENDING),
 * as the contract allows a service's; `htmlNotFound` is left out: it stands for a proxy's page.
 */

const KEY = 'plain-key';
let plain: PlainServer;
let faulty: PlainServer;
beforeAll(async () => {
  [plain, faulty] = await Promise.all([
    startPlainEventServer({ key: KEY, throttleFirstPost: { 'throttled-1': 0 } }),
    startPlainEventServer({ key: KEY, faults: { unavailable: 0.3, timeoutAfter: 0.3 }, seed: 3 }),
  ]);
});
afterAll(() => Promise.all([plain.close(), faulty.close()]));

const call = (server: PlainServer, method: string, path: string, options: Parameters<typeof send>[3] = {}) =>
  send(server.url, method, path, { key: KEY, ...options });

/** The decision, the summary and the risk assessment of `event`, each checked against its schema. */
async function expectContractAnswers(event: Record<string, unknown>): Promise<void> {
  const posted = await call(plain, 'POST', '/event', { body: event });
  expect(posted.status, posted.text).toBe(201);
  expectShape('decision', posted.json);
  const path = `/event/${encodeURIComponent((posted.json as { id: string }).id)}`;
  const summary = await call(plain, 'GET', path);
  expect(summary.status).toBe(200);
  expectShape('summary', summary.json);
  const assessment = await call(plain, 'GET', `${path}/risk-assessment`);
  expect(assessment.status).toBe(200);
  expectShape('assessment', assessment.json);
}

describe('the plain event server answers what the contract allows', () => {
  it.each([
    ['APPROVE', { id: 'c-approve', amount: 20, currency: 'EUR' }],
    ['REVIEW', { id: 'c-review', amount: 700, currency: 'EUR' }],
    ['DECLINE', { id: 'c-decline', amount: 5000, currency: 'EUR' }],
    ['a batch line', makeEvent('c-batch', 3)],
    ['the review example', { ...REVIEW_EXAMPLE, id: 'c-example' }],
    ['no id: one of its own', { amount: 10 }],
    ['fields of the wrong type', { id: 'c-odd', amount: 10, currency: 7, userEmail: ['x'], eventDate: false }],
  ])('%s: the decision, the summary and the risk assessment', async (_name, event) => {
    await expectContractAnswers(event);
  });

  it('an event whose eventDate the contract does not allow is refused in the error shape, or summarised without it', async () => {
    const posted = await call(plain, 'POST', '/event', {
      body: { id: 'c-date', amount: 10, eventDate: '20 Nov 2026, 9:14' },
    });
    if (posted.status === 201) {
      const summary = await call(plain, 'GET', '/event/c-date');
      expectShape('summary', summary.json);
    } else {
      expectError(posted, 422, 'VALIDATION_ERROR');
    }
  });

  it.each([
    ['no key', 'GET', '/event/c-approve', { key: null }, 401, 'UNAUTHORIZED', ['API_KEY_MISSING']],
    ['a wrong key', 'GET', '/event/c-approve', { key: 'other' }, 401, 'UNAUTHORIZED', ['API_KEY_INVALID']],
    ['no such route', 'DELETE', '/event/c-approve', {}, 404, 'NOT_FOUND', ['ROUTE_NOT_FOUND']],
    ['no such event', 'GET', '/event/never-stored', {}, 404, 'NOT_FOUND', ['EVENT_NOT_FOUND']],
    ['an id that does not decode', 'GET', '/event/%E0%A4%A', {}, 400, 'BAD_REQUEST', ['BAD_URL']],
    ['a body that is not JSON', 'POST', '/event', { rawBody: '{"id":' }, 400, 'BAD_REQUEST', ['MALFORMED_JSON']],
    ['a body that is not an object', 'POST', '/event', { body: [1, 2] }, 400, 'BAD_REQUEST', ['NOT_AN_OBJECT']],
    [
      'a body over 1 MiB',
      'POST',
      '/event',
      { rawBody: JSON.stringify({ amount: 1, pad: 'x'.repeat(1024 * 1024) }) },
      413,
      'PAYLOAD_TOO_LARGE',
      ['BODY_TOO_LARGE'],
    ],
    ['no amount', 'POST', '/event', { body: { id: 'c-none' } }, 422, 'VALIDATION_ERROR', ['amount:REQUIRED']],
    [
      'a throttled first POST',
      'POST',
      '/event',
      { body: { id: 'throttled-1', amount: 1 } },
      503,
      'SERVICE_UNAVAILABLE',
      ['OVERLOADED'],
    ],
  ] as const)('%s: %s %s is the error shape', async (_name, method, path, options, status, errorType, codes) => {
    expectError(await call(plain, method, path, options), status, errorType, [...codes]);
  });

  it('its faults answer in the error shape too: 503 and 504, each with X-Request-Id', async () => {
    const seen = new Set<number>();
    for (let i = 1; i <= 40; i++) {
      const reply = await call(faulty, 'POST', '/event', { body: { id: `f-${i}`, amount: 10 } });
      seen.add(reply.status);
      if (reply.status === 201) expectShape('decision', reply.json);
      else if (reply.status === 503) expectError(reply, 503, 'SERVICE_UNAVAILABLE', ['OVERLOADED']);
      else expectError(reply, 504, 'SCORING_TIMEOUT', ['SCORING_TIMEOUT']);
    }
    expect([...seen].sort()).toEqual([201, 503, 504]);
  });
});
