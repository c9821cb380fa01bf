import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/evaluate/run.js';
import { CliError, UsageError } from '../../../src/errors/cli-error.js';
import type { EvaluationReport } from '../../../src/commands/evaluate/report.js';
import { startTestSandbox, tempDir, type TestSandbox } from '../../support/sandbox.js';
import { defaultSandboxConfig } from '../../../src/sandbox/config/sandbox-config.js';
import { HEADER, NOW, options, resultLine, testDeps, writeFile } from './evaluate-harness.js';

/*
 * evaluate in-process through run(options, deps): results files and outcomes files written by
 * the test, the report read back as --json (the same value every rendering draws); events a line
 * cannot tell enough of read from a real sandbox on port 0.
 */

const tmp = tempDir('fraudctl-evaluate-');
let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
  await tmp.remove();
});

let files = 0;
const file = (lines: readonly string[], ext = 'jsonl') => writeFile(tmp.dir, `f-${++files}.${ext}`, lines);

async function evaluate(
  o: Parameters<typeof options>[0],
  d = testDeps(),
): Promise<{ report: EvaluationReport; deps: typeof d }> {
  try {
    await run(options(o), d);
  } finally {
    await d.close();
  }
  return { report: JSON.parse(d.written.stdout) as EvaluationReport, deps: d };
}

/* Five events of a results file that holds all evaluation needs. */
const RESULTS = [
  HEADER,
  resultLine(1, 'o-1', 'APPROVE', 0, [], 10),
  resultLine(2, 'o-2', 'APPROVE', 20, ['new_account'], 20),
  resultLine(3, 'o-3', 'REVIEW', 50, ['high_amount', 'country_mismatch'], 40),
  resultLine(4, 'o-4', 'DECLINE', 70, ['high_amount', 'country_mismatch'], 50),
  resultLine(5, 'o-5', 'DECLINE', 90, ['high_amount', 'disposable_email'], 60),
];

describe('evaluate, offline: results lines that hold all it needs', () => {
  it('reads nothing from the service; the --json report has the matrix, rules and sweep computed by hand', async () => {
    const labels = file(['id,label', 'o-2,fraud', 'o-3,1', 'o-4,true', 'o-1,legit', 'gone-1,fraud'], 'csv');
    const { report, deps } = await evaluate({ results: [file(RESULTS)], labels });
    expect(deps.clientsMade).toBe(0);
    expect(report.complete).toBe(true);
    expect(report.decisions).toEqual({
      APPROVE: { fraud: 1, legit: 1, unknown: 0, fraudAmount: 20, legitAmount: 10, unknownAmount: 0 },
      REVIEW: { fraud: 1, legit: 0, unknown: 0, fraudAmount: 40, legitAmount: 0, unknownAmount: 0 },
      DECLINE: { fraud: 1, legit: 0, unknown: 1, fraudAmount: 50, legitAmount: 0, unknownAmount: 60 },
    });
    expect(report.events).toMatchObject({
      evaluated: 5,
      fraud: 3,
      noFraudReported: 1,
      unknowable: 1,
      labelsWithoutResult: { count: 1, ids: ['gone-1'] },
    });
    expect(report.rules.find((r) => r.rule === 'high_amount')).toMatchObject({
      hits: 3,
      fraudHits: 2,
      precision: 1,
      recall: 2 / 3,
      onlyRule: 0,
    });
    expect(report.rules.find((r) => r.rule === 'new_account')).toMatchObject({ hits: 1, fraudHits: 1, onlyRule: 1 });
    expect(report.sweep).toHaveLength(101);
    expect(report.sweep[100]).toMatchObject({ threshold: 100, flagged: 0, precision: null });
    expect(report.sweep[50]).toMatchObject({
      flagged: 3,
      fraudFlagged: 2,
      unknownFlagged: 1,
      precision: 1,
      recall: 2 / 3,
    });
    expect(report.replay).toBeNull();
  });

  it('--maturity leaves out the events younger than that, and says how many', async () => {
    const young = resultLine(6, 'o-6', 'APPROVE', 0, [], 99, new Date(NOW - 10 * 86_400_000).toISOString());
    const { report } = await evaluate(
      { results: [file([...RESULTS, young])], labels: file(['id', 'o-2'], 'csv'), maturityMs: 90 * 86_400_000 },
      testDeps({ now: Date.parse('2027-01-01T00:00:00Z') }),
    );
    // 2026-11-20 is 42 days before 2027-01-01: everything is younger than 90 days.
    expect(report.events).toMatchObject({ evaluated: 0, young: 6 });
    const { report: later } = await evaluate({
      results: [file([...RESULTS, young])],
      labels: file(['id', 'o-2'], 'csv'),
      maturityMs: 30 * 86_400_000,
    });
    // At NOW (2026-12-01): o-1..o-5 (2026-11-20) are 11 days old, o-6 10 days: all young at 30 days.
    expect(later.events.young).toBe(6);
    const { report: mature } = await evaluate({
      results: [file([...RESULTS, young])],
      labels: file(['id', 'o-2'], 'csv'),
      maturityMs: 10.5 * 86_400_000,
    });
    expect(mature.events).toMatchObject({ evaluated: 5, young: 1, fraud: 1 });
    // A young event listed in the outcomes is not "a listed id with no result".
    expect(mature.events.labelsWithoutResult.count).toBe(0);
  });

  it('an event named by two files counts once; lines without a decision are counted, not evaluated', async () => {
    const rejected = JSON.stringify({
      line: 7,
      id: null,
      outcome: 'REJECTED',
      status: 422,
      actionType: null,
      totalRiskScore: null,
      errorType: 'VALIDATION_ERROR',
      errorCodes: ['amount:REQUIRED'],
      attempts: 1,
      latencyMs: 1,
    });
    const { report } = await evaluate({
      results: [file(RESULTS), file([HEADER, RESULTS[1]!, rejected])],
      labels: file(['id'], 'csv'),
    });
    expect(report.events).toMatchObject({ evaluated: 5, repeated: 1, notDecided: 1, fraud: 0 });
  });
});

