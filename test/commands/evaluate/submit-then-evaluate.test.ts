import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/evaluate/run.js';
import { UsageError } from '../../../src/errors/cli-error.js';
import type { EvaluationReport } from '../../../src/commands/evaluate/report.js';
import { defaultSandboxConfig } from '../../../src/sandbox/config/sandbox-config.js';
import { useSandboxInProcess } from '../../support/in-process-cli.js';
import { options, testDeps } from './evaluate-harness.js';

/*
 * What a results file of today's submit lets evaluate do without the service: submit run
 * in-process against a real sandbox on port 0 writes the file (its lines in the base currency
 * carry their base amount); evaluate reads it with a client that counts every request it sends.
 */

const cli = useSandboxInProcess();

/** A day of orders, most in the base currency (EUR), some in USD; an address bursts (velocity). */
const orders = (prefix: string) =>
  Array.from({ length: 30 }, (_, i) => ({
    id: `${prefix}-${i + 1}`,
    eventDate: new Date(Date.parse('2026-08-03T09:00:00Z') + i * 90_000).toISOString(),
    amount: [35, 620, 1450, 7200, 90][i % 5],
    currency: i % 6 === 5 ? 'USD' : 'EUR',
    userEmail: i % 3 === 0 ? `burst-${prefix}@example.com` : `buyer${i}-${prefix}@example.com`,
    billingCountry: 'DE',
    shippingCountry: i % 4 === 0 ? 'FR' : 'DE',
  }));

