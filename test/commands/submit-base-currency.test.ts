import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/evaluate/run.js';
import { byLine, readResults } from '../support/batch-events.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { listen } from '../support/listen.js';
import { options, testDeps } from './evaluate/evaluate-harness.js';

/*
 * A batch learns the service's base currency with one read, so that its results lines hold the
 * amount in the base currency for events sent in it, and `evaluate` needs no request for them.
 * submit runs in-process against a real sandbox on port 0, through a relay of the test's that
 * counts the reads of an event (GET /event/{id}) and can make them fail; every other request
 * passes as it is.
 */

const cli = useSandboxInProcess();
let fileNo = 0;

/** EUR (the sandbox's base currency) and USD events. */
function events(prefix: string, count = 24) {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i + 1}`,
    eventDate: '2026-11-20T09:14:03Z',
    amount: [35, 620.5, 1450, 90.25][i % 4],
    currency: i % 3 === 2 ? 'USD' : 'EUR',
    userEmail: `buyer${i}-${prefix}@example.com`,
    billingCountry: 'DE',
    shippingCountry: 'DE',
  }));
}

function input(prefix: string, count?: number): { path: string; sent: ReturnType<typeof events> } {
  const sent = events(prefix, count);
  const path = join(cli.dir, `${++fileNo}-${prefix}.jsonl`);
  writeFileSync(path, sent.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return { path, sent };
}

const outPath = () => join(cli.dir, `${++fileNo}-results.jsonl`);

type Forward = (options?: { path?: string; key?: string; body?: (json: Record<string, unknown>) => unknown }) => void;

type OnRead = (res: ServerResponse, forward: Forward) => void;

/**
 * The sandbox behind a relay: `onRead` answers each GET /event/{id} (by default: passed on; it
 * can be changed between runs); `reads` lists them, `posts` counts the POSTs answered.
 */
async function relay(onRead: OnRead = (_res, forward) => forward()) {
  const seen = { reads: [] as string[], posts: 0 };
  const handle = { onRead };
  const target = cli.sb.url;
  const server = await listen((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forward: Forward = ({ path = req.url!, key, body } = {}) => {
        const headers = { ...req.headers } as Record<string, string>;
        for (const name of ['host', 'connection', 'content-length']) delete headers[name];
        if (key !== undefined) headers['x-client-api-key'] = key;
        void request(target + path, {
          method: req.method as 'GET',
          headers,
          body: chunks.length > 0 ? Buffer.concat(chunks) : null,
        }).then(async (answer) => {
          let text = await answer.body.text();
          if (body) text = JSON.stringify(body(JSON.parse(text) as Record<string, unknown>));
          if (req.method === 'POST') seen.posts++;
          res.writeHead(answer.statusCode, { 'content-type': 'application/json' });
          res.end(text);
        });
      };
      if (req.method === 'GET' && /^\/event\/[^/]+$/.test(req.url!)) {
        seen.reads.push(req.url!);
        handle.onRead(res, forward);
      } else forward();
    });
  });
  return { url: server.url, seen, handle };
}

const submit = (args: string[], url: string) => cli.run(['submit', ...args], { env: { FRAUDCTL_BASE_URL: url } });

describe('a batch learns the base currency once', () => {
  it('every EUR line has its amount as amountInBaseCurrency, every line baseCurrency "EUR": one read for the run', async () => {
    const { path, sent } = input('learn');
    const service = await relay();
    const out = outPath();
    const result = await submit([path, '--out', out, '--concurrency', '4', '--quiet'], service.url);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(service.seen.reads).toHaveLength(1);
    const { lines } = byLine(readResults(out));
    expect(lines.size).toBe(sent.length);
    sent.forEach((e, i) => {
      const line = lines.get(i + 1)!;
      expect(line).toMatchObject({ id: e.id, outcome: 'DECIDED', attempts: 1, amount: e.amount, currency: e.currency });
      expect(line.baseCurrency).toBe('EUR');
      expect(line.amountInBaseCurrency).toBe(e.currency === 'EUR' ? e.amount : null);
    });
  });

  it('a read answered only after the lines in flight were decided: those lines waited for it', async () => {
    const { path, sent } = input('late');
    let release: (() => void) | undefined;
    const service = await relay((_res, forward) => {
      release = forward;
    });
    const out = outPath();
    const running = submit([path, '--out', out, '--concurrency', '4', '--quiet'], service.url);
    // The four lines in flight are answered; only then does the read come back.
    await expect.poll(() => service.seen.posts >= 4 && release !== undefined, { timeout: 10_000 }).toBe(true);
    release!();
    expect((await running).code).toBe(0);
    const { lines } = byLine(readResults(out));
    for (const [i, e] of sent.entries()) {
      expect(lines.get(i + 1)!.baseCurrency).toBe('EUR');
      if (e.currency === 'EUR') expect(lines.get(i + 1)!.amountInBaseCurrency).toBe(e.amount);
    }
  });

  it('results on stdout (--json) carry it too; a run that writes no results reads nothing more', async () => {
    const service = await relay();
    const printed = await submit([input('json').path, '--json', '--quiet'], service.url);
    expect(printed.code, printed.stderr).toBe(0);
    expect(service.seen.reads).toHaveLength(1);
    const lines = printed.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { baseCurrency: string | null });
    expect(lines.every((l) => l.baseCurrency === 'EUR')).toBe(true);

    const quiet = await submit([input('no-results').path, '--concurrency', '4', '--quiet'], service.url);
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(service.seen.reads).toHaveLength(1);
  });

  const failures: [string, OnRead][] = [
    ['the event not found (404)', (_res, forward) => forward({ path: '/event/never-stored' })],
    ['503 with Retry-After: 0 (not retried)', (res) => res.writeHead(503, { 'retry-after': '0' }).end('{}')],
    ['500', (res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"errorType":"INTERNAL"}')],
    ['a refused key (401): the run is not stopped', (_res, forward) => forward({ key: 'not-the-key' })],
    ['the connection dropped', (res) => res.socket!.destroy()],
    ['a summary without a valid code', (_res, forward) => forward({ body: (s) => ({ ...s, baseCurrency: 'euro' }) })],
  ];
  for (const [name, onRead] of failures) {
    it(`a read that fails, ${name}: the lines as without it, the run as ever, one request`, async () => {
      const { path, sent } = input(`fails-${++fileNo}`, 12);
      const service = await relay(onRead);
      const out = outPath();
      const result = await submit([path, '--out', out, '--concurrency', '4', '--quiet'], service.url);
      expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(service.seen.reads).toHaveLength(1);
      const { lines } = byLine(readResults(out));
      expect(lines.size).toBe(sent.length);
      for (const [i, e] of sent.entries()) {
        expect(lines.get(i + 1)).toMatchObject({
          id: e.id,
          outcome: 'DECIDED',
          status: 201,
          attempts: 1,
          amount: e.amount,
          currency: e.currency,
          amountInBaseCurrency: null,
          baseCurrency: null,
        });
      }
      expect(readFileSync(out, 'utf8').split('\n')[0]).toMatch(/^\{"fraudctl":"results".*"closed":true/);
    });
  }

  it('--resume of a file written without it: the lines sent now carry it, the earlier ones stay as they were', async () => {
    const { path, sent } = input('resume');
    const service = await relay((res) => res.writeHead(500).end());
    const out = outPath();
    // The first run had the first 10 lines (then the input grew): the rest were never sent.
    const whole = readFileSync(path, 'utf8');
    writeFileSync(path, whole.split('\n').slice(0, 10).join('\n') + '\n');
    expect((await submit([path, '--out', out, '--quiet'], service.url)).code).toBe(0);
    writeFileSync(path, whole);
    service.handle.onRead = (_res, forward) => forward();
    const resumed = await submit([path, '--out', out, '--resume', '--concurrency', '4'], service.url);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/10 already done by the earlier run/);
    expect(service.seen.reads).toHaveLength(2);
    const { lines, repeated } = byLine(readResults(out));
    expect(repeated).toEqual([]);
    expect(lines.size).toBe(sent.length);
    for (const [i, e] of sent.entries()) {
      const line = lines.get(i + 1)!;
      expect(line.baseCurrency).toBe(i < 10 ? null : 'EUR');
      expect(line.amountInBaseCurrency).toBe(i >= 10 && e.currency === 'EUR' ? e.amount : null);
    }
  });

  it('evaluate on such a file: no request for the EUR lines, the base currency from the file', async () => {
    const { path, sent } = input('evaluate');
    const out = outPath();
    expect((await submit([path, '--out', out, '--quiet'], (await relay()).url)).code).toBe(0);
    const labels = join(cli.dir, `${++fileNo}-labels.csv`);
    writeFileSync(labels, `id,label\nevaluate-1,fraud\n`);
    // Only the EUR lines: a client that fails the test if anything is read.
    const eurOnly = join(cli.dir, `${++fileNo}-eur.jsonl`);
    writeFileSync(
      eurOnly,
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('"currency":"USD"'))
        .join('\n'),
    );
    const d = testDeps();
    await run(options({ results: [eurOnly], labels }), d);
    expect(d.clientsMade).toBe(0);
    const report = JSON.parse(d.written.stdout) as { baseCurrency: unknown; events: { evaluated: number } };
    expect(report.baseCurrency).toEqual({ code: 'EUR', from: 'results', where: `${eurOnly}:2` });
    expect(report.events.evaluated).toBe(sent.filter((e) => e.currency === 'EUR').length);
  });
});