describe('evaluate: the outcomes file', () => {
  const results = () => file(RESULTS);

  it('a Stripe-like dispute export: --id-column, a reason code that means fraud (--fraud-when)', async () => {
    const disputes = file(
      ['charge_id,reason,amount', 'o-2,fraudulent,20', 'o-3,product_not_received,40', 'o-4,"fraudulent",50'],
      'csv',
    );
    const { report } = await evaluate({
      results: [results()],
      labels: disputes,
      mapping: { idColumn: 'charge_id', labelColumn: null, fraudWhen: [{ column: 'reason', values: ['fraudulent'] }] },
    });
    expect(report.events.fraud).toBe(2);
    expect(report.outcomes).toMatchObject({ read: 'fraud-when', idColumn: 'charge_id', rows: 3, fraud: 2 });
  });

  it('JSON Lines with eventId and 1/0 labels; a file listing only frauds makes each listed event fraud', async () => {
    const jsonl = file(['{"eventId":"o-1","label":0}', '{"eventId":"o-5","label":1}']);
    expect((await evaluate({ results: [results()], labels: jsonl })).report.events.fraud).toBe(1);
    const listed = file(['order_id,date', 'o-1,2026-11-25', 'o-5,2026-11-26'], 'csv');
    const { report } = await evaluate({ results: [results()], labels: listed });
    expect(report.events.fraud).toBe(2);
    expect(report.outcomes.read).toBe('listed');
  });

  it('a label neither fraud nor legit, or no id column: one error naming the line or the columns', async () => {
    const bad = file(['id,label', 'o-1,fraud', 'o-2,maybe'], 'csv');
    const d = testDeps();
    const error = await run(options({ results: [results()], labels: bad }), d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      `${bad}:3: the label "maybe" is neither fraud nor legit (1/0, true/false, yes/no)`,
    );
    expect((error as UsageError).hint).toBe('say which values mean fraud: --fraud-when label=VALUE');
    expect(d.written.stdout).toBe('');
    const noId = file(['charge,label', 'o-1,fraud'], 'csv');
    await expect(run(options({ results: [results()], labels: noId }), testDeps())).rejects.toThrow(
      `${noId} has no id column (looked for id, eventId, event_id, order_id; it has charge, label)`,
    );
  });

  it('a results file of another command, not results at all, or missing: one error, nothing printed', async () => {
    const labels = file(['id'], 'csv');
    const setState = file([
      JSON.stringify({
        fraudctl: 'results',
        version: 1,
        command: 'set-state',
        service: 'x',
        options: {},
        closed: true,
      }),
    ]);
    await expect(run(options({ results: [setState], labels }), testDeps())).rejects.toThrow(
      `${setState} is the results file of fraudctl set-state, not of submit`,
    );
    const orders = file(['{"id":"x","amount":1,"currency":"EUR"}']);
    await expect(run(options({ results: [orders], labels }), testDeps())).rejects.toThrow(
      `${orders}:1 is not a result of fraudctl submit`,
    );
    const d = testDeps();
    await expect(run(options({ results: [results(), `${tmp.dir}/nope.jsonl`], labels }), d)).rejects.toThrow(
      `no such file: ${tmp.dir}/nope.jsonl`,
    );
    expect(d.written.stdout).toBe('');
  });
});