/** Sent one at a time (in date order): the service counts velocity over the events it holds on arrival. */
async function submitted(prefix: string): Promise<{ events: string; results: string; count: number }> {
  const events = join(cli.dir, `${prefix}-events.jsonl`);
  const results = join(cli.dir, `${prefix}-results.jsonl`);
  const all = orders(prefix);
  writeFileSync(events, all.map((o) => JSON.stringify(o)).join('\n') + '\n');
  const r = await cli.run(['submit', events, '--out', results, '--concurrency', '1', '--quiet']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return { events, results, count: all.length };
}

const labels = (prefix: string) => {
  const path = join(cli.dir, `${prefix}-labels.csv`);
  writeFileSync(path, `id,label\n${prefix}-3,fraud\n${prefix}-4,fraud\n`);
  return path;
};

async function evaluate(o: Parameters<typeof options>[0]) {
  const d = testDeps({ service: cli.sb.url });
  try {
    await run(options(o), d);
  } finally {
    await d.close();
  }
  return { report: JSON.parse(d.written.stdout) as EvaluationReport, reads: d.reads };
}

/**
 * The file as a fraudctl from before the batch learned the base currency wrote it: no
 * baseCurrency, and no amountInBaseCurrency (the POST's answer has none).
 */
function asOlderFile(results: string): void {
  const lines = readFileSync(results, 'utf8').trimEnd().split('\n');
  const older = lines.map((line, i) => {
    if (i === 0) return line;
    const { baseCurrency: _base, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return JSON.stringify({ ...rest, amountInBaseCurrency: null });
  });
  writeFileSync(results, older.join('\n') + '\n');
}

describe('evaluate on what submit wrote', () => {
  it('a file of today: no request for the base-currency lines, only the events in another currency are read', async () => {
    const { results, count } = await submitted('base');
    const usd = orders('base').filter((o) => o.currency === 'USD').length;
    const { report, reads } = await evaluate({ results: [results], labels: labels('base') });
    expect(report.complete).toBe(true);
    expect(report.events.evaluated).toBe(count);
    // The file says EUR (its first result, line 2); each USD event is read for its amount in EUR (a GET, no assessment).
    expect(report.baseCurrency).toEqual({ code: 'EUR', from: 'results', where: `${results}:2` });
    expect(reads).toEqual({ getEvent: usd, getRiskAssessment: 0 });
    expect(report.events.read).toBe(usd);
    // The amounts are the service's: the sum of every event's amountInBaseCurrency.
    let total = 0;
    for (const o of orders('base'))
      total += (
        (await cli.sb.call('GET', `/event/${o.id}`)).json as {
          amountInBaseCurrency: number;
        }
      ).amountInBaseCurrency;
    const sum = Object.values(report.decisions).reduce(
      (s, c) => s + c.fraudAmount + c.legitAmount + c.unknownAmount,
      0,
    );
    expect(sum).toBeCloseTo(total, 2);
  });

  it('an older file: reads one event for the base currency, then only the events in another currency', async () => {
    const { results, count } = await submitted('older');
    asOlderFile(results);
    const usd = orders('older').filter((o) => o.currency === 'USD').length;
    const { report, reads } = await evaluate({ results: [results], labels: labels('older') });
    expect(report.complete).toBe(true);
    expect(report.events.evaluated).toBe(count);
    // One summary says EUR; each USD event is read for its amount in EUR.
    expect(report.baseCurrency).toEqual({ code: 'EUR', from: 'event', id: 'older-1' });
    expect(reads).toEqual({ getEvent: 1 + usd, getRiskAssessment: 0 });
    expect(report.events.read).toBe(usd);
  });

  it('with --base-currency: no request at all for the lines in it', async () => {
    const { results } = await submitted('given');
    const eurOnly = readFileSync(results, 'utf8')
      .split('\n')
      .filter((l) => !l.includes('"currency":"USD"'))
      .join('\n');
    writeFileSync(results, eurOnly);
    const { report, reads } = await evaluate({ results: [results], labels: labels('given'), baseCurrency: 'EUR' });
    expect(reads).toEqual({ getEvent: 0, getRiskAssessment: 0 });
    expect(report.baseCurrency).toEqual({ code: 'EUR', from: 'option' });
    expect(report.events.read).toBe(0);
    expect(report.events.evaluated).toBe(orders('given').filter((o) => o.currency === 'EUR').length);
  });

  it('--base-currency other than the one a file records: one line saying both, nothing read or printed', async () => {
    const { results } = await submitted('clash');
    const d = testDeps({ service: cli.sb.url });
    const error = await run(options({ results: [results], labels: labels('clash'), baseCurrency: 'GBP' }), d).catch(
      (e: unknown) => e,
    );
    await d.close();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      `${results}:2 records the base currency EUR, but --base-currency says GBP: its amounts are not in the same currency`,
    );
    expect((error as UsageError).hint).toBe('leave out --base-currency: the results files say it');
    expect(d.reads).toEqual({ getEvent: 0, getRiskAssessment: 0 });
    expect(d.written.stdout).toBe('');
  });

  it('a base currency that is not the lines’: each of them is read (the amounts are never taken as is)', async () => {
    const { results, count } = await submitted('other');
    asOlderFile(results);
    const { report, reads } = await evaluate({ results: [results], labels: labels('other'), baseCurrency: 'GBP' });
    expect(reads.getEvent).toBe(count);
    expect(report.events.read).toBe(count);
  });

  it('--rules with --events: the payloads from the file submit read, no request; the config in force shifts nothing', async () => {
    const { events, results, count } = await submitted('replay');
    const config = join(cli.dir, 'today.json');
    writeFileSync(config, JSON.stringify(defaultSandboxConfig()));
    const { report, reads } = await evaluate({
      results: [results],
      labels: labels('replay'),
      baseCurrency: 'EUR',
      rules: config,
      events: [events],
    });
    // The USD events are read for their base amount; the replay reads nothing.
    expect(reads.getEvent).toBe(orders('replay').filter((o) => o.currency === 'USD').length);
    expect(report.replay).toMatchObject({ payloads: 'files', events: count, unread: 0, changed: 0 });
    expect(report.rules.find((r) => r.rule === 'email_velocity')?.hits).toBeGreaterThan(0);
    expect(report.replay!.candidateFigures.decisions).toEqual(report.replay!.today.decisions);
  });

  it('--events files and the service give the same replay; an event not in the files is counted, not replayed', async () => {
    const { events, results } = await submitted('same');
    const candidate = defaultSandboxConfig();
    candidate.thresholds.review = 15;
    const config = join(cli.dir, 'candidate.json');
    writeFileSync(config, JSON.stringify(candidate));
    const base = { results: [results], labels: labels('same'), baseCurrency: 'EUR', rules: config };
    const fromService = (await evaluate(base)).report.replay!;
    const fromFiles = (await evaluate({ ...base, events: [events] })).report.replay!;
    expect(fromFiles.changed).toBeGreaterThan(0);
    expect({ ...fromFiles, payloads: 'service' }).toEqual(fromService);

    const lines = readFileSync(events, 'utf8').trimEnd().split('\n');
    const short = join(cli.dir, 'short.jsonl');
    writeFileSync(short, lines.slice(1).join('\n') + '\n');
    const { report } = await evaluate({ ...base, events: [short] });
    expect(report.replay).toMatchObject({ payloads: 'files', events: lines.length - 1, unread: 1 });
  });

  it('an --events file that is not there: one line naming it (exit 2) before anything is read or printed', async () => {
    const { results } = await submitted('gone');
    const config = join(cli.dir, 'today.json');
    writeFileSync(config, JSON.stringify(defaultSandboxConfig()));
    const d = testDeps({ service: cli.sb.url });
    const missing = join(cli.dir, 'no-such-events.jsonl');
    const error = await run(
      options({ results: [results], labels: labels('gone'), rules: config, events: [missing] }),
      d,
    ).catch((e: unknown) => e);
    await d.close();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(`no such file: ${missing} (an events file of --events)`);
    expect(d.reads).toEqual({ getEvent: 0, getRiskAssessment: 0 });
    expect(d.written.stdout).toBe('');
  });
});
