import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import Database from 'libsql';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponseSchema } from '../../../src/contract/index.js';
import { rawExchange } from '../../support/raw-http.js';
import { KEYS, requestArb, requestBytes, type FuzzRequest } from '../../support/request-fuzz.js';
import { startTestSandbox, tempDir, writeConfig, type TestSandbox } from '../../support/sandbox.js';

/*
 * The sandbox under random and mutated requests: no 5xx, no crash, no connection
 * closed without an answer, every error in the error shape with X-Request-Id equal to its
 * requestId, and the store unchanged by every refused request. Requests go one at a time, so
 * the counts of stored events and state changes before and after each say exactly what it did.
 *
 * Deterministic: a fixed seed. The suite runs 1,000 requests (~13 s on a busy 2-core machine);
 * `npm run fuzz` runs 20,000 (or FRAUDCTL_FUZZ_RUNS), FRAUDCTL_FUZZ_SEED draws another sequence.
 */

const RUNS = Number(process.env.FRAUDCTL_FUZZ_RUNS ?? (process.env.FRAUDCTL_LONG ? 20_000 : 1_000));
const SEED = Number(process.env.FRAUDCTL_FUZZ_SEED ?? 20_251_111);

const validateError = new Ajv2020({ strict: false }).compile(ErrorResponseSchema);
const tmp = tempDir();
let sb: TestSandbox;
let reader: InstanceType<typeof Database>;
const unexpected: Error[] = [];

beforeAll(async () => {
  const configFile = writeConfig({
    merchants: [
      { id: 'demo', apiKey: KEYS.demo },
      { id: 'other', apiKey: KEYS.other },
    ],
  });
  const dbPath = join(tmp.dir, 'fuzz.db');
  sb = await startTestSandbox({
    configFile,
    dbPath,
    onUnexpectedError: (e) => unexpected.push(e),
    timeouts: { idleMs: 2_000, headersMs: 1_000, checkEveryMs: 100 },
  });
  reader = new Database(dbPath, { readonly: true });
});
afterAll(async () => {
  reader?.close();
  await sb?.close();
  await tmp.remove();
});

function storeCounts(): { events: number; changes: number } {
  return reader
    .prepare('SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM state_changes) AS changes')
    .get() as { events: number; changes: number };
}

/** What one request may do to the store: a refused one nothing at all. */
function allowedChange(r: FuzzRequest, status: number): { events: number; changes: number }[] {
  if (status < 200 || status >= 300) return [{ events: 0, changes: 0 }];
  if (r.method === 'POST' && status === 201) return [{ events: 1, changes: 0 }];
  if (r.method === 'PATCH') return [{ events: 0, changes: 1 }];
  return [{ events: 0, changes: 0 }];
}

describe('sandbox fuzz', () => {
  it(`answers ${RUNS} random and mutated requests without a 5xx, each error in the shape, refused ones changing nothing`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const before = storeCounts();
        const reply = await rawExchange(sb.sandbox.port, [requestBytes(r)], {
          closeWaitMs: 0,
          timeoutMs: 10_000,
          noBody: r.method === 'HEAD',
        });
        const after = storeCounts();
        const what = `${r.label} → ${reply.status} ${reply.body.slice(0, 200)}`;
        expect(reply.status, `no answer to ${r.label}`).not.toBeNull();
        const status = reply.status!;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expect(status, what).toBeLessThan(500);
        expect(reply.headers['x-request-id'], what).toBeTruthy();
        // An answer to HEAD has headers only, by definition.
        if (status >= 400 && r.method !== 'HEAD') {
          expect(validateError(reply.json), what).toBe(true);
          expect((reply.json as { requestId: string }).requestId, what).toBe(reply.headers['x-request-id']);
        }
        expect(
          allowedChange(r, status),
          `${what}: store went from ${JSON.stringify(before)} to ${JSON.stringify(after)}`,
        ).toContainEqual({
          events: after.events - before.events,
          changes: after.changes - before.changes,
        });
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(unexpected).toEqual([]);
    // The mix reached the routes and not only the door: creations, reads, changes and refusals.
    for (const status of [200, 201, 400, 401, 404, 415, 422])
      expect(statuses.get(status) ?? 0, `status ${status} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);
    console.log(`fuzz: ${RUNS} requests, seed ${SEED}, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  }, 600_000);
});
