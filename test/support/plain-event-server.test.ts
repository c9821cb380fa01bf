import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { startPlainEventServer, type PlainServer, type PlainServerOptions } from './plain-event-server.js';

/* The non-idempotent fake itself: what it stores, what it answers, and its faults. */

const agent = new Agent({ keepAliveTimeout: 1000, connections: 8 });
afterAll(() => agent.close());

const servers: PlainServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: PlainServerOptions = {}): Promise<PlainServer> {
  const server = await startPlainEventServer(options);
  servers.push(server);
  return server;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: Record<string, unknown>;
}

async function call(
  server: PlainServer,
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; rawBody?: string; key?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const key = options.key === undefined ? 'plain-key' : options.key;
  if (key !== null) headers['x-client-api-key'] = key;
  const body = options.rawBody ?? (options.body === undefined ? null : JSON.stringify(options.body));
  // The dispatcher's own request, so the path goes out as written (a URL would resolve %2E).
  const res = await agent.request({ origin: server.url, path, method, headers, body });
  return { status: res.statusCode, headers: res.headers, json: (await res.body.json()) as Record<string, unknown> };
}

const event = (id: string, amount = 120) => ({ id, amount, currency: 'EUR', userEmail: 'a@example.com' });

describe('plain event server', () => {
  it('stores every POST, the same id again and again, each answered 201 with a decision', async () => {
    const server = await start();
    const first = await call(server, 'POST', '/event', { body: event('p-1') });
    expect(first.status).toBe(201);
    expect(first.json).toEqual({
      id: 'p-1',
      actionType: 'APPROVE',
      totalRiskScore: 5,
      state: 'APPROVED',
      ruleMatches: [],
      listMatches: [],
    });
    expect(first.headers['x-request-id']).toEqual(expect.any(String));
    const second = await call(server, 'POST', '/event', { body: event('p-1') });
    expect(second.status).toBe(201);
    expect(server.stored.get('p-1')).toBe(2);
    expect(server.processed()).toBe(2);
  });

  it('decides by amount, and gives an event without id an id of its own', async () => {
    const server = await start();
    expect((await call(server, 'POST', '/event', { body: event('p-rev', 500) })).json).toMatchObject({
      actionType: 'REVIEW',
      totalRiskScore: 50,
      state: 'PENDING',
    });
    expect((await call(server, 'POST', '/event', { body: event('p-dec', 1000) })).json).toMatchObject({
      actionType: 'DECLINE',
      totalRiskScore: 90,
      state: 'DECLINED',
    });
    const anonymous = await call(server, 'POST', '/event', { body: { amount: 1, currency: 'EUR' } });
    expect(anonymous.status).toBe(201);
    expect(server.stored.get(anonymous.json.id as string)).toBe(1);
    expect(server.processed()).toBe(3);
  });

  it('rejects a body that is not an object (400) or has no numeric amount (422), storing nothing', async () => {
    const server = await start();
    const notJson = await call(server, 'POST', '/event', { rawBody: '{nope' });
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ errorType: 'BAD_REQUEST', requestId: notJson.headers['x-request-id'] });
    expect((await call(server, 'POST', '/event', { body: [event('p-arr')] })).status).toBe(400);
    const noAmount = await call(server, 'POST', '/event', { body: { id: 'p-x', amount: '12' } });
    expect(noAmount.status).toBe(422);
    expect(noAmount.json).toMatchObject({ errorType: 'VALIDATION_ERROR', errorCodes: ['amount:REQUIRED'] });
    expect(server.processed()).toBe(0);
  });

  it('answers 401 in the error shape without the right key, on every route', async () => {
    const server = await start();
    for (const [method, path] of [
      ['POST', '/event'],
      ['GET', '/event/p-1'],
      ['GET', '/event/p-1/risk-assessment'],
    ] as const) {
      const missing = await call(server, method, path, {
        key: null,
        ...(method === 'POST' ? { body: event('p-1') } : {}),
      });
      expect(missing.status).toBe(401);
      expect(missing.json).toEqual({
        requestId: missing.headers['x-request-id'],
        errorType: 'UNAUTHORIZED',
        errorCodes: ['API_KEY_MISSING'],
      });
      expect((await call(server, method, path, { key: 'wrong' })).status).toBe(401);
    }
    expect(server.processed()).toBe(0);
  });

  it('serves the summary and the risk assessment of the last stored copy, 404 for an id never stored', async () => {
    const server = await start({ key: 'other-key' });
    await call(server, 'POST', '/event', { body: event('a.b:c', 700), key: 'other-key' });
    const summary = await call(server, 'GET', '/event/a.b%3Ac', { key: 'other-key' });
    expect(summary.status).toBe(200);
    expect(summary.json).toMatchObject({ id: 'a.b:c', totalScore: 50, state: 'PENDING', amount: 700, currency: 'EUR' });
    const assessment = await call(server, 'GET', '/event/a.b%3Ac/risk-assessment', { key: 'other-key' });
    expect(assessment.status).toBe(200);
    expect(assessment.json).toEqual({
      eventId: 'a.b:c',
      actionType: 'REVIEW',
      totalRiskScore: 50,
      alerts: [],
      listMatches: [],
    });

    await call(server, 'POST', '/event', { body: event('.', 10), key: 'other-key' });
    expect((await call(server, 'GET', '/event/%2E/risk-assessment', { key: 'other-key' })).json).toMatchObject({
      eventId: '.',
      actionType: 'APPROVE',
    });

    const missing = await call(server, 'GET', '/event/never/risk-assessment', { key: 'other-key' });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      requestId: missing.headers['x-request-id'],
      errorType: 'NOT_FOUND',
      errorCodes: ['EVENT_NOT_FOUND'],
    });
    expect((await call(server, 'GET', '/event/never', { key: 'other-key' })).status).toBe(404);
  });

  it('resetAfter: stores the event, and the client sees a socket error instead of an answer', async () => {
    const server = await start({ faults: { resetAfter: 1 } });
    await expect(call(server, 'POST', '/event', { body: event('r-after') })).rejects.toThrow();
    expect(server.stored.get('r-after')).toBe(1);
    expect(server.faults.resetAfter).toBe(1);
  });

  it('resetBefore: drops the connection and stores nothing', async () => {
    const server = await start({ faults: { resetBefore: 1 } });
    await expect(call(server, 'POST', '/event', { body: event('r-before') })).rejects.toThrow();
    expect(server.stored.size).toBe(0);
    expect(server.processed()).toBe(0);
    expect(server.faults.resetBefore).toBe(1);
  });

  it('timeoutAfter: stores the event, then answers 504 SCORING_TIMEOUT', async () => {
    const server = await start({ faults: { timeoutAfter: 1 } });
    const answer = await call(server, 'POST', '/event', { body: event('t-after') });
    expect(answer.status).toBe(504);
    expect(answer.json).toEqual({
      requestId: answer.headers['x-request-id'],
      errorType: 'SCORING_TIMEOUT',
      errorCodes: ['SCORING_TIMEOUT'],
    });
    expect(server.stored.get('t-after')).toBe(1);
    expect(server.faults.timeoutAfter).toBe(1);
  });

  it('unavailable: 503 with Retry-After: 0 for POST and GET, storing nothing; GETs get no other fault', async () => {
    const down = await start({ faults: { unavailable: 1 } });
    const post = await call(down, 'POST', '/event', { body: event('u-1') });
    expect(post.status).toBe(503);
    expect(post.headers['retry-after']).toBe('0');
    expect(post.json).toMatchObject({ errorType: 'SERVICE_UNAVAILABLE' });
    expect((await call(down, 'GET', '/event/u-1')).status).toBe(503);
    expect(down.processed()).toBe(0);
    expect(down.faults.unavailable).toBe(2);

    const resetting = await start({ faults: { resetBefore: 0.5, resetAfter: 0.5 } });
    expect((await call(resetting, 'GET', '/event/none')).status).toBe(404);
  });

  it('draws the same faults per event id for the same seed, in any order and at any concurrency, in the shares asked for', async () => {
    const faults = { unavailable: 0.2, resetBefore: 0.1, resetAfter: 0.1, timeoutAfter: 0.1 };
    const ids = Array.from({ length: 200 }, (_, i) => `s-${i}`);
    const outcome = (answer: Promise<Answer>) =>
      answer.then(
        (a) => String(a.status),
        () => 'reset',
      );
    /** Per id: what two POSTs, then a GET of the summary, got. */
    const requestsOf = async (server: PlainServer, id: string): Promise<[string, string[]]> => {
      const got = [
        await outcome(call(server, 'POST', '/event', { body: event(id) })),
        await outcome(call(server, 'POST', '/event', { body: event(id) })),
      ];
      got.push(await outcome(call(server, 'GET', `/event/${id}`)));
      return [id, got];
    };
    const run = async (seed: number, order: 'one at a time' | 'reversed, all at once') => {
      const server = await start({ faults, seed });
      const entries: [string, string[]][] = [];
      if (order === 'one at a time') for (const id of ids) entries.push(await requestsOf(server, id));
      else entries.push(...(await Promise.all([...ids].reverse().map((id) => requestsOf(server, id)))));
      return { outcomes: new Map(entries), faults: { ...server.faults }, processed: server.processed() };
    };
    const a = await run(3, 'one at a time');
    const b = await run(3, 'reversed, all at once');
    expect(b.outcomes).toEqual(a.outcomes);
    expect(b.faults).toEqual(a.faults);
    expect((await run(4, 'one at a time')).outcomes).not.toEqual(a.outcomes);

    // The draws are real: every fault occurs, 503 near its share, and only POSTs that got no
    // 503 and no reset before were stored.
    for (const count of Object.values(a.faults)) expect(count).toBeGreaterThan(0);
    expect(a.faults.unavailable).toBeGreaterThan(40);
    expect(a.faults.unavailable).toBeLessThan(120);
    const getsUnavailable = [...a.outcomes.values()].filter((got) => got[2] === '503').length;
    expect(a.processed).toBe(400 - (a.faults.unavailable - getsUnavailable) - a.faults.resetBefore);
  });

  it('without a route: a 404 ROUTE_NOT_FOUND there; htmlNotFound: every 404 an HTML page', async () => {
    const older = await start({ without: ['assessment'] });
    await call(older, 'POST', '/event', { body: event('w-1') });
    expect((await call(older, 'GET', '/event/w-1')).status).toBe(200);
    const missing = await call(older, 'GET', '/event/w-1/risk-assessment');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ errorCodes: ['ROUTE_NOT_FOUND'] });

    const proxied = await start({ htmlNotFound: true, without: ['summary'] });
    await call(proxied, 'POST', '/event', { body: event('h-1') });
    for (const path of ['/event/h-1', '/event/nope/risk-assessment']) {
      const res = await agent.request({
        origin: proxied.url,
        path,
        method: 'GET',
        headers: { 'x-client-api-key': 'plain-key' },
      });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('text/html');
      expect(await res.body.text()).toContain('<title>404 Not Found</title>');
    }
    expect((await call(proxied, 'GET', '/event/h-1/risk-assessment')).status).toBe(200);
  });
});
