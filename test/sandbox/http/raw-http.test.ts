import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectShape } from '../../support/contract-validator.js';
import { rawExchange, type RawReply } from '../../support/raw-http.js';
import { DEMO_KEY, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

/*
 * What the sandbox answers to requests that never reach a route: refused by Node's HTTP parser,
 * too large, too slow, or CONNECT. Every answer is the error shape with
 * X-Request-Id, then the connection closes. The timeouts are shortened so the tests are quick;
 * the defaults are in src/sandbox/http/socket-replies.ts.
 */

let sb: TestSandbox;
const unexpected: Error[] = [];
// Wide margins (a loaded CI machine delays timers): a stalled head is caught at 300-350 ms by the
// header timer, long before the 1 s idle limit; slow senders below pause at most 200 ms.
const TIMEOUTS = { headersMs: 300, requestMs: 3_000, idleMs: 1_000, checkEveryMs: 50, keepAliveMs: 500 };

beforeAll(async () => {
  sb = await startTestSandbox({ timeouts: TIMEOUTS, onUnexpectedError: (e) => unexpected.push(e) });
});
afterAll(async () => {
  await sb.close();
  // A client that went away is not a bug of the sandbox.
  expect(unexpected).toEqual([]);
});

const port = () => sb.sandbox.port;
const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
const KEY = `x-client-api-key: ${DEMO_KEY}`;

function expectShapedError(reply: RawReply, status: number, errorType: string, code: string): void {
  expect(reply.status, reply.body).toBe(status);
  expectShape('error', reply.json);
  expect(reply.json).toMatchObject({ errorType, errorCodes: [code] });
  expect(reply.headers['x-request-id']).toBe((reply.json as { requestId: string }).requestId);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.closed).toBe(true);
}

describe('requests the HTTP parser refuses', () => {
  it.each([
    ['an unknown method', head(['FOO /event HTTP/1.1', 'host: x', KEY]), 'METHOD_UNSUPPORTED'],
    [
      'duplicate Content-Length',
      head([
        'POST /event HTTP/1.1',
        'host: x',
        KEY,
        'content-type: application/json',
        'content-length: 2',
        'content-length: 3',
      ]) + '{}',
      'MALFORMED_REQUEST',
    ],
    [
      'Content-Length with Transfer-Encoding',
      head(['POST /event HTTP/1.1', 'host: x', KEY, 'content-length: 2', 'transfer-encoding: chunked']) + '{}',
      'MALFORMED_REQUEST',
    ],
    [
      'a control character in a header',
      head(['GET /event/a HTTP/1.1', 'host: x', `${KEY}\u0001x`]),
      'MALFORMED_REQUEST',
    ],
    [
      'raw non-ASCII bytes in the path',
      Buffer.concat([
        Buffer.from('GET /event/'),
        Buffer.from([0xc3, 0xa9, 0xff]),
        Buffer.from(` HTTP/1.1\r\nhost: x\r\n${KEY}\r\n\r\n`),
      ]),
      'MALFORMED_REQUEST',
    ],
    ['a request line that is not HTTP', 'GET /event/a HTTQ/1.1\r\n\r\n', 'MALFORMED_REQUEST'],
  ])('answers %s with 400 in the error shape and closes', async (_name, request, code) => {
    expectShapedError(await rawExchange(port(), [request]), 400, 'BAD_REQUEST', code);
  });

  it('answers CONNECT, which it does not tunnel, with 400 METHOD_UNSUPPORTED instead of hanging up', async () => {
    expectShapedError(
      await rawExchange(port(), [head(['CONNECT example.com:443 HTTP/1.1', 'host: example.com:443'])]),
      400,
      'BAD_REQUEST',
      'METHOD_UNSUPPORTED',
    );
  });

  it('answers a request head over 16 KiB (a 20,000-character id) with 431 in the error shape', async () => {
    const reply = await rawExchange(port(), [head([`GET /event/${'a'.repeat(20_000)} HTTP/1.1`, 'host: x', KEY])]);
    expectShapedError(reply, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'HEADERS_TOO_LARGE');
  });

  it('still answers an id that fits in the head but not in 128 characters with 422 eventId:INVALID_FORMAT', async () => {
    const reply = await rawExchange(port(), [
      head([`GET /event/${'a'.repeat(10_000)} HTTP/1.1`, 'host: x', KEY, 'connection: close']),
    ]);
    expect(reply.status).toBe(422);
    expect(reply.json).toMatchObject({ errorCodes: ['eventId:INVALID_FORMAT'] });
  });
});

// Side by side: each is a connection of its own waiting on the sandbox's timers, which run
// alike whether one connection waits or five.
describe.concurrent('slow and stalled clients', () => {
  it('answers 408 when the headers stop arriving, and closes', async () => {
    const reply = await rawExchange(port(), ['GET /event/a HTTP/1.1\r\nhost: x\r\n'], { timeoutMs: 5_000 });
    expectShapedError(reply, 408, 'REQUEST_TIMEOUT', 'REQUEST_TIMEOUT');
  });

  it('answers 408 when the body stops arriving (Content-Length 100, 10 bytes sent), and closes', async () => {
    const request =
      head(['POST /event HTTP/1.1', 'host: x', KEY, 'content-type: application/json', 'content-length: 100']) +
      '{"amount":';
    const reply = await rawExchange(port(), [request], { timeoutMs: 5_000 });
    expectShapedError(reply, 408, 'REQUEST_TIMEOUT', 'REQUEST_TIMEOUT');
    expect(reply.elapsedMs).toBeLessThan(2_900);
  });

  it('answers 408 to a body that trickles in for longer than the whole-request limit', async () => {
    const body = '{"id":"trickle-1","amount":10,"currency":"EUR"}';
    const pieces = [
      head([
        'POST /event HTTP/1.1',
        'host: x',
        KEY,
        'content-type: application/json',
        `content-length: ${body.length}`,
      ]),
      ...body.split(''),
    ];
    // One byte every 100 ms (never idle for 1 s): 4.7 s in all, over the 3 s limit.
    const reply = await rawExchange(port(), pieces, { pauseMs: 100, timeoutMs: 5_000 });
    expectShapedError(reply, 408, 'REQUEST_TIMEOUT', 'REQUEST_TIMEOUT');
    expect((await sb.call('GET', '/event/trickle-1')).status).toBe(404);
  });

  it('serves a slow client that keeps sending within the limits', async () => {
    const body = '{"id":"slow-1","amount":10,"currency":"EUR"}';
    const pieces = [
      head([
        'POST /event HTTP/1.1',
        'host: x',
        KEY,
        'content-type: application/json',
        `content-length: ${body.length}`,
        'connection: close',
      ]),
    ];
    for (let i = 0; i < body.length; i += 10) pieces.push(body.slice(i, i + 10));
    // Six pieces 200 ms apart: never idle for 1 s, done in 1 s of the 3 s allowed.
    const reply = await rawExchange(port(), pieces, { pauseMs: 200 });
    expect(reply.status, reply.body).toBe(201);
  });

  it('closes a keep-alive connection left idle, without an unasked-for answer', async () => {
    const reply = await rawExchange(port(), [head(['GET /event/nope HTTP/1.1', 'host: x', KEY])], {
      closeWaitMs: 3_000,
    });
    expect(reply.status).toBe(404);
    expect(reply.closed).toBe(true);
  });
});
