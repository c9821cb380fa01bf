import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'libsql';
import { startTestSandbox, tempDir, type TestSandbox } from '../support/sandbox.js';
import { expectShape } from '../support/contract-validator.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

describe('concurrent submissions', () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());

  it('20 concurrent POSTs of one id store exactly one event: one 201, nineteen 200 with the same decision', async () => {
    const dbPath = join(tmp.dir, 'race.db');
    const race = await startTestSandbox({ dbPath });
    const body = { id: 'race-1', amount: 1500, currency: 'EUR', userEmail: 'race@example.com' };
    const replies = await Promise.all(Array.from({ length: 20 }, () => race.call('POST', '/event', { body })));
    // Different payloads for one id: one wins, the rest conflict.
    const conflicting = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        race.call('POST', '/event', { body: { id: 'race-2', amount: i, currency: 'EUR' } }),
      ),
    );
    await race.close();

    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(19);
    for (const r of replies) expect(r.json).toEqual(replies[0]!.json);
    expect(conflicting.filter((r) => r.status === 201)).toHaveLength(1);
    expect(conflicting.filter((r) => r.status === 409)).toHaveLength(19);

    const db = new Database(dbPath, { readonly: true });
    const rows = db.prepare('SELECT id, count(*) AS n FROM events GROUP BY id ORDER BY id').all() as {
      id: string;
      n: number;
    }[];
    db.close();
    expect(rows.map(({ id, n }) => [id, n])).toEqual([
      ['race-1', 1],
      ['race-2', 1],
    ]);
  });
});

describe('fuzz: random payloads never get a 5xx', () => {
  const fields = [
    'id',
    'amount',
    'currency',
    'userEmail',
    'userIp',
    'userCreated',
    'eventDate',
    'billingCountry',
    'items',
    'comments',
    'userEmial',
  ];
  const anyValue = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(
      'EUR',
      'USD',
      'XXX',
      '2026-11-22',
      '2026-11-22T10:00:00Z',
      '10.0.0.1',
      '::1',
      'a@b.c',
      'ord-1',
      'DE',
    ),
    fc.array(
      fc.record(
        { itemQuantity: fc.oneof(fc.integer(), fc.string()), itemPrice: fc.oneof(fc.double(), fc.constant(null)) },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
  );
  const payload = fc.oneof(
    fc.dictionary(fc.constantFrom(...fields), anyValue),
    fc.record(
      { amount: fc.double({ min: 0, max: 1e13, noNaN: true }), currency: fc.constantFrom('EUR', 'USD', 'JPY') },
      { requiredKeys: ['amount', 'currency'] },
    ),
    fc.jsonValue(),
  );

  it('POST /event answers 201, 200, 409 or 422 and every body fits the contract', async () => {
    await fc.assert(
      fc.asyncProperty(payload, async (body) => {
        const res = await sb.call('POST', '/event', { body });
        expect([200, 201, 400, 409, 422], res.text).toContain(res.status);
        expectShape(res.status < 300 ? 'decision' : 'error', res.json);
        if (res.status === 201) {
          const id = (res.json as { id: string }).id;
          const summary = await sb.call('GET', `/event/${encodeURIComponent(id)}`);
          expectShape('summary', summary.json);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('random ids in the path get 200, 404 or 422, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }), async (id) => {
        const res = await sb.call('GET', `/event/${encodeURIComponent(id)}`);
        expect([200, 404, 422], res.text).toContain(res.status);
        expectShape(res.status === 200 ? 'summary' : 'error', res.json);
      }),
      { numRuns: 200 },
    );
  });

  it('random PATCH bodies get 200, 404 or 422', async () => {
    await sb.call('POST', '/event', { body: { id: 'fuzz-state', amount: 1200, currency: 'EUR' } });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            { state: fc.oneof(fc.string(), fc.constantFrom('APPROVED', 'IN_REVIEW')), comments: fc.string() },
            { requiredKeys: [] },
          ),
        ),
        async (body) => {
          const res = await sb.call('PATCH', '/event/fuzz-state/state', { body });
          // 400: a body with a __proto__ key is refused as malformed (prototype poisoning).
          expect([200, 400, 422], res.text).toContain(res.status);
          expectShape(res.status === 200 ? 'summary' : 'error', res.json);
        },
      ),
      { numRuns: 200 },
    );
  });
});
