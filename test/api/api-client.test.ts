import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventPath, previewRequest, type ApiClientOptions } from '../../src/api/api-client.js';
import { failureWords } from '../../src/failures/failure-words.js';
import { failureMessages } from '../../src/failures/failure-messages.js';
import {
  ApiError,
  asNotTheService,
  BadResponseError,
  NetworkError,
  NotTheServiceError,
} from '../../src/api/api-error.js';
import { isLoopbackHost } from '../../src/api/transport.js';
import { UsageError } from '../../src/errors/cli-error.js';
import { DEMO_KEY, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import {
  closedPort,
  destroy,
  empty,
  hang,
  json,
  redirect,
  startFakeServer,
  text,
  trickle,
  type FakeServer,
} from '../support/fake-server.js';
import { TERMINAL_CONTROLS } from '../support/terminal-controls.js';

/*
 * ApiClient against small scripted servers (for what the real sandbox cannot produce: odd
 * statuses, dropped connections, slow or hostile answers), and a few round trips against the
 * real sandbox.
 */

const KEY = 'secret-key-abcdef123456';
/** What a terminal could act on, or that reorders text: ESC, C1, bidi controls. */

let fakes: FakeServer[] = [];
let clients: ApiClient[] = [];

afterEach(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  await Promise.all(clients.map((c) => c.close()));
  fakes = [];
  clients = [];
});

async function fake(): Promise<FakeServer> {
  const server = await startFakeServer();
  fakes.push(server);
  return server;
}

interface TestClient {
  client: ApiClient;
  /** Every --debug line the client wrote. */
  lines: string[];
  /** Every wait between attempts (only recorded when `recordWaits`; they then take no time). */
  waits: number[];
}

function makeClient(
  baseUrl: string,
  options: Partial<ApiClientOptions> & { recordWaits?: boolean; profile?: string } = {},
): TestClient {
  const lines: string[] = [];
  const waits: number[] = [];
  const { recordWaits, profile, ...rest } = options;
  const client = new ApiClient({
    baseUrl,
    describe: failureMessages(failureWords(profile !== undefined ? { profile } : {})),
    apiKey: KEY,
    timeoutMs: 5000,
    env: {},
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    debug: (line) => lines.push(line),
    ...(recordWaits
      ? {
          sleep: (ms: number) => {
            waits.push(ms);
            return Promise.resolve();
          },
        }
      : {}),
    ...rest,
  });
  clients.push(client);
  return { client, lines, waits };
}

