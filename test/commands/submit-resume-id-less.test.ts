import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readResults } from '../support/batch-events.js';
import { cliEnv, startCli } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { startPlainEventServer, type PlainServer } from '../support/plain-event-server.js';
import { tempDir } from '../support/sandbox.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * Events without an id and --resume, against a counting stand-in for the
 * service that stores every POST it processes (no deduplication: an event sent twice is stored
 * twice). Without an id nobody can ask whether an event is stored, so a line the dead run may
 * have had in flight is UNKNOWN, never sent again; and a finished batch of such events resumes
 * (the id the service assigned is not taken for the input's). The run that is killed (or
 * interrupted) is a process; the --resume after it, and the rest, run in-process through main.
 */

const tmp = tempDir('fraudctl-idless-');
const servers: PlainServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await tmp.remove();
});

const env = (url: string) =>
  cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: join(tmp.dir, 'config'),
    XDG_DATA_HOME: join(tmp.dir, 'data'),
    FRAUDCTL_BASE_URL: url,
    FRAUDCTL_API_KEY: 'plain-key',
  });
/** Events without an id (`marker` tells them apart at the server); the first `withIds` have one. */
function idLessInput(name: string, count: number, withIds = 0): string {
  const input = join(tmp.dir, `${name}.jsonl`);
  const event = (n: number) => ({
    ...(n <= withIds ? { id: `${name}-${n}` } : {}),
    marker: `${name}-${n}`,
    amount: 10,
    currency: 'EUR',
  });
  writeFileSync(input, `${Array.from({ length: count }, (_, i) => JSON.stringify(event(i + 1))).join('\n')}\n`);
  return input;
}

