import Database from 'libsql';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TRANSITIONS, type EventSummary, type KnownState } from '../../src/contract/index.js';
import { startServe } from '../support/cli.js';
import { expectShape } from '../support/contract-validator.js';
import { send, startTestSandbox, tempDir, writeConfig } from '../support/sandbox.js';

/*
 * Tenancy, durability and concurrent state changes. The soak in the suite is short
 * and deterministic in what it asserts (whatever the timing, each check must hold); `npm run
 * soak` runs it longer (FRAUDCTL_SOAK_EVENTS acknowledged events before the kill).
 */

const tmp = tempDir();
afterAll(() => tmp.remove());
const A = 'merchant-a-key-0001';
const B = 'merchant-b-key-0002';
const twoMerchants = () =>
  writeConfig({
    merchants: [
      { id: 'a', apiKey: A },
      { id: 'b', apiKey: B },
    ],
  });
const review = (id: string, amount = 1200) => ({
  id,
  amount,
  currency: 'EUR',
  billingCountry: 'DE',
  shippingCountry: 'FR',
  userEmail: `${id}@example.com`,
});

describe('tenancy', () => {
  it('two merchants with colliding ids neither read, assess nor change each other’s events, on any endpoint', async () => {
    const sb = await startTestSandbox({ configFile: twoMerchants() });
    try {
      const first = await sb.call('POST', '/event', { key: A, body: review('same-id', 1200) });
      expect(first.status).toBe(201);
      // Before B has an event with that id: 404 everywhere, never A's data.
      for (const [method, path, body] of [
        ['GET', '/event/same-id'],
        ['GET', '/event/same-id/risk-assessment'],
        ['PATCH', '/event/same-id/state', { state: 'DECLINED', comments: 'b was here' }],
      ] as const) {
        const res = await sb.call(method, path, { key: B, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.text).not.toContain('1200');
      }
      // A's exact payload from B is B's new event, not a replay of A's; a different one not a conflict.
      expect((await sb.call('POST', '/event', { key: B, body: review('same-id', 1200) })).status).toBe(201);
      expect((await sb.call('POST', '/event', { key: B, body: review('other-id', 7) })).status).toBe(201);
      expect(
        (await sb.call('PATCH', '/event/same-id/state', { key: B, body: { state: 'DECLINED', comments: 'b decides' } }))
          .status,
      ).toBe(200);
      const aSees = (await sb.call('GET', '/event/same-id', { key: A })).json as EventSummary;
      expect(aSees).toMatchObject({ state: 'PENDING_REVIEW', comments: null });
      expect((await sb.call('GET', '/event/same-id', { key: B })).json).toMatchObject({
        state: 'DECLINED',
        comments: 'b decides',
      });
      expect((await sb.call('GET', '/event/other-id', { key: A })).status).toBe(404);
      // A's replay still answers A's decision.
      expect((await sb.call('POST', '/event', { key: A, body: review('same-id', 1200) })).json).toEqual(first.json);
    } finally {
      await sb.close();
    }
  });
});

describe('concurrent state changes', () => {
  it('50 concurrent PATCHes of one event to different states leave a history the state machine allows', async () => {
    const dbPath = join(tmp.dir, 'patches.db');
    const sb = await startTestSandbox({ dbPath });
    try {
      expect((await sb.call('POST', '/event', { body: review('contested') })).json).toMatchObject({
        state: 'PENDING_REVIEW',
      });
      const states = Object.keys(TRANSITIONS) as KnownState[];
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          sb.call('PATCH', '/event/contested/state', {
            body: { state: states[i % states.length], comments: `reviewer ${i}` },
          }),
        ),
      );
      for (const r of replies) expect([200, 422], r.text).toContain(r.status);
      const db = new Database(dbPath, { readonly: true });
      const history = db
        .prepare("SELECT from_state, to_state, comments FROM state_changes WHERE event_id = 'contested' ORDER BY seq")
        .all() as { from_state: KnownState; to_state: KnownState; comments: string }[];
      db.close();
      expect(history.length).toBe(replies.filter((r) => r.status === 200).length);
      let current: KnownState = 'PENDING_REVIEW';
      for (const step of history) {
        expect(step.from_state).toBe(current);
        if (step.to_state !== step.from_state) expect(TRANSITIONS[step.from_state]).toContain(step.to_state);
        current = step.to_state;
      }
      const final = (await sb.call('GET', '/event/contested')).json as EventSummary;
      expect(final.state).toBe(current);
      expect(final.comments).toBe(history.at(-1)?.comments ?? null);
    } finally {
      await sb.close();
    }
  });
});

describe('durability', () => {
  const target = Number(process.env.FRAUDCTL_SOAK_EVENTS ?? (process.env.FRAUDCTL_LONG ? 20_000 : 150));

  it(`after a kill -9 amid mixed traffic (${target} acknowledged events), every acknowledged event is readable and none is half-stored`, async () => {
    const db = join(tmp.dir, 'soak.db');
    const first = await startServe(['--db', db]);
    const acked = new Map<string, number>();
    const sent = new Map<string, number>();
    let n = 0;
    let killed = false;
    const worker = async () => {
      while (!killed) {
        const i = n++;
        const id = `soak-${i}`;
        const amount = 1 + (i % 2000);
        sent.set(id, amount);
        try {
          const res = await send(first.url, 'POST', '/event', { body: review(id, amount) });
          if (res.status === 201) acked.set(id, amount);
          // Mixed traffic: reads and state changes of events already acknowledged.
          if (i % 3 === 0) await send(first.url, 'GET', `/event/${id}`);
          if (i % 5 === 0)
            await send(first.url, 'PATCH', `/event/${id}/state`, {
              body: { state: 'IN_REVIEW', comments: `soak ${i}` },
            });
        } catch {
          // The kill: this request's outcome is unknown, and the checks below allow either.
        }
        if (acked.size >= target && !killed) {
          killed = true;
          await first.stop('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));

    const second = await startServe(['--db', db]);
    try {
      for (const [id, amount] of sent) {
        const res = await send(second.url, 'GET', `/event/${id}`);
        if (acked.has(id)) expect(res.status, id).toBe(200);
        if (res.status === 200) {
          // Whole: the summary in its full shape, with the amount that was sent.
          expectShape('summary', res.json);
          expect((res.json as EventSummary).amount).toBe(amount);
          const assessment = await send(second.url, 'GET', `/event/${id}/risk-assessment`);
          expect(assessment.status).toBe(200);
        } else {
          expect(res.status, id).toBe(404);
        }
      }
    } finally {
      await second.stop();
    }
  }, 600_000);
});
