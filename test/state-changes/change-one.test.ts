import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import { failureWords } from '../../src/failures/failure-words.js';
import { failureMessages } from '../../src/failures/failure-messages.js';
import type { LogEntry } from '../../src/action-log/action-log.js';
import { changeOne, type BulkChange, type ChangeWork, type IdItem } from '../../src/state-changes/change-one.js';
import { startFakeServer, type FakeServer } from '../support/fake-server.js';

/*
 * One id of `set-state` for many events, in-process against a scripted server: read, decide,
 * PATCH, and what each kind of failure (src/failures/) makes of the id and of the run.
 */

let server: FakeServer;
let client: ApiClient;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());

const summary = (id: string, state: string, comments: string | null = null) => ({
  id,
  totalScore: 10,
  state,
  eventDate: '2026-11-20T09:14:03Z',
  amount: 1,
  currency: 'EUR',
  userEmail: 'a@example.com',
  comments,
});
const sendJson = (res: ServerResponse, status: number, body: unknown, requestId = 'req-1') => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId });
  res.end(JSON.stringify(body));
};
const shaped = (status: number, type: string) => (res: ServerResponse) =>
  sendJson(res, status, { requestId: `r-${status}`, errorType: type, errorCodes: [type] });

let state: string;
let onGet: (res: ServerResponse, n: number) => void;
let onPatch: (res: ServerResponse, n: number) => void;
let logged: LogEntry[];
let resends: number;

beforeEach(() => {
  state = 'PENDING_REVIEW';
  logged = [];
  resends = 0;
  let gets = 0;
  let patches = 0;
  onGet = (res) => sendJson(res, 200, summary('e-1', state));
  onPatch = (res) => sendJson(res, 200, summary('e-1', state), 'req-patch');
  server.script((res: ServerResponse, req: IncomingMessage, recorded) => {
    if (req.method === 'PATCH') {
      state = (JSON.parse(recorded.body) as { state: string }).state;
      return onPatch(res, ++patches);
    }
    onGet(res, ++gets);
  });
  client = new ApiClient({
    baseUrl: server.url,
    apiKey: 'k-test-0123456789',
    describe: failureMessages(failureWords()),
    timeoutMs: 2_000,
    env: {},
    retry: { maxRetries: 0 },
  });
});
afterEach(() => client.close());

const item: IdItem = { line: 1, column: 1, entry: { where: 'argument 1', id: 'e-1', problem: null } };
const approve: BulkChange = {
  target: 'APPROVED',
  comments: null,
  commentMode: null,
  guard: { ifStates: null, force: false },
  reason: null,
};
const work = (): ChangeWork => ({
  client,
  allowResend: () => {
    resends++;
    return 1;
  },
  maxResends: 2,
  aborted: () => false,
  planned: null,
  log: (entry) => {
    logged.push(entry);
    return Promise.resolve(true);
  },
});
const patches = () => server.requests.filter((r) => r.method === 'PATCH').length;

describe('changeOne', () => {
  beforeEach(() => {
    server.requests.length = 0;
  });

  it("reads, then PATCHes: CHANGED with the PATCH's status and request id, logged before and after", async () => {
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.result).toMatchObject({
      id: 'e-1',
      from: 'PENDING_REVIEW',
      to: 'APPROVED',
      outcome: 'CHANGED',
      status: 200,
      requestId: 'req-patch',
    });
    expect(settled?.fatal).toBeUndefined();
    expect(logged.map((e) => e.outcome)).toEqual(['sending', 'ok']);
    expect(server.requests.map((r) => r.method)).toEqual(['GET', 'PATCH']);
  });

  it('an event already in the target state is SKIPPED, nothing sent', async () => {
    state = 'APPROVED';
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.result).toMatchObject({ outcome: 'SKIPPED', reason: 'already APPROVED' });
    expect(patches()).toBe(0);
  });

  it('plan mode reads and says PLANNED, sending nothing', async () => {
    const settled = await changeOne(item, approve, work(), 'plan');
    expect(settled?.result.outcome).toBe('PLANNED');
    expect(patches()).toBe(0);
  });

  it("the service's own 404 on the read: NOT_FOUND", async () => {
    onGet = shaped(404, 'EVENT_NOT_FOUND');
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.result).toMatchObject({ outcome: 'NOT_FOUND', status: 404, reason: null });
  });

  it('a 401 stops the run (auth)', async () => {
    onGet = shaped(401, 'UNAUTHORIZED');
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.result.outcome).toBe('FAILED');
    expect(settled?.fatal?.stop).toBe('auth');
  });

  it('a 422 to the PATCH is REFUSED, logged as refused', async () => {
    onPatch = shaped(422, 'INVALID_STATE_TRANSITION');
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.result).toMatchObject({ outcome: 'REFUSED', status: 422 });
    expect(logged.map((e) => e.outcome)).toEqual(['sending', 'refused']);
  });

  it('a 408 to the PATCH is FAILED (transient), not REFUSED', async () => {
    onPatch = shaped(408, 'REQUEST_TIMEOUT');
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.result).toMatchObject({ outcome: 'FAILED', status: 408 });
    expect(settled?.fatal).toBeUndefined();
  });

  it('a PATCH answered 200 text/html is settled by reading the event: CHANGED, sent once', async () => {
    onPatch = (res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>welcome</html>');
    };
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.result.outcome).toBe('CHANGED');
    expect(settled?.fatal).toBeUndefined();
    expect(patches()).toBe(1);
    expect(logged.map((e) => e.outcome)).toEqual(['sending', 'failed', 'ok']);
  });

  it('a PATCH that did not land (a 504, the event as before) is sent again within the budget', async () => {
    onPatch = (res, n) => {
      if (n === 1) {
        state = 'PENDING_REVIEW';
        return shaped(504, 'GATEWAY_TIMEOUT')(res);
      }
      sendJson(res, 200, summary('e-1', state));
    };
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.result.outcome).toBe('CHANGED');
    expect(patches()).toBe(2);
    expect(resends).toBe(1);
  });

  it('an event changed by someone else while the outcome was unknown is a CONFLICT, not sent again', async () => {
    onPatch = (res) => {
      state = 'DECLINED';
      shaped(504, 'GATEWAY_TIMEOUT')(res);
    };
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.result).toMatchObject({ outcome: 'CONFLICT' });
    expect(settled?.result.reason).toContain('DECLINED now (changed by someone else)');
    expect(patches()).toBe(1);
  });

  it('a 405 text/plain to the PATCH stops the run as "not the service"', async () => {
    onPatch = (res) => {
      res.writeHead(405, { 'content-type': 'text/plain' });
      res.end('Method Not Allowed');
    };
    const settled = await changeOne(item, approve, work(), 'change');
    expect(settled?.fatal?.stop).toBe('not-the-service');
    expect(settled?.result).toMatchObject({ outcome: 'FAILED', errorType: 'NOT_THE_SERVICE' });
  });
});
