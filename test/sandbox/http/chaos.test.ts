import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { parseChaosSpec } from '../../../src/sandbox/http/chaos.js';
import { send, startTestSandbox, tempDir } from '../../support/sandbox.js';
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
    });
    expect(parseChaosSpec('latency=40').latencyMs).toEqual([40, 40]);
    expect(() => parseChaosSpec('503=2')).toThrow(/503 takes a share between 0 and 1/);
    expect(() => parseChaosSpec('502=0.1')).toThrow(/unknown fault "502"/);
    expect(() => parseChaosSpec('latency=50-10')).toThrow(/maximum is below the minimum/);
    expect(() => parseChaosSpec('503=0.6,504=0.6')).toThrow(/add up to more than 1/);
    expect(() => parseChaosSpec('503')).toThrow(/not key=value/);
  });
});
