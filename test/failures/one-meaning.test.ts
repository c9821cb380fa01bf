import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { answered } from '../support/call-failures.js';
import { initialModel } from '../../src/review-queue/queue-model.js';
import { update } from '../../src/review-queue/queue-update.js';
import { groupsOf } from '../../src/review-queue/queue-outcomes.js';
import { startFakeServer, type FakeServer } from '../support/fake-server.js';
import { cliEnv } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { tempDir } from '../support/sandbox.js';

/*
 * Three places that gave one failure different meanings, now one (src/failures/):
 * - an unreadable 2xx to a PATCH is settled by reading the event back, as one to a POST is;
 * - a 408 (request timeout) is transient for the queue, a bulk change and --watch alike;
 * - an answer that is not the service's stops a list of ids (`show --from`), as it stops a batch.
 * In-process (main, as the CLI runs it) against a scripted server, except the queue, whose decision
 * is its pure update().
 */

const tmp = tempDir('fraudctl-one-meaning-');
let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
  await tmp.remove();
});

const env = () =>
  cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: `${tmp.dir}/config`,
    XDG_DATA_HOME: `${tmp.dir}/data`,
    FRAUDCTL_BASE_URL: server.url,
    FRAUDCTL_API_KEY: 'k-test-0123456789',
  });
const summary = (id: string, state: string) => ({
  id,
  totalScore: 10,
  state,
  eventDate: '2026-11-20T09:14:03Z',
  amount: 1,
  currency: 'EUR',
  userEmail: 'a@example.com',
  comments: null,
});
const sendJson = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
  res.end(JSON.stringify(body));
};
const html = (res: ServerResponse, status: number) => {
  res.writeHead(status, { 'content-type': 'text/html' });
  res.end('<html><head><title>Portal</title></head><body>ok</body></html>');
};
const idOf = (url: string) => decodeURIComponent(url.split('/')[2] ?? '');

/** Events by id, in the state the scripted server holds; PATCH moves them. */
let states: Map<string, string>;
/** What a PATCH gets after it moved the event; what a GET gets (default: the event). */
let onPatch: (res: ServerResponse, id: string) => void;
let onGet: (res: ServerResponse, id: string, n: number) => void;

beforeEach(() => {
  server.requests.length = 0;
  states = new Map();
  const gets = new Map<string, number>();
  onGet = (res, id) => sendJson(res, 200, summary(id, states.get(id) ?? 'PENDING_REVIEW'));
  onPatch = (res) => html(res, 200);
  server.script((res: ServerResponse, req: IncomingMessage, recorded) => {
    const id = idOf(recorded.url);
    if (req.method === 'PATCH') {
      const body = JSON.parse(recorded.body) as { state: string };
      states.set(id, body.state);
      return onPatch(res, id);
    }
    const n = (gets.get(id) ?? 0) + 1;
    gets.set(id, n);
    onGet(res, id, n);
  });
});

