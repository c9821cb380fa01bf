import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_STATES, TRANSITIONS, type Decision, type EventSummary } from '../../../src/contract/index.js';
import { startTestSandbox, writeConfig, type TestSandbox } from '../../support/sandbox.js';
import { expectError, expectShape } from '../../support/contract-validator.js';

const example = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../examples/${name}.json`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
const minimal = (id: string, extra: Record<string, unknown> = {}) => ({ id, amount: 10, currency: 'EUR', ...extra });

let sb: TestSandbox;
const OTHER_KEY = 'other-merchant-key-1234';
const BLOCKED_KEY = 'blocked-merchant-key-1234';

beforeAll(async () => {
  const configFile = writeConfig({
    merchants: [
      { id: 'demo', apiKey: 'sandbox-demo-key' },
      { id: 'other', apiKey: OTHER_KEY },
      { id: 'blocked', apiKey: BLOCKED_KEY, blocked: true },
    ],
  });
  sb = await startTestSandbox({ configFile });
});
afterAll(() => sb.close());

describe('POST /event', () => {
  it('creates an event: 201, Location, the decision in the contract shape', async () => {
    const res = await sb.call('POST', '/event', { body: example('review') });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe('/event/ord-1002');
    expectShape('decision', res.json);
    const decision = res.json as Decision;
    expect(decision).toMatchObject({
      id: 'ord-1002',
      actionType: 'REVIEW',
      totalRiskScore: 50,
      state: 'PENDING_REVIEW',
    });
    expect(decision.ruleMatches.map((m) => m.ruleId).sort()).toEqual(['country_mismatch', 'high_amount']);
    expect(typeof res.headers['x-request-id']).toBe('string');
  });

  it('writes dot ids into Location so they cannot resolve as path segments', async () => {
    for (const [id, location] of [
      ['.', '/event/%2E'],
      ['..', '/event/%2E%2E'],
    ]) {
      const res = await sb.call('POST', '/event', { body: minimal(id!) });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(location);
      // Read back through the path exactly as written (a URL string would resolve the dots).
      const agent = new Agent();
      const back = await agent.request({
        origin: sb.url,
        path: location!,
        method: 'GET',
        headers: { 'x-client-api-key': 'sandbox-demo-key' },
      });
      expect(await back.body.json()).toMatchObject({ id });
      await agent.close();
    }
  });

  it('generates an id when the payload has none', async () => {
    const res = await sb.call('POST', '/event', { body: { amount: 5, currency: 'USD' } });
    expect(res.status).toBe(201);
    const { id } = res.json as Decision;
    expect(id).toMatch(/^evt_[a-z0-9]+$/);
    expect(res.headers.location).toBe(`/event/${id}`);
    expect((await sb.call('GET', `/event/${id}`)).status).toBe(200);
  });

  it('replays an identical payload with 200 and the original decision, and refuses a different one with 409', async () => {
    const body = minimal('replay-1', { userEmail: 'r@example.com' });
    const first = await sb.call('POST', '/event', { body });
    expect(first.status).toBe(201);
    // The same payload with its keys in another order is the same payload.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await sb.call('POST', '/event', { body: reordered });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.location).toBeUndefined();
    const changed = await sb.call('POST', '/event', { body: { ...body, amount: 11 } });
    expectError(changed, 409, 'CONFLICT', ['EVENT_ID_CONFLICT']);
    const summary = (await sb.call('GET', '/event/replay-1')).json as EventSummary;
    expect(summary.amount).toBe(10);
  });

  it.each([
    ['a required field is missing', { currency: 'EUR' }, ['amount:REQUIRED']],
    ['a field has a typo', { amount: 1, currency: 'EUR', userEmial: 'x@y.z' }, ['userEmial:UNKNOWN_FIELD']],
    ['types are wrong', { amount: '12', currency: 7 }, ['amount:INVALID_TYPE', 'currency:INVALID_TYPE']],
    ['the IP is not an address', { amount: 1, currency: 'EUR', userIp: '999.1.1.1' }, ['userIp:INVALID_FORMAT']],
    ['the currency cannot be converted', { amount: 1, currency: 'XXX' }, ['currency:UNSUPPORTED_CURRENCY']],
    [
      'an item currency cannot be converted',
      { amount: 1, currency: 'EUR', items: [{ itemQuantity: 1, itemPrice: 1, itemCurrency: 'ABC' }] },
      ['items[0].itemCurrency:UNSUPPORTED_CURRENCY'],
    ],
    ['the amount is negative', { amount: -1, currency: 'EUR' }, ['amount:OUT_OF_RANGE']],
    ['the id has a character ids cannot have', { id: 'a/b', amount: 1, currency: 'EUR' }, ['id:INVALID_FORMAT']],
    ['the date is not RFC 3339', { amount: 1, currency: 'EUR', eventDate: '22/11/2026' }, ['eventDate:INVALID_FORMAT']],
    [
      'userCreated is not a calendar date',
      { amount: 1, currency: 'EUR', userCreated: '2026-02-30' },
      ['userCreated:INVALID_FORMAT'],
    ],
    [
      'a country is not alpha-2',
      { amount: 1, currency: 'EUR', billingCountry: 'Germany' },
      ['billingCountry:INVALID_FORMAT'],
    ],
    ['a string is too long', { amount: 1, currency: 'EUR', userName: 'x'.repeat(1025) }, ['userName:TOO_LONG']],
    [
      'an item misses its quantity and has a bad price',
      { amount: 1, currency: 'EUR', items: [{ itemPrice: 'free' }] },
      ['items[0].itemQuantity:REQUIRED', 'items[0].itemPrice:INVALID_TYPE'],
    ],
    [
      'there are too many items',
      { amount: 1, currency: 'EUR', items: Array.from({ length: 501 }, () => ({ itemQuantity: 1, itemPrice: 1 })) },
      ['items:TOO_MANY_ITEMS'],
    ],
    ['the body is not an object', [1, 2], ['body:INVALID_TYPE']],
  ])('answers 422 naming each bad field when %s', async (_, body, codes) => {
    const res = await sb.call('POST', '/event', { body });
    expectError(res, 422, 'VALIDATION_ERROR', codes);
  });

  it('normalises eventDate to UTC without fractions, and defaults it to the time of receipt', async () => {
    await sb.call('POST', '/event', { body: minimal('date-1', { eventDate: '2026-03-01T01:30:15.250+02:00' }) });
    expect(((await sb.call('GET', '/event/date-1')).json as EventSummary).eventDate).toBe('2026-02-28T23:30:15Z');
    const before = Math.floor(Date.now() / 1000) * 1000;
    await sb.call('POST', '/event', { body: minimal('date-2') });
    const at = Date.parse(((await sb.call('GET', '/event/date-2')).json as EventSummary).eventDate!);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });

  it('answers 400 for malformed JSON and stores nothing', async () => {
    expectError(await sb.call('POST', '/event', { rawBody: '{"id":"half-1","amount":1,' }), 400, 'BAD_REQUEST', [
      'MALFORMED_JSON',
    ]);
    expectError(await sb.call('POST', '/event', { rawBody: '' }), 400, 'BAD_REQUEST', ['MALFORMED_JSON']);
    expectError(
      await sb.call('POST', '/event', { rawBody: '{"__proto__":{"x":1},"amount":1,"currency":"EUR"}' }),
      400,
      'BAD_REQUEST',
      ['MALFORMED_JSON'],
    );
    expect((await sb.call('GET', '/event/half-1')).status).toBe(404);
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const body = minimal('big-1', { comments: 'x'.repeat(1024 * 1024) });
    expectError(await sb.call('POST', '/event', { body }), 413, 'PAYLOAD_TOO_LARGE', ['BODY_TOO_LARGE']);
    expect((await sb.call('GET', '/event/big-1')).status).toBe(404);
  });

  it('answers 415 for a body that is not JSON, and accepts the JSON media types', async () => {
    expectError(
      await sb.call('POST', '/event', { body: minimal('mt-0'), contentType: 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      ['CONTENT_TYPE_UNSUPPORTED'],
    );
    expectError(
      await sb.call('POST', '/event', { body: minimal('mt-0'), contentType: null }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect((await sb.call('POST', '/event', { body: minimal('mt-1'), contentType: 'text/json' })).status).toBe(201);
    expect(
      (
        await sb.call('POST', '/event', {
          body: minimal('mt-2'),
          contentType: 'application/vnd.fraud+json; charset=utf-8',
        })
      ).status,
    ).toBe(201);
  });
});

describe('GET /event/{eventId}', () => {
  it('returns the summary: every field, nulls where absent, items with base-currency prices', async () => {
    await sb.call('POST', '/event', { body: example('decline') });
    const res = await sb.call('GET', '/event/ord-1003');
    expect(res.status).toBe(200);
    expectShape('summary', res.json);
    const s = res.json as EventSummary;
    expect(Object.keys(s)).toHaveLength(32);
    expect(s).toMatchObject({
      id: 'ord-1003',
      totalScore: 100,
      state: 'DECLINED',
      eventDate: '2026-11-21T03:05:59Z',
      currency: 'GBP',
      baseCurrency: 'EUR',
      amountInBaseCurrency: 2808,
      userCreated: '2026-11-20',
      shippingRegion: null,
      userFullName: null,
      denylistMatch: false,
      allowlistMatch: false,
    });
    expect(s.items).toEqual([
      {
        itemId: 'gc-500',
        itemName: 'Gift card 500',
        itemQuantity: 4,
        itemPrice: 500,
        itemPriceInBaseCurrency: 585,
        itemCategory: 'gift_cards',
        itemSeller: 'CardHub Ltd',
        itemSellerCountry: 'GB',
        itemCurrency: 'GBP',
      },
      {
        itemId: 'gc-200',
        itemName: 'Gift card 200',
        itemQuantity: 2,
        itemPrice: 200,
        itemPriceInBaseCurrency: 234,
        itemCategory: 'gift_cards',
        itemSeller: 'CardHub Ltd',
        itemSellerCountry: 'GB',
        itemCurrency: 'GBP',
      },
    ]);
  });

  it('answers 404 for an id that does not exist', async () => {
    expectError(await sb.call('GET', '/event/no-such-event'), 404, 'NOT_FOUND', ['EVENT_NOT_FOUND']);
  });

  it.each([
    ['an encoded slash', '/event/a%2Fb'],
    ['unicode', `/event/${encodeURIComponent('zahlung-ü-€')}`],
    ['10 KB of id', `/event/${'x'.repeat(10 * 1024)}`],
    ['an encoded space', '/event/a%20b'],
  ])('answers 422 eventId:INVALID_FORMAT, never 5xx, for %s', async (_, path) => {
    expectError(await sb.call('GET', path), 422, 'VALIDATION_ERROR', ['eventId:INVALID_FORMAT']);
    expectError(await sb.call('GET', `${path}/risk-assessment`), 422, 'VALIDATION_ERROR', ['eventId:INVALID_FORMAT']);
  });

  it('answers 400 for a broken percent-encoding', async () => {
    expectError(await sb.call('GET', '/event/%E0%A4%A'), 400, 'BAD_REQUEST', ['BAD_URL']);
  });

  it('finds an id with dots, colons and dashes', async () => {
    await sb.call('POST', '/event', { body: minimal('shop:2026.11-x_1') });
    expect((await sb.call('GET', `/event/${encodeURIComponent('shop:2026.11-x_1')}`)).status).toBe(200);
  });
});

describe('GET /event/{eventId}/risk-assessment', () => {
  it('returns the alerts with severity and description, and the list matches', async () => {
    await sb.call('POST', '/event', { body: example('review') });
    const res = await sb.call('GET', '/event/ord-1002/risk-assessment');
    expect(res.status).toBe(200);
    expectShape('assessment', res.json);
    expect(res.json).toMatchObject({ eventId: 'ord-1002', actionType: 'REVIEW', totalRiskScore: 50, listMatches: [] });
    const alerts = (res.json as { alerts: { ruleId: string; description: string; severity: string }[] }).alerts;
    expect(alerts.find((a) => a.ruleId === 'high_amount')).toMatchObject({
      severity: 'MEDIUM',
      description: 'amountInBaseCurrency 1517.08 is above 1000',
    });
    expect(alerts.find((a) => a.ruleId === 'country_mismatch')?.description).toBe(
      'billing country BE is not shipping country NL',
    );
  });

  it('answers 404 for an unknown event', async () => {
    expectError(await sb.call('GET', '/event/nope/risk-assessment'), 404, 'NOT_FOUND', ['EVENT_NOT_FOUND']);
  });
});

describe('PATCH /event/{eventId}/state', () => {
  let n = 0;
  /** A new event in `state`, reached through allowed transitions from PENDING_REVIEW. */
  async function eventIn(state: string): Promise<string> {
    const id = `st-${++n}`;
    await sb.call('POST', '/event', {
      body: { ...minimal(id), amount: 1200, billingCountry: 'DE', shippingCountry: 'FR' },
    });
    const path: Record<string, string[]> = {
      PENDING_REVIEW: [],
      IN_REVIEW: ['IN_REVIEW'],
      ESCALATED: ['ESCALATED'],
      APPROVED: ['APPROVED'],
      DECLINED: ['DECLINED'],
      FRAUD_CONFIRMED: ['DECLINED', 'FRAUD_CONFIRMED'],
    };
    for (const step of path[state]!) {
      const res = await sb.call('PATCH', `/event/${id}/state`, { body: { state: step } });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
    }
    return id;
  }

  for (const from of KNOWN_STATES) {
    for (const to of KNOWN_STATES) {
      if (to === from) continue;
      const allowed = (TRANSITIONS[from] as readonly string[]).includes(to);
      it(`${allowed ? 'allows' : 'refuses'} ${from} → ${to}`, async () => {
        const id = await eventIn(from);
        const res = await sb.call('PATCH', `/event/${id}/state`, { body: { state: to, comments: 'checked' } });
        if (allowed) {
          expect(res.status).toBe(200);
          expectShape('summary', res.json);
          expect(res.json).toMatchObject({ id, state: to, comments: 'checked' });
        } else {
          expectError(res, 422, 'VALIDATION_ERROR', ['INVALID_STATE_TRANSITION']);
          expect(((await sb.call('GET', `/event/${id}`)).json as EventSummary).state).toBe(from);
        }
      });
    }
  }

  it('starts from the state the decision implies', async () => {
    for (const [name, state] of [
      ['approve', 'APPROVED'],
      ['decline', 'DECLINED'],
    ] as const) {
      const decision = (await sb.call('POST', '/event', { body: example(name) })).json as Decision;
      expect(decision.state).toBe(state);
    }
  });

  it('adds a comment without changing the state, and records a comment on a same-state no-op', async () => {
    const id = await eventIn('IN_REVIEW');
    const commented = await sb.call('PATCH', `/event/${id}/state`, { body: { comments: 'called the customer' } });
    expect(commented.json).toMatchObject({ state: 'IN_REVIEW', comments: 'called the customer' });
    const same = await sb.call('PATCH', `/event/${id}/state`, {
      body: { state: 'IN_REVIEW', comments: 'still looking' },
    });
    expect(same.status).toBe(200);
    expect(same.json).toMatchObject({ state: 'IN_REVIEW', comments: 'still looking' });
    expect(((await sb.call('GET', `/event/${id}`)).json as EventSummary).comments).toBe('still looking');
  });

  it('refuses an unknown state, an empty body, unknown fields and wrong types with 422', async () => {
    const id = await eventIn('PENDING_REVIEW');
    expectError(await sb.call('PATCH', `/event/${id}/state`, { body: { state: 'MAYBE' } }), 422, 'VALIDATION_ERROR', [
      'INVALID_STATE',
    ]);
    expectError(await sb.call('PATCH', `/event/${id}/state`, { body: {} }), 422, 'VALIDATION_ERROR', [
      'body:STATE_OR_COMMENTS_REQUIRED',
    ]);
    expectError(
      await sb.call('PATCH', `/event/${id}/state`, { body: { state: 'APPROVED', note: 'x' } }),
      422,
      'VALIDATION_ERROR',
      ['note:UNKNOWN_FIELD'],
    );
    expectError(await sb.call('PATCH', `/event/${id}/state`, { body: { state: 5 } }), 422, 'VALIDATION_ERROR', [
      'state:INVALID_TYPE',
    ]);
    expect(((await sb.call('GET', `/event/${id}`)).json as EventSummary).state).toBe('PENDING_REVIEW');
  });

  it('accepts application/json, text/json and application/*+json, and answers 415 to anything else', async () => {
    const id = await eventIn('PENDING_REVIEW');
    for (const contentType of [
      'application/json',
      'text/json',
      'application/merge-patch+json',
      'application/json; charset=utf-8',
    ]) {
      expect(
        (await sb.call('PATCH', `/event/${id}/state`, { body: { comments: contentType }, contentType })).status,
      ).toBe(200);
    }
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      expectError(
        await sb.call('PATCH', `/event/${id}/state`, { rawBody: '{"state":"APPROVED"}', contentType }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        ['CONTENT_TYPE_UNSUPPORTED'],
      );
    }
    expect(((await sb.call('GET', `/event/${id}`)).json as EventSummary).state).toBe('PENDING_REVIEW');
  });

  it('answers 404 for an unknown event and 400 for malformed JSON', async () => {
    expectError(await sb.call('PATCH', '/event/nope/state', { body: { state: 'APPROVED' } }), 404, 'NOT_FOUND', [
      'EVENT_NOT_FOUND',
    ]);
    const id = await eventIn('PENDING_REVIEW');
    expectError(await sb.call('PATCH', `/event/${id}/state`, { rawBody: '{"state":' }), 400, 'BAD_REQUEST', [
      'MALFORMED_JSON',
    ]);
  });
});

describe('text that would not read back as sent', () => {
  // JSON text with escapes, as a client sends it: JSON.stringify would write the same.
  const NUL_COMMENT = '"refund approved\\u0000 -- NOT: known fraudster"';

  it('refuses a NUL or an unpaired surrogate anywhere in a new event with 422 and stores nothing', async () => {
    const raw = `{"id":"nul-1","amount":10,"currency":"EUR","comments":${NUL_COMMENT},"userName":"a\\ud800b","items":[{"itemName":"x\\udc00","itemPrice":1,"itemQuantity":1}]}`;
    const res = await sb.call('POST', '/event', { rawBody: raw });
    expectError(res, 422, 'VALIDATION_ERROR', [
      'comments:INVALID_CHARACTERS',
      'userName:INVALID_CHARACTERS',
      'items[0].itemName:INVALID_CHARACTERS',
    ]);
    expectError(await sb.call('GET', '/event/nul-1'), 404, 'NOT_FOUND', ['EVENT_NOT_FOUND']);
  });

  it('refuses such a comment in a PATCH, so its answer and the next GET never disagree', async () => {
    const id = 'nul-patch-1';
    const review = { ...minimal(id), amount: 1200, billingCountry: 'DE', shippingCountry: 'FR' };
    expect((await sb.call('POST', '/event', { body: review })).json).toMatchObject({ state: 'PENDING_REVIEW' });
    for (const comment of ['"ok\\u0000 tail"', '"a\\ud800b"', '"\\udfff"']) {
      const res = await sb.call('PATCH', `/event/${id}/state`, {
        rawBody: `{"state":"IN_REVIEW","comments":${comment}}`,
      });
      expectError(res, 422, 'VALIDATION_ERROR', ['comments:INVALID_CHARACTERS']);
    }
    expect((await sb.call('GET', `/event/${id}`)).json).toMatchObject({ state: 'PENDING_REVIEW', comments: null });
  });

  it('keeps every other character exactly: paired surrogates, control characters, bidi marks', async () => {
    const text = 'ok \u{1F600} \u001b[31m red \u0007 \u202e txet \u0085 \uffff end';
    const created = await sb.call('POST', '/event', {
      body: minimal('text-exact-1', { comments: text, userName: text }),
    });
    expect(created.status).toBe(201);
    expect((await sb.call('GET', '/event/text-exact-1')).json).toMatchObject({ comments: text, userName: text });
    const patched = await sb.call('PATCH', '/event/text-exact-1/state', { body: { comments: `${text} again` } });
    expect(patched.json).toMatchObject({ comments: `${text} again` });
    expect((await sb.call('GET', '/event/text-exact-1')).json).toMatchObject({ comments: `${text} again` });
  });
});

describe('keys and tenancy', () => {
  const routes: [string, string, unknown?][] = [
    ['POST', '/event', minimal('auth-1')],
    ['GET', '/event/ord-1002'],
    ['GET', '/event/ord-1002/risk-assessment'],
    ['PATCH', '/event/ord-1002/state', { comments: 'x' }],
  ];

  it.each(routes)(
    '%s %s answers 401 without a key or with a wrong one, and 403 for a blocked merchant',
    async (method, path, body) => {
      expectError(await sb.call(method, path, { body, key: null }), 401, 'UNAUTHORIZED', ['API_KEY_MISSING']);
      expectError(await sb.call(method, path, { body, key: 'sandbox-demo-kez' }), 401, 'UNAUTHORIZED', [
        'API_KEY_INVALID',
      ]);
      expectError(await sb.call(method, path, { body, key: BLOCKED_KEY }), 403, 'FORBIDDEN', ['MERCHANT_BLOCKED']);
    },
  );

  it('checks the key before the body', async () => {
    expectError(await sb.call('POST', '/event', { rawBody: '{oops', key: null }), 401, 'UNAUTHORIZED');
  });

  it("hides one merchant's events from another, who may reuse the same id", async () => {
    await sb.call('POST', '/event', { body: minimal('tenant-1', { amount: 1 }) });
    for (const path of ['/event/tenant-1', '/event/tenant-1/risk-assessment']) {
      expectError(await sb.call('GET', path, { key: OTHER_KEY }), 404, 'NOT_FOUND', ['EVENT_NOT_FOUND']);
    }
    expectError(
      await sb.call('PATCH', '/event/tenant-1/state', { key: OTHER_KEY, body: { state: 'DECLINED' } }),
      404,
      'NOT_FOUND',
    );
    const theirs = await sb.call('POST', '/event', { key: OTHER_KEY, body: minimal('tenant-1', { amount: 2 }) });
    expect(theirs.status).toBe(201);
    expect(((await sb.call('GET', '/event/tenant-1', { key: OTHER_KEY })).json as EventSummary).amount).toBe(2);
    expect(((await sb.call('GET', '/event/tenant-1')).json as EventSummary).amount).toBe(1);
  });
});

describe('the rest of the surface', () => {
  it('serves the OpenAPI document without a key, generated from the contract schemas', async () => {
    const res = await sb.call('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    const doc = res.json as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/event',
      '/event/{eventId}',
      '/event/{eventId}/risk-assessment',
      '/event/{eventId}/state',
    ]);
    expect(Object.keys(doc.paths['/event/{eventId}/state']!)).toEqual(['patch']);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'EventSummary',
        'ErrorResponse',
        'EventPayload',
        'Decision',
        'RiskAssessment',
        'StateChange',
      ]),
    );
    expect(JSON.stringify(doc)).toContain('X-CLIENT-API-KEY');
  });

  it('answers unknown routes with 404 in the error shape', async () => {
    expectError(await sb.call('GET', '/events'), 404, 'NOT_FOUND', ['ROUTE_NOT_FOUND']);
    expectError(await sb.call('DELETE', '/event/ord-1002'), 404, 'NOT_FOUND', ['ROUTE_NOT_FOUND']);
  });

  it('sends X-Request-Id on success too, unique per request', async () => {
    const a = await sb.call('GET', '/event/ord-1002');
    const b = await sb.call('GET', '/event/ord-1002');
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});
