import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { parseChaosSpec } from '../../../src/sandbox/http/chaos.js';
import { send, startTestSandbox, tempDir, type Reply, type TestSandbox } from '../../support/sandbox.js';
import { expectError } from '../../support/contract-validator.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
let n = 0;

/** Runs one POST against a sandbox with `chaos`, then says what the database holds. */
async function postUnder(chaos: string) {
  const dbPath = join(tmp.dir, `chaos-${++n}.db`);
  const sb = await startTestSandbox({ dbPath, chaos });
  const id = `chaos-${n}`;
  const started = Date.now();
  const outcome = await sb.call('POST', '/event', { body: { id, amount: 10, currency: 'EUR' } }).then(
    (reply) => ({ reply, error: undefined }),
    (error: Error) => ({ reply: undefined, error }),
  );
  const elapsed = Date.now() - started;
  const openapi = await send(sb.url, 'GET', '/openapi.json', { key: null });
  await sb.close();
  const db = new Database(dbPath, { readonly: true });
  const stored = (db.prepare('SELECT count(*) AS n FROM events WHERE id = ?').get(id) as { n: number }).n;
  db.close();
  return { ...outcome, stored, elapsed, openapiStatus: openapi.status };
}

describe('--chaos', () => {
  it('503: answers OVERLOADED with Retry-After before doing any work', async () => {
    const { reply, stored, openapiStatus } = await postUnder('503=1,retry-after=3');
    expectError(reply!, 503, 'SERVICE_UNAVAILABLE', ['OVERLOADED']);
    expect(reply!.headers['retry-after']).toBe('3');
    expect(stored).toBe(0);
    expect(openapiStatus).toBe(200);
  });

  it('504: stores the event, then answers SCORING_TIMEOUT', async () => {
    const { reply, stored } = await postUnder('504=1');
    expectError(reply!, 504, 'GATEWAY_TIMEOUT', ['SCORING_TIMEOUT']);
    expect(reply!.headers.location).toBeUndefined();
    expect(stored).toBe(1);
  });

  it('reset-before: drops the connection and stores nothing', async () => {
    const { error, stored } = await postUnder('reset-before=1');
    expect(error?.message).toMatch(/closed|reset|socket/i);
    expect(stored).toBe(0);
  });

  it('reset-after: stores the event, then drops the connection', async () => {
    const { error, stored } = await postUnder('reset-after=1');
    expect(error?.message).toMatch(/closed|reset|socket/i);
    expect(stored).toBe(1);
  });

  it('latency: delays the answer', async () => {
    const { reply, elapsed, stored } = await postUnder('latency=150-200');
    expect(reply!.status).toBe(201);
    expect(elapsed).toBeGreaterThanOrEqual(145);
    expect(stored).toBe(1);
  });

  it('parses shares, ranges and retry-after, and refuses what it cannot mean', () => {
    expect(parseChaosSpec('503=0.1, 504=0.05,reset-before=0.02,reset-after=0.03,latency=10-50,retry-after=2')).toEqual({
      unavailable: 0.1,
      timeoutAfter: 0.05,
      resetBefore: 0.02,
      resetAfter: 0.03,
      latencyMs: [10, 50],
      retryAfterSeconds: 2,
      seed: null,
    });
    expect(parseChaosSpec('latency=40').latencyMs).toEqual([40, 40]);
    expect(parseChaosSpec('503=0.1,seed=0').seed).toBe(0);
    expect(parseChaosSpec('seed=007').seed).toBe(7);
    expect(parseChaosSpec(`seed=${Number.MAX_SAFE_INTEGER}`).seed).toBe(Number.MAX_SAFE_INTEGER);
    for (const seed of ['x', '-1', '1.5', '1e3', '', ' ', `${Number.MAX_SAFE_INTEGER + 1}`]) {
      expect(() => parseChaosSpec(`seed=${seed}`), seed).toThrow(
        /seed takes a whole number from 0 to 9007199254740991/,
      );
    }
    expect(() => parseChaosSpec('503=2')).toThrow(/503 takes a share between 0 and 1/);
    expect(() => parseChaosSpec('502=0.1')).toThrow(/unknown fault "502"/);
    expect(() => parseChaosSpec('latency=50-10')).toThrow(/maximum is below the minimum/);
    expect(() => parseChaosSpec('503=0.6,504=0.6')).toThrow(/add up to more than 1/);
    expect(() => parseChaosSpec('503')).toThrow(/not key=value/);
  });
});

describe('--chaos seed=N', () => {
  const CHAOS = '503=0.2,504=0.15,reset-before=0.15,reset-after=0.15';
  const ids = Array.from({ length: 150 }, (_, i) => `seeded-${i}`);
  const outcome = (reply: Promise<Reply>) =>
    reply.then(
      (r) => String(r.status),
      () => 'dropped',
    );

  /** Per id: what three POSTs of it, then a GET of its risk assessment, got, in that order. */
  async function requestsOf(sb: TestSandbox, id: string): Promise<[string, string[]]> {
    const got: string[] = [];
    for (let i = 0; i < 3; i++)
      got.push(await outcome(sb.call('POST', '/event', { body: { id, amount: 10, currency: 'EUR' } })));
    got.push(await outcome(sb.call('GET', `/event/${id}/risk-assessment`)));
    return [id, got];
  }

  async function outcomesUnder(
    chaos: string,
    order: 'one at a time' | 'reversed, all at once',
  ): Promise<Map<string, string[]>> {
    const sb = await startTestSandbox({ chaos });
    try {
      if (order === 'reversed, all at once')
        return new Map(await Promise.all([...ids].reverse().map((id) => requestsOf(sb, id))));
      const entries: [string, string[]][] = [];
      for (const id of ids) entries.push(await requestsOf(sb, id));
      return new Map(entries);
    } finally {
      await sb.close();
    }
  }

  it('gives each event id the same faults on its 1st, 2nd, … request whatever the order and concurrency; another seed, other faults', async () => {
    const inOrder = await outcomesUnder(`${CHAOS},seed=42`, 'one at a time');
    const reversedAtOnce = await outcomesUnder(`${CHAOS},seed=42`, 'reversed, all at once');
    expect(reversedAtOnce).toEqual(inOrder);
    // Faults did happen, of every kind the client can tell apart, and after a 504 or a reset
    // after the work the next POST is a replay (200): the draws follow each id's own history.
    expect([...new Set([...inOrder.values()].flat())]).toEqual(
      expect.arrayContaining(['200', '201', '503', '504', 'dropped']),
    );
    const otherSeed = await outcomesUnder(`${CHAOS},seed=43`, 'one at a time');
    const differing = ids.filter((id) => otherSeed.get(id)!.join() !== inOrder.get(id)!.join());
    expect(differing.length).toBeGreaterThan(ids.length / 3);
  });

  it('replays POSTs without an id when they are sent one at a time', async () => {
    const run = async () => {
      const sb = await startTestSandbox({ chaos: '503=0.3,reset-before=0.2,seed=5' });
      const got: string[] = [];
      for (let i = 0; i < 40; i++)
        got.push(await outcome(sb.call('POST', '/event', { body: { amount: 10, currency: 'EUR' } })));
      await sb.close();
      return got;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(new Set(first)).toEqual(new Set(['201', '503', 'dropped']));
  });
});