describe('evaluate, reading what the lines lack from the sandbox', () => {
  async function screened(
    id: string,
    body: Record<string, unknown>,
  ): Promise<{ actionType: string; totalRiskScore: number; ruleMatches: { ruleId: string }[] }> {
    const reply = await sb.call('POST', '/event', { body: { id, eventDate: '2026-11-10T08:00:00Z', ...body } });
    expect(reply.status).toBe(201);
    return reply.json as never;
  }

  it('older lines (no rules, no amount) and --from ids are read; the figures are the service’s decisions', async () => {
    const big = await screened('read-1', {
      amount: 2000,
      currency: 'USD',
      billingCountry: 'DE',
      shippingCountry: 'FR',
    });
    const small = await screened('read-2', { amount: 20, currency: 'EUR' });
    await screened('read-3', {
      amount: 9000,
      currency: 'EUR',
      userEmail: 'x@mailinator.com',
      billingCountry: 'DE',
      shippingCountry: 'FR',
    });
    // A line of an older fraudctl: the decision only.
    const old = JSON.stringify({
      line: 1,
      id: 'read-1',
      outcome: 'DECIDED',
      status: 201,
      actionType: big.actionType,
      totalRiskScore: big.totalRiskScore,
      errorType: null,
      errorCodes: [],
      attempts: 1,
      latencyMs: 3,
    });
    const ids = file(['read-2', 'read-3', 'read-missing']);
    const d = testDeps({ service: sb.url });
    const error = await run(
      options({ results: [file([old])], from: ids, labels: file(['id', 'read-3'], 'csv') }),
      d,
    ).catch((e: unknown) => e);
    await d.close();
    // The one id the service does not have: counted, named, and the run ends with its exit code.
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(4);
    expect((error as CliError).message).toBe('1 event could not be read: the figures above leave them out');
    const report = JSON.parse(d.written.stdout) as EvaluationReport;
    expect(report.complete).toBe(false);
    expect(report.events.unread).toMatchObject({
      count: 1,
      byKind: { 'not-found': 1 },
      events: [{ id: 'read-missing', where: `${ids}:3` }],
    });
    expect(report.events.evaluated).toBe(3);
    // USD 2000 is EUR 1840 at the sandbox's rate.
    const amountOf = (a: string) => report.decisions[a as 'APPROVE'];
    expect(amountOf(big.actionType).legitAmount + amountOf(big.actionType).unknownAmount).toBeGreaterThanOrEqual(1840);
    const byRule = Object.fromEntries(report.rules.map((r) => [r.rule, r.hits]));
    expect(byRule).toMatchObject({ high_amount: 2, country_mismatch: 2, disposable_email: 1, very_high_amount: 1 });
    expect(report.decisions[small.actionType as 'APPROVE'].legit).toBeGreaterThanOrEqual(1);
    expect(report.events.fraud).toBe(1);
  });
});

