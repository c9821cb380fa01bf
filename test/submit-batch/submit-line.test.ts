import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import { failureWords } from '../../src/failures/failure-words.js';
import { failureMessages } from '../../src/failures/failure-messages.js';
import type { InputRecord } from '../../src/submit-batch/input-records/records.js';
import { prepareLine, submitLine, type LineWork } from '../../src/submit-batch/submit-line.js';
import { destroy, startFakeServer, type FakeServer } from '../support/fake-server.js';

/*
 * One line of a submit batch, in-process against a scripted server: the POST, and what each kind
 * of failure (src/failures/) makes of the line: a decision, a rejection, a duplicate check after
 * an unknown outcome, UNKNOWN, or a stop of the batch.
 */

let server: FakeServer;
let client: ApiClient;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());

const sendJson = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
  res.end(JSON.stringify(body));
};
const shaped = (status: number, type: string) => (res: ServerResponse) =>
  sendJson(res, status, { requestId: `r-${status}`, errorType: type, errorCodes: [type] });
const decision = (id: string) => ({
  eventId: id,
  actionType: 'APPROVE',
  totalRiskScore: 12,
  alerts: [],
  listMatches: [],
});

/** Whether the scripted service holds the event. */
let stored: boolean;
let onPost: (res: ServerResponse, req: IncomingMessage, n: number) => void;

beforeEach(() => {
  server.requests.length = 0;
  stored = false;
  let posts = 0;
  onPost = (res) => {
    stored = true;
    sendJson(res, 201, decision('s-1'));
  };
  server.script((res, req, recorded) => {
    if (req.method === 'POST') return onPost(res, req, ++posts);
    if (recorded.url.endsWith('/risk-assessment'))
      return stored ? sendJson(res, 200, decision('s-1')) : shaped(404, 'EVENT_NOT_FOUND')(res);
    if (stored) sendJson(res, 200, { id: 's-1', totalScore: 12, state: 'APPROVED' });
    else shaped(404, 'EVENT_NOT_FOUND')(res);
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

const work = (): LineWork => ({ client, allowResubmit: () => 1, maxResubmits: 2, aborted: () => false });
const record = (text: string): InputRecord => ({
  line: 1,
  column: 1,
  text,
  bytes: Buffer.byteLength(text),
  truncated: false,
});

async function submit(text = '{"id":"s-1","amount":1}', verifyFirst = false) {
  const prepared = prepareLine(record(text), 1024 * 1024);
  if (!('send' in prepared)) throw new Error('the line was rejected locally');
  return submitLine(record(text), prepared.send, work(), { verifyFirst });
}
const methods = () => server.requests.map((r) => `${r.method} ${r.url}`);

describe('submitLine', () => {
  it('a line the service decides: DECIDED with the action and score, one POST', async () => {
    const outcome = await submit();
    expect(outcome?.result).toMatchObject({
      id: 's-1',
      outcome: 'DECIDED',
      status: 201,
      actionType: 'APPROVE',
      totalRiskScore: 12,
      attempts: 1,
    });
    expect(methods()).toEqual(['POST /event']);
  });

  it('a line that is not a JSON object is rejected locally, nothing sent', () => {
    const prepared = prepareLine(record('[1,2]'), 1024);
    expect(prepared).toMatchObject({ rejected: { result: { outcome: 'REJECTED', errorCodes: ['NOT_AN_OBJECT'] } } });
  });

  it('a 422 is REJECTED; a 409 too; neither stops the batch', async () => {
    onPost = shaped(422, 'VALIDATION_FAILED');
    expect((await submit())?.result).toMatchObject({ outcome: 'REJECTED', status: 422 });
    onPost = shaped(409, 'CONFLICT');
    const outcome = await submit();
    expect(outcome?.result).toMatchObject({ outcome: 'REJECTED', status: 409 });
    expect(outcome?.fatal).toBeUndefined();
  });

  it('a 401 stops the batch (auth)', async () => {
    onPost = shaped(401, 'UNAUTHORIZED');
    const outcome = await submit();
    expect(outcome?.result.outcome).toBe('FAILED');
    expect(outcome?.fatal?.stop).toBe('auth');
  });

  it('a 405 text/plain to the POST stops the batch as "not the service"', async () => {
    onPost = (res) => {
      res.writeHead(405, { 'content-type': 'text/plain' });
      res.end('Method Not Allowed');
    };
    const outcome = await submit();
    expect(outcome?.fatal?.stop).toBe('not-the-service');
    expect(outcome?.result.errorType).toBe('NOT_THE_SERVICE');
  });

  it('a connection dropped after the POST was sent: the event is looked up, found stored, DECIDED without a second POST', async () => {
    onPost = (res, req) => {
      stored = true;
      destroy(res, req, { method: 'POST', url: '/event', headers: {}, body: '' });
    };
    const outcome = await submit();
    expect(outcome?.result).toMatchObject({ outcome: 'DECIDED', actionType: 'APPROVE' });
    expect(methods()).toEqual(['POST /event', 'GET /event/s-1', 'GET /event/s-1/risk-assessment']);
  });

  it("an unreadable 2xx to the POST, the event not stored (the service's 404): sent again, then DECIDED", async () => {
    onPost = (res, _req, n) => {
      if (n === 1) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>welcome</html>');
      }
      stored = true;
      sendJson(res, 201, decision('s-1'));
    };
    const outcome = await submit();
    expect(outcome?.result).toMatchObject({ outcome: 'DECIDED', status: 201 });
    expect(methods()).toEqual(['POST /event', 'GET /event/s-1', 'POST /event']);
  });

  it('an unknown outcome without an id: UNKNOWN, never sent again', async () => {
    onPost = (res, req) => destroy(res, req, { method: 'POST', url: '/event', headers: {}, body: '' });
    const outcome = await submit('{"amount":1}');
    expect(outcome?.result.outcome).toBe('UNKNOWN');
    expect(outcome?.reason).toContain('the event has no id');
    expect(methods()).toEqual(['POST /event']);
  });

  it('resume (verifyFirst): an event already stored is DECIDED without a POST', async () => {
    stored = true;
    const outcome = await submit(undefined, true);
    expect(outcome?.result.outcome).toBe('DECIDED');
    expect(methods().filter((m) => m.startsWith('POST'))).toEqual([]);
  });

  it('a 408 is FAILED (transient), not REJECTED, and stops nothing', async () => {
    onPost = shaped(408, 'REQUEST_TIMEOUT');
    const outcome = await submit();
    expect(outcome?.result).toMatchObject({ outcome: 'FAILED', status: 408 });
    expect(outcome?.fatal).toBeUndefined();
  });
});