const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('an unreadable 2xx to a write is settled by reading the event back', () => {
  it('set-state for many events: a PATCH answered 200 text/html, the event read back in the new state: CHANGED, exit 0', async () => {
    const result = await runInProcess(
      ['set-state', 'h-1', 'h-2', 'h-3', '--state', 'approved', '--yes', '--json'],
      env(),
    );
    expect(result.code, result.stderr).toBe(0);
    // A result line is written when its id is settled: sorted, not in input order.
    expect(
      lines(result.stdout)
        .map((r) => [r.id, r.outcome])
        .sort(),
    ).toEqual([
      ['h-1', 'CHANGED'],
      ['h-2', 'CHANGED'],
      ['h-3', 'CHANGED'],
    ]);
    expect(result.stderr).not.toMatch(/not the fraud-screening service/);
    // Each PATCH sent once: the read settled it, nothing was sent again.
    expect(server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(3);
  });

  it('only a read back that is not the service\'s either stops the run as "not the service", exit 1', async () => {
    onGet = (res, id, n) => (n === 1 ? sendJson(res, 200, summary(id, 'PENDING_REVIEW')) : html(res, 404));
    const result = await runInProcess(
      ['set-state', 'h-1', 'h-2', 'h-3', '--state', 'approved', '--yes', '--json', '--concurrency', '1'],
      env(),
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      /answered 404 with an HTML page titled "Portal".*that is not the fraud-screening service's answer/,
    );
    expect(lines(result.stdout)[0]).toMatchObject({ id: 'h-1', outcome: 'FAILED' });
    expect(server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });
});

describe('a 408 (request timeout) is transient everywhere: FAILED and exit 6, never refused', () => {
  const timeout408 = (res: ServerResponse) =>
    sendJson(res, 408, { requestId: 'r-408', errorType: 'REQUEST_TIMEOUT', errorCodes: ['REQUEST_TIMEOUT'] });

  it('set-state for many events: FAILED (not REFUSED), exit 6', async () => {
    onPatch = timeout408;
    const result = await runInProcess(['set-state', 't-1', 't-2', '--state', 'approved', '--yes', '--json'], env());
    expect(result.code, result.stderr).toBe(6);
    expect(lines(result.stdout).map((r) => [r.outcome, r.status])).toEqual([
      ['FAILED', 408],
      ['FAILED', 408],
    ]);
  });

  it('show: exit 6, try again later', async () => {
    onGet = timeout408;
    const result = await runInProcess(['show', 't-1'], env());
    expect(result.code, result.stderr).toBe(6);
  });

  it('show --watch: a 408 the retries do not settle is said, and the watch goes on to the final state', async () => {
    // The second check and its 3 retries (the default) are answered 408, as is a single 408 the
    // first retry settles (test/commands/set-state-408.test.ts); the check after them is answered.
    onGet = (res, id, n) =>
      n >= 2 && n <= 5 ? timeout408(res) : sendJson(res, 200, summary(id, n === 1 ? 'PENDING_REVIEW' : 'APPROVED'));
    const result = await runInProcess(['show', 'w-1', '--watch', '--interval', '1', '--json'], env());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/check failed: .*408/);
    expect(result.stderr).toContain('reached APPROVED');
  });

  it('review: an event whose load got a 408 is offered again (retry or skip), not counted as refused', () => {
    const model = initialModel(
      [{ id: 'e1' }, { id: 'e2' }],
      { claim: true, includeClaimed: false, includeDecided: false },
      { width: 80, height: 24 },
    );
    const [started] = update(model, { type: 'start' });
    const [after] = update(started, { type: 'loadFailed', index: 0, failure: answered(408, 'request timeout', null) });
    expect(after.mode).toEqual({ name: 'loadFailed', message: 'request timeout' });
    expect(groupsOf(after).refused).toEqual([]);
  });
});

describe("an answer that is not the service's stops a list of ids, as it stops a batch", () => {
  it('show --from against a server answering 405 text/plain to everything: stops at once, no rows, exit 1', async () => {
    server.script((res) => {
      res.writeHead(405, { 'content-type': 'text/plain' });
      res.end('Method Not Allowed');
    });
    const ids = Array.from({ length: 200 }, (_, i) => `n-${i + 1}`).join('\n');
    const result = await runInProcess(['show', '--from', '-', '--json'], env(), { input: ids });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/answered 405 with .*that is not the fraud-screening service's answer/);
    // Stopped at the first answers: far fewer requests than ids.
    expect(server.requests.length).toBeLessThan(50);
  });
});

describe('the action log says refused for the same failures everywhere (src/failures/ saidNo)', () => {
  it('a PATCH refused with 401: one event and many events both log "refused", as the review queue does', async () => {
    const { readFileSync } = await import('node:fs');
    onPatch = (res) => sendJson(res, 401, { errorType: 'UNAUTHORIZED', message: 'key refused', requestId: 'req-401' });
    const one = `${tmp.dir}/one.log`;
    const many = `${tmp.dir}/many.log`;
    await runInProcess(['set-state', 'r-1', '--state', 'APPROVED', '--log', one], env());
    await runInProcess(['set-state', 'r-2', 'r-3', '--state', 'APPROVED', '--yes', '--log', many], env());
    const outcomes = (file: string) =>
      readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { outcome: string }).outcome);
    expect(outcomes(one)).toEqual(['sending', 'refused']);
    // The 401 stops the run (PATCHes already under way still end): each outcome line says refused, as one event's does.
    const ended = outcomes(many).filter((o) => o !== 'sending');
    expect(ended.length).toBeGreaterThan(0);
    expect(new Set(ended)).toEqual(new Set(['refused']));
  });
});