describe('--resume of events without an id', () => {
  it('kill -9 while 16 are in flight, then --resume: nothing stored twice, those lines UNKNOWN', async () => {
    // The 24 events with ids are answered; the 16 without are held, in flight, when the run is
    // killed (held by content, not by arrival order, which concurrency does not fix).
    const server = await startPlainEventServer({ hold: true, holdOnly: (r) => r.method === 'POST' && r.id === null });
    servers.push(server);
    const input = idLessInput('crash', 40, 24);
    const out = join(tmp.dir, 'crash.out');
    const args = ['submit', input, '--out', out, '--concurrency', '16'];
    const first = startCli(args, { env: env(server.url) });
    await expect.poll(() => server.inFlight(), { timeout: 10_000 }).toBe(16);
    await expect.poll(() => readResults(out).length, { timeout: 10_000 }).toBe(24);
    first.child.kill('SIGKILL');
    await first.done;
    // The service stores what was in flight although nobody hears its answer.
    server.release();
    await expect.poll(() => server.processed(), { timeout: 10_000 }).toBe(40);

    const resumed = await runInProcess([...args, '--resume'], env(server.url));
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(server.processed()).toBe(40);
    const results = readResults(out);
    expect(results).toHaveLength(40);
    expect(new Set(results.map((r) => r.line)).size).toBe(40);
    const unknown = results.filter((r) => r.outcome === 'UNKNOWN');
    expect(unknown.map((r) => r.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => 25 + i));
    expect(unknown.every((r) => r.errorType === 'UNRECORDED' && r.attempts === 0)).toBe(true);
    expect(resumed.stderr).toContain('16 of 16 events got no decision');
  }, 30_000);

  it('kill -9 with some of them in flight and others not yet read, then --resume: only those in flight are UNKNOWN, the rest are sent', async () => {
    // Lines 10, 20, … 60 have no id; the service holds their POSTs. With four slots, lines 10-40
    // are in flight (every slot held) when the run is killed: 41-60 were never taken.
    const server = await startPlainEventServer({ hold: true, holdOnly: (r) => r.method === 'POST' && r.id === null });
    servers.push(server);
    const input = join(tmp.dir, 'spread.jsonl');
    const event = (n: number) => ({
      ...(n % 10 === 0 ? {} : { id: `spread-${n}` }),
      marker: `spread-${n}`,
      amount: 10,
      currency: 'EUR',
    });
    writeFileSync(input, `${Array.from({ length: 60 }, (_, i) => JSON.stringify(event(i + 1))).join('\n')}\n`);
    const out = join(tmp.dir, 'spread.out');
    const rejects = join(tmp.dir, 'spread.rejects');
    const args = ['submit', input, '--out', out, '--rejects', rejects, '--concurrency', '4'];
    const first = startCli(args, { env: env(server.url) });
    await expect.poll(() => server.inFlight(), { timeout: 10_000 }).toBe(4);
    await expect.poll(() => readResults(out).length, { timeout: 10_000 }).toBe(36);
    first.child.kill('SIGKILL');
    await first.done;
    server.release();
    await expect.poll(() => server.processed(), { timeout: 10_000 }).toBe(40);

    const resumed = await runInProcess([...args, '--resume'], env(server.url));
    expect(resumed.code, resumed.stderr).toBe(1);
    // Lines 50 and 60 were never sent: sent now, once.
    expect(server.processed()).toBe(60);
    const results = readResults(out);
    expect(results).toHaveLength(60);
    const unknown = results.filter((r) => r.outcome === 'UNKNOWN').map((r) => r.line);
    expect(unknown.sort((a, b) => a - b)).toEqual([10, 20, 30, 40]);
    expect(results.filter((r) => r.line === 50 || r.line === 60).map((r) => r.outcome)).toEqual(['DECIDED', 'DECIDED']);
    // The rejects file holds the four, and nothing says to send it again as it is: they may be stored.
    expect(readFileSync(rejects, 'utf8').trimEnd().split('\n')).toHaveLength(4);
    expect(resumed.stderr).toContain('4 of 24 events got no decision');
    expect(resumed.stderr).not.toContain('to send again');
    expect(resumed.stderr).toMatch(
      /4 of them may have been stored \(unknown\): check those before sending the file again/,
    );
  }, 30_000);

  it('after a Ctrl-C (every line in flight finished and recorded), --resume sends the rest: none is left UNKNOWN', async () => {
    notOnWindows(ON_WINDOWS.signal);
    // The first 11 requests pass: 10 POSTs and the batch's one read of the base currency.
    const server = await startPlainEventServer({ hold: true, holdFrom: 11 });
    servers.push(server);
    const input = idLessInput('ctrl-c', 30);
    const out = join(tmp.dir, 'ctrl-c.out');
    const args = ['submit', input, '--out', out, '--concurrency', '4'];
    const first = startCli(args, { env: env(server.url) });
    await expect.poll(() => server.inFlight(), { timeout: 10_000 }).toBe(4);
    first.child.kill('SIGINT');
    await expect
      .poll(() => first.output().stderr, { timeout: 10_000 })
      .toContain('stopping: finishing the lines in flight');
    server.release();
    expect((await first.done).code).toBe(130);
    const done = readResults(out).length;
    expect(done).toBe(14);
    const resumed = await runInProcess([...args, '--resume'], env(server.url));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.processed()).toBe(30);
    expect(readResults(out).every((r) => r.outcome === 'DECIDED')).toBe(true);
  }, 30_000);

  it('a finished batch of events without an id resumes: nothing to do, nothing sent, exit 0', async () => {
    const server = await startPlainEventServer();
    servers.push(server);
    const input = idLessInput('finished', 12);
    const out = join(tmp.dir, 'finished.out');
    const args = ['submit', input, '--out', out];
    expect((await runInProcess(args, env(server.url))).code).toBe(0);
    const again = await runInProcess([...args, '--resume'], env(server.url));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('12 already done by the earlier run');
    expect(server.processed()).toBe(12);
    // The ids the service assigned are recorded, and marked as the service's.
    const results = readResults(out);
    expect(results.every((r) => typeof r.id === 'string' && r.idAssigned)).toBe(true);
    // An input that has an id where the service assigned one is still another input.
    const other = join(tmp.dir, 'other.jsonl');
    writeFileSync(
      other,
      `${JSON.stringify({ id: results.find((r) => r.line === 1)!.id, amount: 10, currency: 'EUR' })}\n`,
    );
    const wrong = await runInProcess(['submit', other, '--out', out, '--resume'], env(server.url));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('does not belong to this input: its line 1 is without an id');
  });
});
