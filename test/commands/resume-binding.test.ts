import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/event-summary.js';
import { readResultsFile } from '../support/batch-events.js';
import { startCli } from '../support/cli.js';
import { useCli } from '../support/cli-against-sandbox.js';
import { send, writeConfig, type TestSandbox } from '../support/sandbox.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * A results file binds --resume to the run that wrote it: a staging and a prod
 * sandbox side by side, each with its own key and database, and a profile for each, as a team
 * works. A batch started on staging and resumed with --profile prod is refused before anything
 * reaches prod; a bulk change resumed with another --state is refused; one resumed without its
 * --comments takes them from the record, and the PATCHes carry them.
 */

const STAGING_KEY = 'staging-key-0001';
const PROD_KEY = 'prod-key-0002';
const cli = useCli({
  staging: { configFile: writeConfig({ merchants: [{ id: 'staging', apiKey: STAGING_KEY }] }) },
  prod: { configFile: writeConfig({ merchants: [{ id: 'prod', apiKey: PROD_KEY }] }) },
});
const { staging, prod } = cli.sandboxes;

beforeAll(() => {
  const dir = join(cli.dir, 'config', 'fraudctl');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      activeProfile: 'staging',
      profiles: {
        staging: { baseUrl: staging.url, apiKey: STAGING_KEY },
        prod: { baseUrl: prod.url, apiKey: PROD_KEY },
      },
    }),
  );
  chmodSync(config, 0o600);
});
const run = (args: string[], input?: string) =>
  cli.run(args, { timeoutMs: 30_000, ...(input !== undefined ? { input } : {}) });
const path = (name: string) => join(cli.dir, name);
const stored = async (sb: TestSandbox, key: string, id: string) =>
  (await send(sb.url, 'GET', `/event/${encodeURIComponent(id)}`, { key })).status === 200;
const summary = async (sb: TestSandbox, key: string, id: string) =>
  (await send(sb.url, 'GET', `/event/${encodeURIComponent(id)}`, { key })).json as EventSummary;

describe('submit --resume is bound to the service of the first run', () => {
  it('a batch stopped on staging and resumed with --profile prod is refused (exit 2) naming both URLs; nothing reaches prod; on staging it finishes', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `mix-${i + 1}`);
    // Line 11 is not JSON: with --max-errors 1 at --concurrency 1 the first run stops exactly there.
    const lines = ids.map((id) => JSON.stringify({ id, amount: 20, currency: 'EUR' }));
    lines.splice(10, 0, 'not json');
    const input = path('mix.jsonl');
    writeFileSync(input, `${lines.join('\n')}\n`);
    const out = path('mix.out');
    const first = await run([
      '--profile',
      'staging',
      'submit',
      input,
      '--out',
      out,
      '--max-errors',
      '1',
      '--concurrency',
      '1',
    ]);
    expect(first.code, first.stderr).toBe(1);
    expect(readResultsFile(out).results).toHaveLength(11);
    const before = readFileSync(out, 'utf8');

    const wrong = await run(['--profile', 'prod', 'submit', input, '--out', out, '--resume']);
    expect(wrong.code, wrong.stderr).toBe(2);
    expect(wrong.stderr).toContain(`error: ${out} was written for ${staging.url}, this run goes to ${prod.url}`);
    expect(wrong.stderr).toContain(`resume against ${staging.url}`);
    expect(readFileSync(out, 'utf8')).toBe(before);
    for (const id of ids) expect(await stored(prod, PROD_KEY, id), id).toBe(false);

    const right = await run(['--profile', 'staging', 'submit', input, '--out', out, '--resume']);
    expect(right.code, right.stderr).toBe(0);
    expect(right.stderr).toContain('11 already done by the earlier run');
    for (const id of ids) expect(await stored(staging, STAGING_KEY, id), id).toBe(true);
    // The record: the first line, a JSON object that jq reads like any other; the URL, never the key.
    const written = readResultsFile(out);
    expect(written.header).toMatchObject({
      fraudctl: 'results',
      version: 1,
      command: 'submit',
      service: staging.url,
      options: { rejects: null },
    });
    expect(JSON.stringify(written.header)).not.toContain(STAGING_KEY);
    expect(written.results).toHaveLength(31);
  });
});

