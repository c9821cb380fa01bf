import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../support/fake-server.js';
import { cliEnv, runCli, startCli } from '../support/cli.js';
import { tempDir } from '../support/sandbox.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * `fraudctl show` with many ids against a scripted server, for what the sandbox cannot do on
 * demand: answers out of order and held back, concurrency, throttling, broken answers, Ctrl-C
 * and a reader that goes away.
 */

const tmp = tempDir('fraudctl-show-faults-');
let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
  await tmp.remove();
});

/** What the scripted server does for one id; default: a summary (and a risk assessment) at once. */
type Reply = (res: ServerResponse, id: string, path: string) => void | Promise<void>;
let replyFor: (id: string) => Reply | undefined;
let inFlight = 0;
let maxInFlight = 0;
const started: string[] = [];

const summary = (id: string) => ({
  id,
  totalScore: 10,
  state: 'APPROVED',
  eventDate: '2026-11-20T09:14:03Z',
  amount: 1,
  currency: 'EUR',
  userEmail: 'a@example.com',
  comments: null,
});
const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers });
  res.end(JSON.stringify(body));
};
const answer = (res: ServerResponse, id: string, path: string): void =>
  path.endsWith('/risk-assessment')
    ? send(res, 200, { eventId: id, actionType: 'APPROVE', totalRiskScore: 10, alerts: [], listMatches: [] })
    : send(res, 200, summary(id));

beforeEach(() => {
  replyFor = () => undefined;
  inFlight = 0;
  maxInFlight = 0;
  started.length = 0;
  server.script((res: ServerResponse, _req: IncomingMessage, recorded) => {
    const path = recorded.url;
    const id = decodeURIComponent(path.split('/')[2] ?? '');
    if (!path.endsWith('/risk-assessment')) started.push(id);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    void (replyFor(id) ?? answer)(res, id, path);
  });
});

const env = () =>
  cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: `${tmp.dir}/config`,
    XDG_DATA_HOME: `${tmp.dir}/data`,
    FRAUDCTL_BASE_URL: server.url,
    FRAUDCTL_API_KEY: 'k-test-0123456789',
  });
const ids = (n: number, prefix = 'f') => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const jsonIds = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { id: string }).id);