describe('evaluate --rules: the events replayed under a candidate configuration', () => {
  let n = 0;
  async function screenedLines(prefix: string, bodies: Record<string, unknown>[]): Promise<string[]> {
    const lines: string[] = [HEADER];
    for (const body of bodies) {
      const id = `${prefix}-${++n}`;
      const reply = await sb.call('POST', '/event', { body: { id, currency: 'EUR', ...body } });
      expect(reply.status).toBe(201);
      const d = reply.json as { actionType: string; totalRiskScore: number; ruleMatches: { ruleId: string }[] };
      const summary = (await sb.call('GET', `/event/${id}`)).json as {
        amountInBaseCurrency: number;
        eventDate: string;
      };
      lines.push(
        resultLine(
          lines.length,
          id,
          d.actionType,
          d.totalRiskScore,
          d.ruleMatches.map((m) => m.ruleId),
          summary.amountInBaseCurrency,
          summary.eventDate,
        ),
      );
    }
    return lines;
  }
  /** A morning's orders in date order: a velocity burst from one address, amounts around the rules' lines. */
  // Each case its own addresses: the sandbox counts velocity over every event it holds, a replay over its files' only.
  const orders = (prefix: string): Record<string, unknown>[] =>
    Array.from({ length: 24 }, (_, i) => ({
      eventDate: new Date(Date.parse('2026-11-05T08:00:00Z') + i * 120_000).toISOString(),
      amount: [40, 900, 1500, 6000][i % 4],
      userEmail: i < 8 ? `burst-${prefix}@example.com` : `buyer${i}-${prefix}@example.com`,
      billingCountry: 'DE',
      shippingCountry: i % 3 === 0 ? 'FR' : 'DE',
    }));

  it('the configuration in force replays to no shift, velocity included', async () => {
    const lines = await screenedLines('same', orders('same'));
    const config = writeFile(tmp.dir, 'today.json', [JSON.stringify(defaultSandboxConfig())]);
    const { report } = await evaluate(
      { results: [file(lines)], labels: file(['id', 'same-2'], 'csv'), rules: config },
      testDeps({ service: sb.url }),
    );
    const r = report.replay!;
    expect(r).toMatchObject({ events: 24, unread: 0, changed: 0 });
    // Some events did hit email_velocity today, and do again.
    expect(report.rules.find((x) => x.rule === 'email_velocity')?.hits).toBeGreaterThan(0);
    expect(r.candidateFigures.decisions).toEqual(r.today.decisions);
    const fired = (rules: typeof r.today.rules) => rules.filter((x) => x.hits > 0);
    expect(fired(r.candidateFigures.rules)).toEqual(fired(r.today.rules));
    for (const [from, row] of Object.entries(r.shift)) expect(Object.keys(row)).toEqual([from]);
  });

  it('a candidate with a lower review threshold and no high_amount rule: the shift, counted by hand', async () => {
    const lines = await screenedLines('cand', orders('cand'));
    const candidate = defaultSandboxConfig();
    candidate.thresholds.review = 20;
    candidate.rules = candidate.rules.filter((rule) => rule.id !== 'high_amount');
    const config = writeFile(tmp.dir, 'candidate.json', [JSON.stringify(candidate)]);
    const { report } = await evaluate(
      { results: [file(lines)], labels: file(['id'], 'csv'), rules: config },
      testDeps({ service: sb.url }),
    );
    // By hand: today each result line's score less 30 where high_amount matched, then 20/70.
    const expected: Record<string, Record<string, number>> = {};
    for (const line of lines.slice(1)) {
      const r = JSON.parse(line) as { actionType: string; totalRiskScore: number; ruleIds: string[] };
      const score = r.totalRiskScore - (r.ruleIds.includes('high_amount') ? 30 : 0);
      const to = score >= 70 ? 'DECLINE' : score >= 20 ? 'REVIEW' : 'APPROVE';
      (expected[r.actionType] ??= {})[to] = (expected[r.actionType]![to] ?? 0) + 1;
    }
    const got = Object.fromEntries(
      Object.entries(report.replay!.shift).map(([from, row]) => [
        from,
        Object.fromEntries(Object.entries(row).map(([to, c]) => [to, c.count])),
      ]),
    );
    expect(got).toEqual(expected);
    expect(report.replay!.changed).toBeGreaterThan(0);
    expect(report.replay!.candidateFigures.rules.map((x) => x.rule)).not.toContain('high_amount');
  });

  it('a candidate file that is not a configuration: one error naming it, before anything is read', async () => {
    const bad = writeFile(tmp.dir, 'bad.json', ['{"thresholds": {"review": 80, "decline": 20}}']);
    const d = testDeps({ service: sb.url });
    await expect(
      run(options({ results: [file(RESULTS)], labels: file(['id'], 'csv'), rules: bad }), d),
    ).rejects.toThrow(`sandbox config (${bad}): thresholds.review must not be above thresholds.decline`);
    expect(d.clientsMade).toBe(0);
    expect(d.written.stdout).toBe('');
  });
});

describe('evaluate: reading on a terminal', () => {
  it('counts the events read on stderr, then erases the count before the report', async () => {
    const reply = await sb.call('POST', '/event', { body: { id: 'tty-1', amount: 10, currency: 'EUR' } });
    expect(reply.status).toBe(201);
    const d = testDeps({ service: sb.url, tty: true, env: { NO_COLOR: '1' } });
    await run(options({ from: file(['tty-1']), labels: file(['id'], 'csv'), format: 'terminal' }), d);
    await d.close();
    expect(d.written.stderr).toBe('\r\x1b[Kreading events 1/1\r\x1b[K');
    expect(d.written.stdout).toMatch(/^Evaluated 1 event /);
  });
});