/** The error a call rejected with (fails the test if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(Error);
  return outcome.error as Error;
}

const requestLines = (lines: string[], method: string) => lines.filter((l) => l.startsWith(`→ ${method} `));

describe('a status that is not success becomes a typed error with its exit code', () => {
  type Call = (c: ApiClient) => Promise<unknown>;
  const get: Call = (c) => c.getEvent('evt-1');
  const submit: Call = (c) => c.submitEvent({ id: 'evt-1', amount: 1 });
  const patch: Call = (c) => c.changeState('evt-1', { state: 'APPROVED' });

  it.each<[number, string, number, RegExp, Call]>([
    [401, 'GET', 3, /did not accept the API key/, get],
    [403, 'GET', 3, /blocked/, get],
    [404, 'GET', 4, /no event "evt-1"/, get],
    [409, 'POST', 5, /"evt-1" already exists/, submit],
    [400, 'POST', 5, /could not read the request/, submit],
    [413, 'POST', 5, /too large/, submit],
    [415, 'POST', 5, /content type/, submit],
    [429, 'PATCH', 6, /rate limiting/, patch],
    [502, 'GET', 6, /unavailable/, get],
    [503, 'GET', 6, /unavailable/, get],
    [504, 'GET', 6, /unavailable/, get],
    [500, 'GET', 1, /answered 500/, get],
  ])('%i on %s: exit code %i', async (status, _method, exitCode, message, call) => {
    const server = await fake();
    server.script(json(status, { requestId: `req-${status}`, errorType: `TYPE_${status}`, errorCodes: [] }));
    const { client } = makeClient(server.url, { retry: { maxRetries: 0 } });
    const error = await rejection(call(client));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status, exitCode, requestId: `req-${status}` });
    expect(error.message).toMatch(message);
    expect(error.message).toContain(`req-${status}`);
  });

  it('401: the hint says how to give a key', async () => {
    const server = await fake();
    server.script(json(401, { requestId: 'r', errorType: 'UNAUTHORIZED', errorCodes: [] }));
    const { client } = makeClient(server.url, { profile: 'prod' });
    const error = (await rejection(client.getEvent('evt-1'))) as ApiError;
    expect(error.hint).toContain('fraudctl login --profile prod');
  });

  it('409 on submit: the hint names the stored event', async () => {
    const server = await fake();
    server.script(json(409, { requestId: 'r', errorType: 'CONFLICT', errorCodes: [] }));
    const { client } = makeClient(server.url);
    const error = (await rejection(client.submitEvent({ id: 'evt-9' }))) as ApiError;
    expect(error.hint).toContain('fraudctl show evt-9');
  });

  it('422: the message lists every field code', async () => {
    const server = await fake();
    server.script(
      json(422, {
        requestId: 'req-422',
        errorType: 'INVALID_FIELDS',
        errorCodes: ['amount:REQUIRED', 'userIp:INVALID_FORMAT'],
      }),
    );
    const { client } = makeClient(server.url);
    const error = (await rejection(client.submitEvent({ id: 'evt-1' }))) as ApiError;
    expect(error).toMatchObject({
      exitCode: 5,
      status: 422,
      errorType: 'INVALID_FIELDS',
      errorCodes: ['amount:REQUIRED', 'userIp:INVALID_FORMAT'],
    });
    expect(error.message).toContain('amount:REQUIRED, userIp:INVALID_FORMAT');
    expect(error.message).toContain('req-422');
  });

  it('takes the request id from X-Request-Id when the body has none', async () => {
    const server = await fake();
    server.script(json(404, { errorType: 'NOT_FOUND' }, { 'x-request-id': 'hdr-77' }));
    const { client } = makeClient(server.url);
    const error = (await rejection(client.getEvent('evt-1'))) as ApiError;
    expect(error.requestId).toBe('hdr-77');
    expect(error.message).toContain('hdr-77');
  });
});

describe('a 404 means "no such event" only in the service\'s own words', () => {
  it.each<[string, ReturnType<typeof json>]>([
    [
      'EVENT_NOT_FOUND in the error shape',
      json(404, { requestId: 'r', errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] }),
    ],
    [
      'the error shape with a code the client does not know',
      json(404, { requestId: 'r', errorType: 'NOT_FOUND', errorCodes: ['NO_SUCH_TRANSACTION'] }),
    ],
    ['the error shape with every field null', json(404, { requestId: null, errorType: null, errorCodes: null })],
  ])('%s: ApiError 404, exit 4', async (_what, handler) => {
    const server = await fake();
    server.script(handler);
    const { client } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, exitCode: 4 });
    expect(error.message).toMatch(/^no event "evt-1"/);
  });

  it.each<[string, ReturnType<typeof json>, RegExp]>([
    [
      'an HTML page',
      text(404, '<html><head><title>404 Not Found</title></head><body>nginx</body></html>', 'text/html'),
      /an HTML page titled "404 Not Found"/,
    ],
    ['plain text', text(404, 'Not Found', 'text/plain'), /text\/plain: "Not Found"/],
    ['no body at all', empty(404), /an empty body/],
    [
      'JSON that is not the error shape',
      json(404, { message: 'Not Found', path: '/event/evt-1' }),
      /JSON that is not the service's error shape/,
    ],
    [
      'the error shape with a field of the wrong type',
      json(404, { errorType: 'NOT_FOUND', errorCodes: 'EVENT_NOT_FOUND' }),
      /JSON that is not the service's error shape/,
    ],
    [
      'ROUTE_NOT_FOUND',
      json(404, { requestId: 'r-9', errorType: 'NOT_FOUND', errorCodes: ['ROUTE_NOT_FOUND'] }),
      /the code ROUTE_NOT_FOUND, which names a route, not an event/,
    ],
    [
      'an errorType that names a path',
      json(404, { errorType: 'NO_SUCH_PATH', errorCodes: [] }),
      /the code NO_SUCH_PATH/,
    ],
  ])('%s: NotTheServiceError, exit 1, saying what came back and to check the base URL', async (_what, handler, got) => {
    const server = await fake();
    server.script(handler);
    const { client } = makeClient(`${server.url}/fraud`, { profile: 'prod' });
    for (const call of [
      () => client.getEvent('evt-1'),
      () => client.getRiskAssessment('evt-1'),
      () => client.changeState('evt-1', { state: 'APPROVED' }),
      () => client.submitEvent({ id: 'evt-1' }),
    ]) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(NotTheServiceError);
      expect(error).toBeInstanceOf(BadResponseError);
      expect(error).toMatchObject({ status: 404, exitCode: 1 });
      expect(error.message).toMatch(got);
      expect(error.message).toMatch(/^(GET|PATCH|POST) http:\/\/127\.0\.0\.1:\d+\/fraud\/event/);
      expect(error.message).toContain('not the service, or not its base path');
      expect(error.message).not.toMatch(/no event/);
      expect((error as NotTheServiceError).hint).toContain('--profile prod');
    }
    // Not retried: it would only come again.
    expect(server.requests).toHaveLength(4);
  });

  it('the sandbox under a wrong base path: its ROUTE_NOT_FOUND is not "no such event"', async () => {
    const sandbox = await startTestSandbox();
    try {
      const { client } = makeClient(`${sandbox.url}/v1`, { apiKey: DEMO_KEY });
      const error = await rejection(client.getEvent('evt-1'));
      expect(error).toBeInstanceOf(NotTheServiceError);
      expect(error.message).toContain('ROUTE_NOT_FOUND');
      const right = await rejection(makeClient(sandbox.url, { apiKey: DEMO_KEY }).client.getEvent('evt-1'));
      expect(right).toMatchObject({ status: 404, exitCode: 4 });
    } finally {
      await sandbox.close();
    }
  });

  it('a hostile HTML title in a 404 is shown inert', async () => {
    const server = await fake();
    server.script(text(404, '<html><title>\u001b]0;pwned\u0007\u202eevil</title></html>', 'text/html'));
    const { client } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toBeInstanceOf(NotTheServiceError);
    expect(error.message).toContain('\\x1b]0;pwned');
    expect(error.message).not.toMatch(TERMINAL_CONTROLS);
  });
});

describe('an error answer that is not the service\'s carries "this URL is not the service" (what stops a batch)', () => {
  it.each([
    [
      'a 501 HTML page (python3 -m http.server)',
      text(501, '<html><title>Error response</title><p>Unsupported method</p></html>', 'text/html'),
      /answered 501 with an HTML page titled "Error response"/,
    ],
    [
      'a 405 in the error shape',
      json(405, { requestId: null, errorType: 'METHOD_NOT_ALLOWED', errorCodes: [] }),
      /answered 405 with JSON, to a method or route the service does not have/,
    ],
    [
      'a 500 that is plain text',
      text(500, 'upstream connect error', 'text/plain'),
      /answered 500 with text\/plain: "upstream connect error"/,
    ],
    [
      'a 422 in JSON that is not the error shape',
      json(422, { message: 'nope' }),
      /answered 422 with JSON that is not the service's error shape/,
    ],
    [
      'a 2xx that is not JSON',
      text(200, '<html><title>Welcome</title></html>', 'text/html'),
      /answered 200 with an HTML page titled "Welcome"/,
    ],
  ])('%s', async (_name, answer, words) => {
    const server = await fake();
    server.script(answer);
    const { client } = makeClient(server.url);
    const error = await rejection(client.changeState('evt-1', { state: 'APPROVED' }));
    const foreign = asNotTheService(error);
    expect(foreign).toBeInstanceOf(NotTheServiceError);
    expect(foreign!.message).toMatch(words);
    expect(foreign!.message).toContain("that is not the fraud-screening service's answer");
    expect(foreign!.exitCode).toBe(1);
  });

  it.each([
    [
      "the service's own 422",
      json(422, { requestId: 'r', errorType: 'INVALID_STATE', errorCodes: ['state:INVALID_STATE_TRANSITION'] }),
    ],
    ["a gateway's HTML 502", text(502, '<html><title>502 Bad Gateway</title></html>', 'text/html')],
    ["a proxy's HTML 413", text(413, '<html><title>413 Request Entity Too Large</title></html>', 'text/html')],
    ['an HTML 401', text(401, '<html><title>401 Authorization Required</title></html>', 'text/html')],
  ])('not for %s', async (_name, answer) => {
    const server = await fake();
    server.script(answer, answer, answer, answer);
    const { client } = makeClient(server.url, { retry: { maxRetries: 0 } });
    expect(asNotTheService(await rejection(client.changeState('evt-1', { state: 'APPROVED' })))).toBeUndefined();
  });
});

describe('an answer larger than 16 MiB', () => {
  it('is a bad answer (BadResponseError, exit 1), not retried, and a POST says the event may be stored', async () => {
    const server = await fake();
    const big: Parameters<FakeServer['script']>[0] = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('error', () => {});
      res.end(Buffer.alloc(17 * 1024 * 1024, 0x20));
    };
    server.script(big);
    const { client } = makeClient(server.url);
    const get = await rejection(client.getEvent('evt-1'));
    expect(get).toBeInstanceOf(BadResponseError);
    expect(get).toMatchObject({ exitCode: 1 });
    expect(get.message).toMatch(/is larger than 16 MiB: not read$/);
    expect(server.requests).toHaveLength(1);
    const post = (await rejection(client.submitEvent({ id: 'evt-2', amount: 1 }))) as BadResponseError;
    expect(post).toBeInstanceOf(BadResponseError);
    expect(post.hint).toContain('fraudctl show evt-2');
  });
});

describe('retries', () => {
  it('GET: retried on 503, then the success is returned', async () => {
    const server = await fake();
    server.script(
      json(503, { errorType: 'OVERLOADED' }),
      json(503, { errorType: 'OVERLOADED' }),
      json(200, { id: 'evt-1' }),
    );
    const { client } = makeClient(server.url);
    await expect(client.getEvent('evt-1')).resolves.toMatchObject({ status: 200, body: { id: 'evt-1' } });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /event/evt-1',
      'GET /event/evt-1',
      'GET /event/evt-1',
    ]);
  });

  it('waits at least the Retry-After the server asked for', async () => {
    const server = await fake();
    server.script(json(503, {}, { 'retry-after': '2' }), json(200, { id: 'evt-1' }));
    const { client, waits } = makeClient(server.url, { recordWaits: true, timeoutMs: 60_000 });
    await client.getEvent('evt-1');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(2000);
    expect(waits[0]).toBeLessThan(2100);
  });

  it('waits a Retry-After longer than 30 s in full when --timeout allows it: never sent again sooner', async () => {
    const server = await fake();
    server.script(json(429, {}, { 'retry-after': '40' }), json(200, { id: 'evt-1' }));
    const { client, waits } = makeClient(server.url, { recordWaits: true, timeoutMs: 60_000 });
    await client.getEvent('evt-1');
    expect(waits).toEqual([40_000]);
  });

  it('a Retry-After past the deadline: the 503 stands at once (exit 6), saying how long the service asked to wait; never "no answer"', async () => {
    const server = await fake();
    server.script(
      json(
        503,
        { requestId: 'r-1', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] },
        { 'retry-after': '20' },
      ),
      json(200, { id: 'evt-1' }),
    );
    const { client, waits } = makeClient(server.url, { recordWaits: true, timeoutMs: 5000 });
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, errorType: 'SERVICE_UNAVAILABLE', exitCode: 6, attempts: 1 });
    expect(error.message).toBe(
      'the service is unavailable while fetching event "evt-1" (503 SERVICE_UNAVAILABLE: OVERLOADED, request r-1), and asked to wait 20 s before another try: longer than --timeout (5 s) allows',
    );
    expect((error as ApiError).hint).toBe('try again in 20 s, or allow for the wait with --timeout 25');
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('a POST whose backoff does not fit in the time left: the 503 stands, not a timeout that "may have been stored"', async () => {
    const server = await fake();
    server.script(json(503, { requestId: 'r-2', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] }));
    // Time enough for the answer however slow the machine (50 ms once timed out under load);
    // the minute of backoff is what cannot fit.
    const { client, waits } = makeClient(server.url, {
      recordWaits: true,
      timeoutMs: 5000,
      retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const random = Math.random;
    Math.random = () => 0.99;
    try {
      const error = await rejection(client.submitEvent({ id: 'evt-2', amount: 1 }));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 503, exitCode: 6 });
      expect(`${error.message} ${(error as ApiError).hint}`).not.toMatch(/no answer|may have been stored/);
    } finally {
      Math.random = random;
    }
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('PATCH: retried on 429 with the same body', async () => {
    const server = await fake();
    server.script(json(429, { errorType: 'RATE_LIMITED' }), json(200, { id: 'evt-1', state: 'APPROVED' }));
    const { client } = makeClient(server.url);
    await expect(client.changeState('evt-1', { state: 'APPROVED', comments: 'ok' })).resolves.toMatchObject({
      status: 200,
    });
    expect(server.requests).toHaveLength(2);
    for (const r of server.requests) {
      expect(r.method).toBe('PATCH');
      expect(JSON.parse(r.body)).toEqual({ state: 'APPROVED', comments: 'ok' });
    }
  });

  it('POST and PATCH: retried on 408 (the request was not received whole, so nothing was processed)', async () => {
    const server = await fake();
    const notReceived = json(408, { errorType: 'REQUEST_TIMEOUT' });
    server.script(notReceived, json(201, { id: 'evt-1' }), notReceived, json(200, { id: 'evt-1', state: 'APPROVED' }));
    const { client } = makeClient(server.url);
    await expect(client.submitEvent({ id: 'evt-1' })).resolves.toMatchObject({ status: 201 });
    await expect(client.changeState('evt-1', { state: 'APPROVED' })).resolves.toMatchObject({ status: 200 });
    expect(server.requests.map((r) => `${r.method} ${r.body}`)).toEqual([
      'POST {"id":"evt-1"}',
      'POST {"id":"evt-1"}',
      'PATCH {"state":"APPROVED"}',
      'PATCH {"state":"APPROVED"}',
    ]);
  });

  it('GET: retried when the connection drops, then the success is returned', async () => {
    const server = await fake();
    server.script(destroy, json(200, { id: 'evt-1' }));
    const { client } = makeClient(server.url);
    await expect(client.getEvent('evt-1')).resolves.toMatchObject({ status: 200, body: { id: 'evt-1' } });
    expect(server.requests).toHaveLength(2);
  });

  it.each([502, 504])('GET: retried after a gateway %i, which a GET cannot make worse', async (status) => {
    const server = await fake();
    server.script(json(status, { errorType: 'GATEWAY' }), json(200, { id: 'evt-1' }));
    const { client } = makeClient(server.url);
    await expect(client.getEvent('evt-1')).resolves.toMatchObject({ status: 200, attempts: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it('PATCH: not retried after a gateway 504 (the change may have been made)', async () => {
    const server = await fake();
    server.script(json(504, { errorType: 'GATEWAY' }), json(200, { id: 'evt-1' }));
    const { client } = makeClient(server.url);
    await expect(client.changeState('evt-1', { state: 'APPROVED' })).rejects.toMatchObject({ status: 504 });
    expect(server.requests).toHaveLength(1);
  });

  it('POST: not retried on 504, and says the event may have been stored', async () => {
    const server = await fake();
    server.script(json(504, { requestId: 'r', errorType: 'SCORING_TIMEOUT' }), json(201, { id: 'evt-7' }));
    const { client } = makeClient(server.url);
    const error = await rejection(client.submitEvent({ id: 'evt-7' }));
    expect(error).toMatchObject({ status: 504, exitCode: 6 });
    expect(server.requests).toHaveLength(1);
    expect((error as ApiError).hint).toContain('may have been stored');
    expect((error as ApiError).hint).toContain('fraudctl show evt-7');
  });

  it('POST: not retried when the connection drops after the request was sent', async () => {
    const server = await fake();
    server.script(destroy, json(201, { id: 'evt-7' }));
    const { client } = makeClient(server.url);
    const error = await rejection(client.submitEvent({ id: 'evt-7' }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ failure: 'reset', exitCode: 6, maybeProcessed: true });
    expect(server.requests).toHaveLength(1);
    expect((error as NetworkError).hint).toContain('may have been stored');
    expect((error as NetworkError).hint).toContain('fraudctl show evt-7');
  });

  it('POST: retried on 503 (the service did not process it)', async () => {
    const server = await fake();
    server.script(json(503, { errorType: 'OVERLOADED' }), json(201, { id: 'evt-7' }));
    const { client } = makeClient(server.url);
    await expect(client.submitEvent({ id: 'evt-7' })).resolves.toMatchObject({ status: 201, body: { id: 'evt-7' } });
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(server.requests[0]?.body).toBe(server.requests[1]?.body);
  });

  it('POST: retried when the connection is refused (nothing was sent), then fails as refused', async () => {
    const port = await closedPort();
    const { client, lines, waits } = makeClient(`http://127.0.0.1:${port}`, {
      recordWaits: true,
      retry: { maxRetries: 2 },
    });
    const error = await rejection(client.submitEvent({ id: 'evt-7' }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ failure: 'refused', exitCode: 6, maybeProcessed: false });
    expect(error.message).toContain('connection refused');
    expect(requestLines(lines, 'POST')).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it('stops after maxRetries; the error is the last status', async () => {
    const server = await fake();
    server.script(
      json(503, { requestId: 'first' }),
      json(429, { requestId: 'second' }),
      json(429, { requestId: 'third' }),
      json(200, { id: 'evt-1' }),
    );
    const { client } = makeClient(server.url, { retry: { baseDelayMs: 1, maxDelayMs: 5, maxRetries: 2 } });
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, requestId: 'third', exitCode: 6 });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 4xx that will not change (404)', async () => {
    const server = await fake();
    server.script(json(404, { errorType: 'NOT_FOUND' }), json(200, { id: 'evt-1' }));
    const { client } = makeClient(server.url);
    await expect(client.getEvent('evt-1')).rejects.toMatchObject({ status: 404 });
    expect(server.requests).toHaveLength(1);
  });
});

describe('the deadline covers the whole call', () => {
  it('a body that trickles in forever ends in a timeout', async () => {
    const server = await fake();
    server.script(trickle(200));
    const { client } = makeClient(server.url, { timeoutMs: 1000 });
    const started = performance.now();
    const error = await rejection(client.getEvent('evt-1'));
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ failure: 'timeout', exitCode: 6 });
    expect(error.message).toContain('within 1 s');
    expect(elapsed).toBeGreaterThan(800);
    expect(elapsed).toBeLessThan(3000);
    // A timeout ends the call: not retried inside the same deadline.
    expect(server.requests).toHaveLength(1);
  });

  it('a server that never answers ends in a timeout', async () => {
    const server = await fake();
    server.script(hang);
    const { client } = makeClient(server.url, { timeoutMs: 500 });
    const started = performance.now();
    const error = await rejection(client.getEvent('evt-1'));
    expect(performance.now() - started).toBeLessThan(3000);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ failure: 'timeout', exitCode: 6 });
  });

  it('a POST that times out says the event may have been stored', async () => {
    const server = await fake();
    server.script(hang);
    const { client } = makeClient(server.url, { timeoutMs: 500 });
    const error = (await rejection(client.submitEvent({ id: 'evt-5' }))) as NetworkError;
    expect(error).toMatchObject({ failure: 'timeout', maybeProcessed: true });
    expect(error.hint).toContain('fraudctl show evt-5');
    expect(server.requests).toHaveLength(1);
  });
});

describe("a batch's abort signal", () => {
  it("ends every request in flight at once, through one listener for the client's life (none per request)", async () => {
    const server = await fake();
    server.script(hang);
    const abort = new AbortController();
    const { client } = makeClient(server.url, { timeoutMs: 30_000, signal: abort.signal, connections: 4 });
    const calls = ['a', 'b', 'c', 'd'].map((id) => rejection(client.getEvent(id)));
    await expect.poll(() => server.requests.length).toBe(4);
    // A listener added to the batch's long-lived signal by each request (thousands a second in a
    // bulk change) made V8 promote every request's objects: 30 MB more RSS on Node 26.
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(1);
    const started = performance.now();
    abort.abort();
    const errors = await Promise.all(calls);
    expect(performance.now() - started).toBeLessThan(3000);
    for (const error of errors) expect(error).toBeInstanceOf(NetworkError);
  });
});

describe('tolerant reading of odd answers', () => {
  it('a 502 HTML page from a gateway: described by its title, no markup in the message', async () => {
    const server = await fake();
    server.script(
      text(
        502,
        '<html><head><title>Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>',
        'text/html',
      ),
    );
    const { client } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toMatchObject({ status: 502, exitCode: 6 });
    expect(error.message).toContain('an HTML page titled "Bad Gateway"');
    expect(error.message).not.toMatch(/<\/?[a-z]+/i);
  });

  it('a 200 that is an HTML page: not JSON, exit 1', async () => {
    const server = await fake();
    server.script(text(200, '<!doctype html><html><title>Login portal</title></html>', 'text/html'));
    const { client } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toBeInstanceOf(BadResponseError);
    expect(error).toMatchObject({ exitCode: 1 });
    expect(error.message).toContain('not JSON');
    expect(error.message).toContain('Login portal');
  });

  it('a 200 whose JSON is not an object', async () => {
    const server = await fake();
    server.script(json(200, [1]));
    const { client } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toBeInstanceOf(BadResponseError);
    expect(error.message).toContain('not the JSON object expected');
  });

  it('a 200 with fields the client does not know: returned as it came', async () => {
    const server = await fake();
    const body = { id: 'evt-1', state: 'APPROVED', brandNewField: { nested: [1, 2] }, score: null };
    server.script(json(200, body, { 'x-request-id': 'req-ok' }));
    const { client } = makeClient(server.url);
    await expect(client.getEvent('evt-1')).resolves.toEqual({ status: 200, body, requestId: 'req-ok', attempts: 1 });
  });

  it('a PATCH answered 204 with no body', async () => {
    const server = await fake();
    server.script(empty(204));
    const { client } = makeClient(server.url);
    await expect(client.changeState('evt-1', { state: 'APPROVED' })).resolves.toMatchObject({
      status: 204,
      body: undefined,
    });
  });

  it.each([
    [
      'extra fields',
      {
        requestId: 'req-x',
        errorType: 'INVALID_FIELDS',
        errorCodes: ['amount:REQUIRED'],
        detail: { deep: true },
        trace: ['a', 'b'],
      },
    ],
    ['no errorCodes', { requestId: 'req-x', errorType: 'INVALID_FIELDS' }],
    [
      'errorCodes that are not strings',
      { requestId: 'req-x', errorType: 'INVALID_FIELDS', errorCodes: [1, null, { a: 1 }, 'amount:REQUIRED'] },
    ],
    [
      'errorCodes that is not a list',
      { requestId: 'req-x', errorType: 'INVALID_FIELDS', errorCodes: 'amount:REQUIRED' },
    ],
  ])('an error body with %s still gives a clean message', async (_what, body) => {
    const server = await fake();
    server.script(json(422, body));
    const { client } = makeClient(server.url);
    const error = (await rejection(client.submitEvent({ id: 'evt-1' }))) as ApiError;
    expect(error).toMatchObject({ status: 422, exitCode: 5, errorType: 'INVALID_FIELDS', requestId: 'req-x' });
    expect(error.message).toContain('rejected the request while screening the event');
    expect(error.message).toContain('422 INVALID_FIELDS');
    expect(error.message).toContain('req-x');
    expect(error.message).not.toMatch(/object Object|undefined|null|\{|\[/);
  });

  it('an error body that is not JSON: a short quote of it', async () => {
    const server = await fake();
    server.script(text(500, 'upstream connect error or disconnect/reset before headers', 'text/plain'));
    const { client } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toMatchObject({ status: 500, exitCode: 1 });
    expect(error.message).toContain('text/plain: "upstream connect error');
  });
});

describe('strings from a hostile server are made harmless', () => {
  it('errorType, errorCodes and requestId in the message and hint', async () => {
    const server = await fake();
    server.script(
      json(422, {
        requestId: 'req\u009b31m\u001b[2J',
        errorType: '\u001b]0;pwned\u0007BAD',
        errorCodes: ['amount:\u001b[2JREQUIRED', '\u202eSTATE:DERETLA', 'x\u2066y\u0085'],
      }),
    );
    const { client, lines } = makeClient(server.url);
    const error = (await rejection(client.changeState('evt-1', { state: 'APPROVED' }))) as ApiError;
    expect(error.status).toBe(422);
    // The content is still shown, as printable escapes.
    expect(error.message).toContain('\\x1b]0;pwned\\x07BAD');
    expect(error.message).toContain('\\u202eSTATE');
    expect(error.hint).toBeDefined();
    for (const shown of [
      error.message,
      error.hint ?? '',
      error.errorType ?? '',
      ...error.errorCodes,
      error.requestId ?? '',
      ...lines,
    ]) {
      expect(shown).not.toMatch(TERMINAL_CONTROLS);
    }
  });

  it('an HTML title and a plain-text error body', async () => {
    const server = await fake();
    server.script(
      text(502, '<html><title>\u001b[31mDown\u202e</title></html>', 'text/html'),
      text(500, '\u001b]8;;http://evil\u001b\\click\u009b', 'text/plain'),
    );
    const { client } = makeClient(server.url, { retry: { maxRetries: 0 } });
    const first = await rejection(client.getEvent('evt-1'));
    const second = await rejection(client.getEvent('evt-1'));
    expect(first.message).toContain('Down');
    expect(second.message).toContain('click');
    for (const e of [first, second]) expect(e.message).not.toMatch(TERMINAL_CONTROLS);
  });
});

describe('a server that echoes the key back', () => {
  it('does not get it printed in the error message, the hint or the debug log', async () => {
    const server = await fake();
    server.script(
      json(401, { requestId: 'r', errorType: 'UNAUTHORIZED', errorCodes: [`KEY_${KEY}_INVALID`] }),
      text(500, `bad key ${KEY}`, 'text/plain'),
    );
    const { client, lines } = makeClient(server.url, { retry: { maxRetries: 0 } });
    const first = (await rejection(client.getEvent('evt-1'))) as ApiError;
    const second = (await rejection(client.getEvent('evt-1'))) as ApiError;
    expect(first.message).toContain('KEY_[redacted]_INVALID');
    expect(second.message).toContain('bad key [redacted]');
    expect(lines.length).toBeGreaterThan(0);
    for (const shown of [first.message, first.hint ?? '', second.message, second.hint ?? '', ...lines])
      expect(shown).not.toContain(KEY);
  });

  it("a one-letter key: fraudctl's own words stay whole, the echoed key is still taken out", async () => {
    const server = await fake();
    server.script(
      json(401, { requestId: 'req-e-1', errorType: 'UNAUTHORIZED', errorCodes: ['API_KEY_INVALID', 'e'] }),
      text(500, 'bad key: e', 'text/plain'),
    );
    const { client } = makeClient(server.url, { apiKey: 'e', retry: { maxRetries: 0 } });
    const first = (await rejection(client.getEvent('evt-1'))) as ApiError;
    const second = (await rejection(client.getEvent('evt-1'))) as ApiError;
    expect(first.message).toBe(
      'the service did not accept the API key (401 UNAUTHORIZED: API_KEY_INVALID, [redacted], request req-[redacted]-1)',
    );
    expect(first.hint).toBe('check the key: run fraudctl login, or set FRAUDCTL_API_KEY');
    expect(first.errorCodes).toEqual(['API_KEY_INVALID', '[redacted]']);
    expect(second.message).toMatch(/^the service answered 500, text\/plain: "bad key: \[redacted\]"/);
  });
});

describe('a 409 for an event without an id', () => {
  it('says "the event" rather than leaving a gap', async () => {
    const server = await fake();
    server.script(json(409, { requestId: 'r', errorType: 'CONFLICT', errorCodes: ['EVENT_ID_CONFLICT'] }));
    const { client } = makeClient(server.url);
    const error = await rejection(client.submitEvent({ amount: 1, currency: 'EUR' }));
    expect(error.message).toMatch(/^the event already exists with a different payload \(409 CONFLICT/);
  });
});

describe('redirects', () => {
  it('to another origin: not followed, and the key never goes there', async () => {
    const server = await fake();
    const elsewhere = await fake();
    elsewhere.script(json(200, { id: 'evt-1' }));
    server.script(redirect(302, `${elsewhere.url}/event/evt-1`));
    const { client } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toBeInstanceOf(BadResponseError);
    expect(error).toMatchObject({ exitCode: 1 });
    expect(error.message).toContain('another origin');
    expect(error.message).toContain(elsewhere.url);
    expect(server.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('within the same origin, for GET: followed', async () => {
    const server = await fake();
    server.script(redirect(301, '/event/evt-2'), json(200, { id: 'evt-2' }));
    const { client } = makeClient(server.url);
    await expect(client.getEvent('evt-1')).resolves.toMatchObject({ status: 200, body: { id: 'evt-2' } });
    expect(server.requests.map((r) => r.url)).toEqual(['/event/evt-1', '/event/evt-2']);
    expect(server.requests[1]?.headers['x-client-api-key']).toBe(KEY);
  });

  it('for PATCH: not followed, even within the same origin', async () => {
    const server = await fake();
    server.script(redirect(307, '/event/evt-2/state'), json(200, { id: 'evt-2' }));
    const { client } = makeClient(server.url);
    const error = await rejection(client.changeState('evt-1', { state: 'APPROVED' }));
    expect(error).toBeInstanceOf(BadResponseError);
    expect(error.message).toContain('not followed');
    expect(server.requests).toHaveLength(1);
  });

  it('a redirect loop ends after a few hops', async () => {
    const server = await fake();
    server.script(redirect(302, '/event/evt-1'));
    const { client } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toBeInstanceOf(BadResponseError);
    expect(server.requests.length).toBeGreaterThan(1);
    expect(server.requests.length).toBeLessThanOrEqual(5);
  });

  it.each([
    ['no Location', empty(302)],
    ['a Location that is not a URL', redirect(302, 'http://[not-a-host/')],
  ])('with %s: a bad response, not a crash', async (_what, handler) => {
    const server = await fake();
    server.script(handler);
    const { client } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toBeInstanceOf(BadResponseError);
    expect(error).toMatchObject({ exitCode: 1 });
  });
});

describe('paths', () => {
  it('an event id is one encoded path segment', async () => {
    const server = await fake();
    server.script(json(200, { id: 'x' }));
    const { client } = makeClient(server.url);
    await client.getEvent('a/b c?ü#1');
    await client.changeState('x/y', { state: 'APPROVED' });
    await client.getRiskAssessment('r%2F1');
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /event/a%2Fb%20c%3F%C3%BC%231',
      'PATCH /event/x%2Fy/state',
      'GET /event/r%252F1/risk-assessment',
    ]);
  });

  it.each([
    ['.', 'getEvent', '/event/%2E'],
    ['..', 'getEvent', '/event/%2E%2E'],
    ['.', 'getRiskAssessment', '/event/%2E/risk-assessment'],
    ['..', 'changeState', '/event/%2E%2E/state'],
  ] as const)('the id %j (valid for the service) stays in its segment for %s', async (id, method, path) => {
    const server = await fake();
    server.script(json(200, { id }));
    const { client, lines } = makeClient(server.url);
    await (method === 'changeState' ? client.changeState(id, { state: 'APPROVED' }) : client[method](id));
    expect(server.requests.map((r) => r.url)).toEqual([path]);
    expect(lines[0]).toContain(`${server.url}${path}`);
  });

  it('--dry-run previews the URL that would be sent, key redacted', () => {
    const preview = previewRequest('http://127.0.0.1:9/api/v1', KEY, 'PATCH', eventPath('..', '/state'), {
      state: 'APPROVED',
    });
    expect(preview).toEqual({
      method: 'PATCH',
      path: '/event/%2E%2E/state',
      url: 'http://127.0.0.1:9/api/v1/event/%2E%2E/state',
      to: 'http://127.0.0.1:9/api/v1/',
      headers: expect.objectContaining({
        'x-client-api-key': '[redacted]',
        'content-type': 'application/json',
      }) as unknown,
      body: { state: 'APPROVED' },
    });
    expect(JSON.stringify(preview)).not.toContain(KEY);
  });

  it.each(['/api/v1', '/api/v1/'])('a base URL with a path prefix (%s) is kept', async (prefix) => {
    const server = await fake();
    server.script(json(201, { id: 'evt-1' }));
    const { client } = makeClient(`${server.url}${prefix}`);
    await client.submitEvent({ id: 'evt-1' });
    await client.getEvent('evt-1');
    await client.changeState('evt-1', { state: 'APPROVED' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/v1/event',
      'GET /api/v1/event/evt-1',
      'PATCH /api/v1/event/evt-1/state',
    ]);
  });
});

describe('headers and the debug log', () => {
  it('sends the key, JSON content type with a body, and the payload as JSON', async () => {
    const server = await fake();
    server.script(json(201, { id: 'evt-1' }));
    const { client } = makeClient(server.url);
    const payload = { id: 'evt-1', amount: 12.5, userFullName: 'Zoë 山田' };
    await client.submitEvent(payload);
    await client.changeState('evt-1', { state: 'DECLINED' });
    await client.getEvent('evt-1');
    const [post, patch, get] = server.requests;
    for (const r of [post, patch, get]) {
      expect(r?.headers['x-client-api-key']).toBe(KEY);
      expect(r?.headers.accept).toBe('application/json');
      expect(r?.headers['user-agent']).toMatch(/^fraudctl\//);
    }
    expect(post?.headers['content-type']).toBe('application/json');
    expect(patch?.headers['content-type']).toBe('application/json');
    expect(get?.headers['content-type']).toBeUndefined();
    expect(JSON.parse(post?.body ?? '')).toEqual(payload);
    expect(JSON.parse(patch?.body ?? '')).toEqual({ state: 'DECLINED' });
  });

  it('sends no key header when there is no key', async () => {
    const server = await fake();
    server.script(json(200, { id: 'evt-1' }));
    const { client } = makeClient(server.url, { apiKey: null });
    await client.getEvent('evt-1');
    expect(server.requests[0]?.headers).not.toHaveProperty('x-client-api-key');
  });

  it('logs each request and answer with the key redacted', async () => {
    const server = await fake();
    server.script(json(503, { errorType: 'OVERLOADED' }), json(201, { id: 'evt-1' }, { 'x-request-id': 'req-9' }));
    const { client, lines } = makeClient(server.url);
    await client.submitEvent({ id: 'evt-1' });
    const log = lines.join('\n');
    expect(requestLines(lines, 'POST')).toHaveLength(2);
    expect(log).toContain(`→ POST ${server.url}/event`);
    expect(log).toContain('"x-client-api-key":"[redacted]"');
    expect(log).toContain('← 503');
    expect(log).toContain('← 201');
    expect(log).toContain('req-9');
    expect(log).not.toContain(KEY);
  });

  it('never logs the key, even when a server echoes it back', async () => {
    const server = await fake();
    server.script((res, req) => {
      res.writeHead(401, {
        'content-type': 'text/plain',
        'x-request-id': `echo ${String(req.headers['x-client-api-key'])}`,
      });
      res.end(`invalid key: ${String(req.headers['x-client-api-key'])}`);
    });
    const { client, lines } = makeClient(server.url);
    const error = await rejection(client.getEvent('evt-1'));
    expect(error).toMatchObject({ status: 401 });
    expect(lines.some((l) => l.startsWith('← 401'))).toBe(true);
    expect(lines.join('\n')).toContain('invalid key');
    expect(lines.join('\n')).not.toContain(KEY);
  });
});

describe('against the real sandbox', () => {
  let sandbox: TestSandbox;
  const example = JSON.parse(readFileSync(new URL('../../examples/approve.json', import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  const sandboxClient = (apiKey = DEMO_KEY) => makeClient(sandbox.url, { apiKey }).client;

  it('submits an event and reads it back', async () => {
    const client = sandboxClient();
    const submitted = await client.submitEvent({ ...example, id: 'api-test-1' });
    expect(submitted.status).toBe(201);
    expect(submitted.requestId).toBeTruthy();
    const read = await client.getEvent('api-test-1');
    expect(read).toMatchObject({ status: 200, body: { id: 'api-test-1' } });
  });

  it('an unknown event: exit 4, with the service request id', async () => {
    const error = (await rejection(sandboxClient().getEvent('api-test-missing'))) as ApiError;
    expect(error).toMatchObject({ status: 404, exitCode: 4 });
    expect(error.requestId).toBeTruthy();
    expect(error.message).toContain(error.requestId);
  });

  it('a wrong key: exit 3', async () => {
    const error = await rejection(sandboxClient('not-a-real-key').getEvent('api-test-1'));
    expect(error).toMatchObject({ status: 401, exitCode: 3 });
  });

  it('an invalid payload: exit 5, naming the fields', async () => {
    const { amount: _amount, ...withoutAmount } = example;
    const error = await rejection(
      sandboxClient().submitEvent({ ...withoutAmount, id: 'api-test-2', userIp: 'not-an-ip' }),
    );
    expect(error).toMatchObject({ status: 422, exitCode: 5 });
    expect(error.message).toContain('amount:REQUIRED');
    expect(error.message).toContain('userIp:INVALID_FORMAT');
  });

  it.each(['.', '..'])('the event id %j round-trips', async (id) => {
    const client = sandboxClient();
    await client.submitEvent({ ...example, id });
    await expect(client.getEvent(id)).resolves.toMatchObject({ status: 200, body: { id } });
    await expect(client.getRiskAssessment(id)).resolves.toMatchObject({ status: 200 });
  });
});

describe('proxies', () => {
  it('sends requests through HTTP_PROXY, and straight to hosts in NO_PROXY', async () => {
    const proxy = await fake();
    proxy.script(json(404, { requestId: 'via-proxy', errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] }));
    const { client } = makeClient('http://fraud.invalid:8080', { env: { HTTP_PROXY: proxy.url }, insecureHttp: true });
    const error = (await rejection(client.getEvent('evt-1'))) as ApiError;
    expect(error.requestId).toBe('via-proxy');
    // A proxy receives the absolute URL of the service.
    expect(proxy.requests[0]!.url).toBe('http://fraud.invalid:8080/event/evt-1');

    const direct = await fake();
    direct.script(json(404, { requestId: 'direct', errorType: 'NOT_FOUND', errorCodes: [] }));
    const bypass = makeClient(direct.url, { env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } });
    expect(((await rejection(bypass.client.getEvent('evt-2'))) as ApiError).requestId).toBe('direct');
    expect(proxy.requests).toHaveLength(1);
  });
});

describe('connection failures', () => {
  it('a host that does not resolve: NetworkError dns, exit 6, not retried as if it might have been sent', async () => {
    const { client } = makeClient('https://no-such-host.invalid', { retry: { maxRetries: 0 } });
    const error = (await rejection(client.getEvent('evt-1'))) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.failure).toBe('dns');
    expect(error.exitCode).toBe(6);
    expect(error.message).toBe('cannot find host no-such-host.invalid (DNS lookup failed)');
    expect(error.maybeProcessed).toBe(false);
  });

  it('TLS to a server that does not speak it: NetworkError tls, exit 1 (waiting does not help), with a hint about the scheme', async () => {
    const server = await fake();
    const { client } = makeClient(server.url.replace('http:', 'https:'), { retry: { maxRetries: 0 } });
    const error = (await rejection(client.getEvent('evt-1'))) as NetworkError;
    expect(error.failure).toBe('tls');
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/^no TLS connection to 127\.0\.0\.1:\d+ \(.+\): nothing was sent$/);
    expect(error.hint).toContain('URL scheme');
    expect(server.requests).toHaveLength(0);
  });
});

describe('plain http:// to a host that is not this machine', () => {
  it('is refused before anything is sent (exit 2), saying why and how to allow it', async () => {
    const proxy = await fake();
    const make = () => makeClient('http://fraud.example.com', { env: { HTTP_PROXY: proxy.url }, profile: 'prod' });
    expect(make).toThrow(UsageError);
    try {
      make();
    } catch (error) {
      expect(error).toMatchObject({ exitCode: 2 });
      expect((error as UsageError).message).toBe(
        'refusing to send the API key in clear text to fraud.example.com: the URL is http://, and that host is not this machine',
      );
      expect((error as UsageError).hint).toContain('--insecure-http');
      expect((error as UsageError).hint).toContain('config set insecure-http true --profile prod');
    }
    expect(proxy.requests).toHaveLength(0);
  });

  it('is allowed with insecureHttp, and to loopback addresses always', () => {
    expect(() => makeClient('http://fraud.example.com', { insecureHttp: true })).not.toThrow();
    expect(() => makeClient('https://fraud.example.com')).not.toThrow();
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', 'LOCALHOST'])
      expect(() => makeClient(`http://${host}:8080`)).not.toThrow();
  });

  it('knows loopback hosts from look-alikes', () => {
    for (const host of ['localhost', '127.0.0.1', '127.255.0.9', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of [
      'localhost.example.com',
      '128.0.0.1',
      '10.0.0.1',
      '127.0.0.1.nip.io',
      'example.com',
      '[::2]',
      '0.0.0.0',
    ])
      expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('an event id that is not well-formed Unicode', () => {
  it('cannot name a resource: a usage error (exit 2), nothing sent', async () => {
    const server = await fake();
    const { client } = makeClient(server.url);
    for (const call of [
      () => client.getEvent('a\ud800b'),
      () => client.getRiskAssessment('\udc00'),
      () => client.changeState('x\ud800', { state: 'APPROVED' }),
    ]) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toMatch(/^the event id "[^"]*\\ud[89a-f][0-9a-f]{2}[^"]*" is not valid Unicode text/);
      expect(error.message).not.toMatch(TERMINAL_CONTROLS);
    }
    expect(server.requests).toHaveLength(0);
  });
});