describe('fraudctl show with many ids, against a scripted server', () => {
  it('keeps input order when answers come back in another order, with --concurrency requests in flight at most', async () => {
    // Later ids answer sooner: every answer arrives out of order.
    replyFor = (id) => async (res, i, path) => {
      await later(60 - Number(id.split('-')[1]));
      answer(res, i, path);
    };
    const list = ids(40);
    const result = await runCli(['show', '--from', '-', '--concurrency', '3', '--json'], {
      env: env(),
      input: list.join('\n'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(jsonIds(result.stdout)).toEqual(list);
    expect(maxInFlight).toBe(3);
  });

  it('table and CSV ask for the risk assessment too (the decision), one request after the other per id', async () => {
    const result = await runCli(['show', 'f-1', 'f-2', '--csv'], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"f-1","APPROVED","APPROVE",10,1,"EUR"');
    expect(
      server.requests
        .map((r) => r.url)
        .slice(-4)
        .sort(),
    ).toEqual(['/event/f-1', '/event/f-1/risk-assessment', '/event/f-2', '/event/f-2/risk-assessment']);
  });

  it('holds at most 2 × concurrency ids between the reader and stdout while an earlier one is slow', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    replyFor = (id) =>
      id === 'f-1'
        ? async (res, i, path) => {
            await held;
            answer(res, i, path);
          }
        : undefined;
    const run = startCli(['show', '--from', '-', '--concurrency', '4', '--json'], {
      env: env(),
      input: ids(200).join('\n'),
    });
    await expect.poll(() => started.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(8);
    // Whatever the timing, no more ids are taken while the first one is not written.
    await later(300);
    expect(started.length).toBe(8);
    expect(run.output().stdout).toBe('');
    release();
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(jsonIds(result.stdout)).toEqual(ids(200));
  });

  it('retries a 503 as any show does, honouring Retry-After, and the row is the event', async () => {
    let tries = 0;
    replyFor = (id) =>
      id === 'f-2'
        ? (res, i, path) =>
            ++tries === 1
              ? send(
                  res,
                  503,
                  { requestId: 'r', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] },
                  { 'retry-after': '0' },
                )
              : answer(res, i, path)
        : undefined;
    const result = await runCli(['show', 'f-1', 'f-2', 'f-3', '--json'], { env: env() });
    expect(result.code).toBe(0);
    expect(jsonIds(result.stdout)).toEqual(['f-1', 'f-2', 'f-3']);
    expect(tries).toBe(2);
  });

  it('no answer for an id is a row with the error type; the worst failure gives the exit code', async () => {
    replyFor = (id) => {
      if (id === 'f-2') return (res) => res.socket?.destroy();
      if (id === 'f-3')
        return (res) => send(res, 404, { requestId: 'r-404', errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] });
      if (id === 'f-4')
        return (res) =>
          send(
            res,
            503,
            { requestId: 'r-503', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] },
            { 'retry-after': '0' },
          );
      return undefined;
    };
    const result = await runCli(['show', 'f-1', 'f-2', 'f-3', 'f-4', '--json'], { env: env() });
    expect(result.code).toBe(6);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[1]).toEqual({
      id: 'f-2',
      error: { status: null, errorType: 'CONNECTION_RESET', errorCodes: [], requestId: null },
    });
    expect(lines[2]).toEqual({
      id: 'f-3',
      error: { status: 404, errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'], requestId: 'r-404' },
    });
    expect(lines[3]).toEqual({
      id: 'f-4',
      error: { status: 503, errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'], requestId: 'r-503' },
    });
    expect(result.stderr).toContain('1 found · 1 not found · 2 errors (CONNECTION_RESET 1, SERVICE_UNAVAILABLE 1)');
    expect(result.stderr).toMatch(/^error: 3 of 4 ids not found or failed$/m);

    const table = await runCli(['show', 'f-1', 'f-2', 'f-3'], { env: env() });
    expect(table.stdout).toMatch(/^f-2\s+error CONNECTION_RESET$/m);
    expect(table.stdout).toMatch(/^f-3\s+not found$/m);
  });

  it('a body that is not the JSON promised is an error row, exit 1', async () => {
    replyFor = (id) =>
      id === 'f-2'
        ? (res) => {
            res.writeHead(200, { 'content-type': 'text/html' });
            res.end('<html>login</html>');
          }
        : undefined;
    const result = await runCli(['show', 'f-1', 'f-2', '--json'], { env: env() });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout.trimEnd().split('\n')[1]!)).toMatchObject({
      id: 'f-2',
      error: { errorType: 'BAD_RESPONSE' },
    });
  });

  it('a 404 that names a route (the URL is not the service) stops the list: exit 1, check --base-url', async () => {
    replyFor = () => (res) =>
      send(res, 404, { requestId: 'r', errorType: 'NOT_FOUND', errorCodes: ['ROUTE_NOT_FOUND'] });
    const result = await runCli(['show', ...ids(30)], { env: env() });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /answered 404 with the code ROUTE_NOT_FOUND.*so this URL is not the service, or not its base path/,
    );
    expect(result.stderr).toMatch(/base/i);
  });

  it('Ctrl-C stops: rows up to the first unfinished one, in order, the count so far, exit 130', async () => {
    notOnWindows(ON_WINDOWS.signal);
    replyFor = (id) => async (res, i, path) => {
      await later(id === 'f-1' ? 0 : 40);
      answer(res, i, path);
    };
    const run = startCli(['show', '--from', '-', '--concurrency', '2', '--json'], {
      env: env(),
      input: ids(500).join('\n'),
    });
    await expect.poll(() => run.output().stdout.split('\n').length, { timeout: 10_000 }).toBeGreaterThan(5);
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    const shown = jsonIds(result.stdout);
    expect(shown.length).toBeLessThan(500);
    expect(shown).toEqual(ids(shown.length));
    expect(result.stderr).toMatch(new RegExp(`interrupted after ${shown.length} ids: ${shown.length} found`));
  });

  it('a reader that goes away (| head) ends the list at once and quietly (exit 141, as SIGPIPE would)', async () => {
    replyFor = () => async (res, i, path) => {
      await later(5);
      answer(res, i, path);
    };
    const run = startCli(['show', '--from', '-', '--json'], { env: env(), input: ids(3000).join('\n') });
    await expect.poll(() => run.output().stdout.length, { timeout: 10_000 }).toBeGreaterThan(0);
    run.child.stdout.destroy();
    const result = await run.done;
    expect(result.code).toBe(141);
    expect(server.requests.length).toBeLessThan(3000);
    expect(result.stderr).toBe('');
  });
});
