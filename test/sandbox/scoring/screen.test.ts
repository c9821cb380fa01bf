import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSandboxConfig } from '../../../src/sandbox/config/sandbox-config.js';
import type { Decision, RiskAssessment } from '../../../src/contract/index.js';
import { startTestSandbox, writeConfig, type TestSandbox } from '../../support/sandbox.js';

const example = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../examples/${name}.json`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;

let sb: TestSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

async function submit(body: unknown): Promise<Decision> {
  const res = await sb!.call('POST', '/event', { body });
  expect(res.status, res.text).toBe(201);
  return res.json as Decision;
}

describe('default rules', () => {
  it('land each example on its decision', async () => {
    sb = await startTestSandbox();
    expect(await submit(example('approve'))).toMatchObject({
      actionType: 'APPROVE',
      totalRiskScore: 0,
      ruleMatches: [],
    });
    expect(await submit(example('review'))).toMatchObject({ actionType: 'REVIEW', totalRiskScore: 50 });
    const decline = await submit(example('decline'));
    expect(decline).toMatchObject({ actionType: 'DECLINE', totalRiskScore: 100 });
    expect(decline.ruleMatches.map((m) => m.ruleId).sort()).toEqual([
      'country_mismatch',
      'disposable_email',
      'high_amount',
      'new_account',
      'risky_category',
    ]);
  });

  it('score velocity from the database: the 6th order of one email within the hour is flagged', async () => {
    sb = await startTestSandbox();
    const at = (minute: number) => `2026-11-22T10:${String(minute).padStart(2, '0')}:00Z`;
    const order = (n: number, minute: number) => ({
      id: `v-${n}`,
      amount: 20,
      currency: 'EUR',
      userEmail: 'fast@example.com',
      eventDate: at(minute),
    });
    for (let n = 1; n <= 5; n++) expect((await submit(order(n, n))).ruleMatches).toEqual([]);
    expect((await submit(order(6, 6))).ruleMatches.map((m) => m.ruleId)).toEqual(['email_velocity']);
    // Another email, and the same email much later, are not.
    expect((await submit({ ...order(7, 7), userEmail: 'calm@example.com' })).ruleMatches).toEqual([]);
    expect((await submit({ ...order(8, 0), eventDate: '2026-11-22T13:00:00Z' })).ruleMatches).toEqual([]);
  });

  it('count velocity up to the cap a rule gives, and no further', async () => {
    const config = defaultSandboxConfig();
    config.rules = [
      {
        id: 'cap',
        name: 'Cap',
        description: 'seen {userEmail}',
        severity: 'LOW',
        score: 40,
        when: { '==': [{ velocity: ['userEmail', 3600, 2] }, 2] },
      },
    ];
    sb = await startTestSandbox({ configFile: writeConfig({ rules: config.rules }) });
    const order = (n: number) => ({
      id: `cap-${n}`,
      amount: 1,
      currency: 'EUR',
      userEmail: 'c@example.com',
      eventDate: `2026-11-22T10:0${n}:00Z`,
    });
    const actions = [];
    for (let n = 1; n <= 5; n++) actions.push((await submit(order(n))).actionType);
    // Two earlier orders reach the cap; with four earlier ones the count is still 2, not 4.
    expect(actions).toEqual(['APPROVE', 'APPROVE', 'REVIEW', 'REVIEW', 'REVIEW']);
  });

  it('score IP velocity over ten minutes', async () => {
    sb = await startTestSandbox();
    const order = (n: number) => ({
      id: `ip-${n}`,
      amount: 20,
      currency: 'EUR',
      userIp: '2001:db8::7',
      eventDate: `2026-11-22T10:00:${String(n).padStart(2, '0')}Z`,
    });
    for (let n = 1; n <= 10; n++) await submit(order(n));
    expect((await submit(order(11))).ruleMatches.map((m) => m.ruleId)).toEqual(['ip_velocity']);
  });

  it('force DECLINE with score 100 on a denylist match and APPROVE on an allowlist match', async () => {
    sb = await startTestSandbox();
    const denied = await submit({ id: 'd-1', amount: 5, currency: 'EUR', userEmail: 'Known.Fraudster@example.net' });
    expect(denied).toMatchObject({ actionType: 'DECLINE', totalRiskScore: 100, state: 'DECLINED' });
    expect(denied.listMatches).toEqual([
      { list: 'DENYLIST', field: 'userEmail', value: 'Known.Fraudster@example.net' },
    ]);
    const summary = (await sb.call('GET', '/event/d-1')).json as { denylistMatch: boolean; allowlistMatch: boolean };
    expect(summary).toMatchObject({ denylistMatch: true, allowlistMatch: false });

    const allowed = await submit({ ...example('decline'), id: 'a-1', userEmail: 'trusted.buyer@example.com' });
    expect(allowed).toMatchObject({ actionType: 'APPROVE', state: 'APPROVED' });
    expect(allowed.listMatches).toEqual([
      { list: 'ALLOWLIST', field: 'userEmail', value: 'trusted.buyer@example.com' },
    ]);

    const both = await submit({
      id: 'b-1',
      amount: 5,
      currency: 'EUR',
      userEmail: 'trusted.buyer@example.com',
      userIp: '203.0.113.66',
    });
    expect(both).toMatchObject({ actionType: 'DECLINE', totalRiskScore: 100 });
    const assessment = (await sb.call('GET', '/event/b-1/risk-assessment')).json as RiskAssessment;
    expect(assessment.listMatches.map((m) => m.list).sort()).toEqual(['ALLOWLIST', 'DENYLIST']);
  });

  it('convert amounts to the base currency with the rate table', async () => {
    sb = await startTestSandbox();
    await submit({
      id: 'fx-1',
      amount: 100,
      currency: 'USD',
      items: [{ itemQuantity: 2, itemPrice: 10, itemCurrency: 'JPY' }],
    });
    const s = (await sb.call('GET', '/event/fx-1')).json as {
      amountInBaseCurrency: number;
      items: { itemPriceInBaseCurrency: number; itemCurrency: string }[];
    };
    expect(s.amountInBaseCurrency).toBe(92);
    expect(s.items[0]).toMatchObject({ itemPriceInBaseCurrency: 0.06, itemCurrency: 'JPY' });
  });
});

describe('rules are data', () => {
  it('a changed rule in the config file changes the decision', async () => {
    const config = defaultSandboxConfig();
    sb = await startTestSandbox();
    expect((await submit({ id: 'c-1', amount: 600, currency: 'EUR' })).actionType).toBe('APPROVE');
    await sb.close();

    const highAmount = config.rules.find((r) => r.id === 'high_amount')!;
    highAmount.when = { '>': [{ var: 'amountInBaseCurrency' }, 500] };
    sb = await startTestSandbox({ configFile: writeConfig({ rules: config.rules }) });
    expect(await submit({ id: 'c-1', amount: 600, currency: 'EUR' })).toMatchObject({
      actionType: 'REVIEW',
      totalRiskScore: 30,
    });
  });

  it('thresholds, base currency and rates come from the config', async () => {
    sb = await startTestSandbox({
      configFile: writeConfig({
        baseCurrency: 'USD',
        rates: { USD: 1, EUR: 1.1 },
        thresholds: { review: 10, decline: 20 },
      }),
    });
    const d = await submit({ id: 't-1', amount: 1000, currency: 'EUR' });
    expect(d).toMatchObject({ actionType: 'DECLINE', totalRiskScore: 30 });
    expect((await sb.call('GET', '/event/t-1')).json).toMatchObject({
      baseCurrency: 'USD',
      amountInBaseCurrency: 1100,
    });
    const rejected = await sb.call('POST', '/event', { body: { amount: 1, currency: 'GBP' } });
    expect(rejected.status).toBe(422);
  });

  it('a disabled rule does not fire', async () => {
    const config = defaultSandboxConfig();
    config.rules = config.rules.map((r) => (r.id === 'high_amount' ? { ...r, enabled: false } : r));
    sb = await startTestSandbox({ configFile: writeConfig({ rules: config.rules }) });
    expect((await submit({ id: 'e-1', amount: 2000, currency: 'EUR' })).actionType).toBe('APPROVE');
  });
});
