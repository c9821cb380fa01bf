import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { batchWorkspace, byLine, makeEvent, makeLines, readResults } from '../support/batch-events.js';
import { runCli } from '../support/cli.js';
import { parseTimeoutSeconds } from '../../src/profiles/value-rules.js';
import { startPlainEventServer, type PlainServer } from '../support/plain-event-server.js';
import { json, startFakeServer, type FakeServer } from '../support/fake-server.js';

/*
 * What --timeout covers, and a Retry-After longer than it: the service
 * answered, so the words are its answer and how long it asked to wait, never "no answer"; a batch
 * line is never sent again before the wait it was asked for is over. And a batch's own pace
 * (--rate) is the batch's queue, not a line's --timeout.
 */

const { path, writeInput, envFor } = batchWorkspace('fraudctl-waits-');

const OVERLOADED = { requestId: 'r-503', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] };

describe('one event, and a Retry-After longer than --timeout', () => {
  let server: FakeServer;
  afterEach(() => server.close());

  it.each([
    ['submit', (file: string) => ['submit', file], 'screening the event'],
    ['show', () => ['show', 'wait-1'], 'fetching event "wait-1"'],
  ])('%s: the 503 and the wait asked for, in one line and a hint, exit 6; asked once', async (_name, args, what) => {
    server = await startFakeServer();
    server.script(
      json(503, OVERLOADED, { 'retry-after': '40', 'x-request-id': 'r-503' }),
      json(201, { id: 'wait-1', actionType: 'APPROVE', totalRiskScore: 1 }),
    );
    const file = path('event.json');
    writeFileSync(file, JSON.stringify(makeEvent('wait', 1)));
    const result = await runCli([...args(file), '--timeout', '5'], { env: envFor(server.url, 'k-test-0123456789') });
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toBe(
      `error: the service is unavailable while ${what} (503 SERVICE_UNAVAILABLE: OVERLOADED, request r-503), and asked to wait 40 s before another try: longer than --timeout (5 s) allows\n` +
        'try again in 40 s, or allow for the wait with --timeout 45\n',
    );
    expect(server.requests).toHaveLength(1);
  });
});

describe('a Retry-After of more than a day', () => {
  let server: FakeServer;
  afterEach(() => server.close());

  it('99999999999999999999 s: "more than a day", and no --timeout that --timeout would refuse', async () => {
    server = await startFakeServer();
    server.script(json(503, OVERLOADED, { 'retry-after': '99999999999999999999', 'x-request-id': 'r-503' }));
    const result = await runCli(['show', 'wait-1', '--timeout', '5'], { env: envFor(server.url, 'k-test-0123456789') });
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toBe(
      'error: the service is unavailable while fetching event "wait-1" (503 SERVICE_UNAVAILABLE: OVERLOADED, request r-503), ' +
        'and asked to wait more than a day before another try: longer than --timeout allows (at most 86400 s)\n' +
        'try again in a day or more; a wait that long may be a mistake of the service, worth asking its operators about\n',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a wait just short of a day: the --timeout offered is one --timeout takes, and then waits for it', async () => {
    server = await startFakeServer();
    server.script(json(503, OVERLOADED, { 'retry-after': '86390', 'x-request-id': 'r-503' }));
    const result = await runCli(['show', 'wait-1', '--timeout', '5'], { env: envFor(server.url, 'k-test-0123456789') });
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/\ntry again in 86390 s, or allow for the wait with --timeout 86395\n$/);
    // The hint's --timeout is one the option takes (run, it would wait the day out).
    expect(parseTimeoutSeconds('86395').ok).toBe(true);
  });
});

describe('a batch line asked to wait', () => {
  let server: PlainServer;
  afterEach(() => server.close());

  it('longer than --timeout: the line is FAILED with the 503, not sent again (no re-POST, no check), the others decided', async () => {
    server = await startPlainEventServer({ throttleFirstPost: { 'long-3': 40 } });
    const out = path('results.jsonl');
    const result = await runCli(
      ['submit', writeInput(makeLines('long', 6)), '--out', out, '--timeout', '5', '--concurrency', '2'],
      { env: envFor(server.url, 'plain-key'), timeoutMs: 30_000 },
    );
    expect(result.code, result.stderr).toBe(1);
    const { lines } = byLine(readResults(out));
    expect(lines.get(3)).toMatchObject({
      id: 'long-3',
      outcome: 'FAILED',
      status: 503,
      errorType: 'SERVICE_UNAVAILABLE',
      errorCodes: ['OVERLOADED'],
      attempts: 1,
    });
    expect([1, 2, 4, 5, 6].map((l) => lines.get(l)?.outcome)).toEqual([
      'DECIDED',
      'DECIDED',
      'DECIDED',
      'DECIDED',
      'DECIDED',
    ]);
    expect(result.stderr).toMatch(
      /^ {2}line 3: the service is unavailable while screening the event \(503 SERVICE_UNAVAILABLE: OVERLOADED, request plain-\d+\), and asked to wait 40 s before another try: longer than --timeout \(5 s\) allows$/m,
    );
    expect(result.stderr).not.toMatch(/no answer|TIMEOUT/);
    // The service heard of long-3 once: the 503. Nothing after it within the 40 s (the run is over long before).
    expect(server.answers.filter((a) => a.id === 'long-3').map((a) => `${a.method} ${a.status}`)).toEqual(['POST 503']);
    expect(server.stored.has('long-3')).toBe(false);
  }, 40_000);

  it("within --timeout: sent again only once the Retry-After has passed (the server's clock), and decided once", async () => {
    server = await startPlainEventServer({ throttleFirstPost: { 'short-2': 2 } });
    const out = path('results.jsonl');
    const result = await runCli(['submit', writeInput(makeLines('short', 4)), '--out', out, '--timeout', '10'], {
      env: envFor(server.url, 'plain-key'),
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const posts = server.answers.filter((a) => a.id === 'short-2');
    expect(posts.map((a) => `${a.method} ${a.status}`)).toEqual(['POST 503', 'POST 201']);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(2_000);
    expect(byLine(readResults(out)).lines.get(2)).toMatchObject({ outcome: 'DECIDED', attempts: 2 });
    expect(server.stored.get('short-2')).toBe(1);
  }, 40_000);
});

describe("the batch's pace", () => {
  let server: PlainServer;
  afterEach(() => server.close());

  it('--rate holding lines back is not their --timeout: every line is sent once and decided, none taken for timed out and checked', async () => {
    server = await startPlainEventServer();
    const out = path('results.jsonl');
    // 8 lines taken at once, 4 a second: the last waits about 1.75 s for its turn, past --timeout 1.
    const result = await runCli(
      [
        'submit',
        writeInput(makeLines('paced', 8)),
        '--out',
        out,
        '--rate',
        '4',
        '--concurrency',
        '8',
        '--timeout',
        '1',
      ],
      { env: envFor(server.url, 'plain-key'), timeoutMs: 30_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readResults(out).map((r) => `${r.outcome} ${r.attempts}`)).toEqual(Array(8).fill('DECIDED 1'));
    // Every POST once; the one GET is the batch's read of the base currency, paced like the rest.
    expect(server.answers.map((a) => `${a.method} ${a.status}`)).toEqual([...Array(8).fill('POST 201'), 'GET 200']);
  }, 40_000);
});