describe('set-state --resume is bound to the service and the intent of the first run', () => {
  it('another --state or another service is refused, nothing sent; without --comments they are taken from the record and sent', async () => {
    notOnWindows(ON_WINDOWS.signal);
    const ids = Array.from({ length: 8 }, (_, i) => `ring-${i + 1}`);
    for (const sb of [staging, prod]) {
      const key = sb === staging ? STAGING_KEY : PROD_KEY;
      for (const id of ids)
        expect(
          (await send(sb.url, 'POST', '/event', { key, body: { id, amount: 1500, currency: 'EUR' } })).status,
        ).toBe(201);
    }
    const list = path('ring.txt');
    writeFileSync(list, `${ids.join('\n')}\n`);
    const out = path('ring.jsonl');
    const first = [
      '--profile',
      'staging',
      'set-state',
      '--state',
      'declined',
      '--comments',
      'ring 2026-11-20',
      '--yes',
      '--out',
      out,
    ];
    // The first run gets its ids slowly on stdin and is stopped by Ctrl-C after three.
    const running = startCli([...first, '--from', '-'], { env: cli.env(), keepStdinOpen: true });
    running.child.stdin.write(`${ids.slice(0, 3).join('\n')}\n`);
    await expect.poll(() => readResultsFile(out).results.length, { timeout: 10_000 }).toBe(3);
    running.child.kill('SIGINT');
    expect((await running.done).code).toBe(130);
    const resume = ['set-state', '--from', list, '--yes', '--out', out, '--resume'];

    const otherState = await run([
      '--profile',
      'staging',
      ...resume,
      '--state',
      'approved',
      '--comments',
      'ring 2026-11-20',
    ]);
    expect(otherState.code, otherState.stderr).toBe(2);
    expect(otherState.stderr).toContain(
      `error: ${out} was written with --state "DECLINED", this run has --state "APPROVED"`,
    );
    const otherService = await run([
      '--profile',
      'prod',
      ...resume,
      '--state',
      'declined',
      '--comments',
      'ring 2026-11-20',
    ]);
    expect(otherService.code, otherService.stderr).toBe(2);
    expect(otherService.stderr).toContain(`was written for ${staging.url}, this run goes to ${prod.url}`);
    for (const id of ids.slice(3)) expect((await summary(staging, STAGING_KEY, id)).state, id).toBe('PENDING_REVIEW');
    for (const id of ids) expect((await summary(prod, PROD_KEY, id)).state, id).toBe('PENDING_REVIEW');

    // The help's own example for a resume, less the comment: taken from the record, and said so.
    const resumed = await run(['--profile', 'staging', ...resume, '--state', 'declined']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`note: --comments "ring 2026-11-20" taken from ${out} (the run it continues)`);
    for (const id of ids)
      expect(await summary(staging, STAGING_KEY, id), id).toMatchObject({
        state: 'DECLINED',
        comments: 'ring 2026-11-20',
      });
    expect(readResultsFile(out).results).toHaveLength(ids.length);
  });

  it('a results file of submit is not resumed by set-state, and a resume may leave --state out', async () => {
    const ids = ['solo-1', 'solo-2'];
    for (const id of ids)
      expect(
        (await send(staging.url, 'POST', '/event', { key: STAGING_KEY, body: { id, amount: 1500, currency: 'EUR' } }))
          .status,
      ).toBe(201);
    const out = path('solo.jsonl');
    const done = await run([
      '--profile',
      'staging',
      'set-state',
      ...ids,
      '--state',
      'escalated',
      '--yes',
      '--out',
      out,
    ]);
    expect(done.code, done.stderr).toBe(0);
    const again = await run(['--profile', 'staging', 'set-state', ...ids, '--yes', '--out', out, '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`note: --state "ESCALATED" taken from ${out}`);
    const submitOut = path('solo-submit.out');
    const events = path('solo-submit.jsonl');
    writeFileSync(
      events,
      `${JSON.stringify({ id: 'solo-3', amount: 5, currency: 'EUR' })}\n${JSON.stringify({ id: 'solo-4', amount: 5, currency: 'EUR' })}\n`,
    );
    expect((await run(['--profile', 'staging', 'submit', events, '--out', submitOut])).code).toBe(0);
    const crossed = await run([
      '--profile',
      'staging',
      'set-state',
      ...ids,
      '--state',
      'escalated',
      '--yes',
      '--out',
      submitOut,
      '--resume',
    ]);
    expect(crossed.code).toBe(2);
    expect(crossed.stderr).toContain(`error: ${submitOut} holds the results of fraudctl submit, not of set-state`);
  });
});

describe('a results file written before headers existed', () => {
  it("is resumed as before, with a warning that its service and options cannot be checked, and gets this run's header", async () => {
    const ids = ['old-1', 'old-2', 'old-3'];
    const input = path('old.jsonl');
    writeFileSync(input, `${ids.map((id) => JSON.stringify({ id, amount: 5, currency: 'EUR' })).join('\n')}\n`);
    const out = path('old.out');
    expect((await run(['--profile', 'staging', 'submit', input, '--out', out])).code).toBe(0);
    // As today's version wrote it: the results alone.
    writeFileSync(out, `${readFileSync(out, 'utf8').split('\n').slice(1).join('\n')}`);
    const resumed = await run(['--profile', 'staging', 'submit', input, '--out', out, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `warning: ${out} was written by an older fraudctl, which did not record the service and options of its run: they cannot be checked. Resuming against ${staging.url}`,
    );
    expect(resumed.stderr).toContain('3 already done by the earlier run');
    const file = readResultsFile(out);
    expect(file.header).toMatchObject({ service: staging.url, closed: true });
    expect(file.results).toHaveLength(3);
    const wrong = await run(['--profile', 'prod', 'submit', input, '--out', out, '--resume']);
    expect(wrong.code).toBe(2);
  });
});
