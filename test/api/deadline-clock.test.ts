import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';
import { clockStepEnv } from '../support/clock-step.js';
import { tempDir } from '../support/sandbox.js';
import { hang, json, startFakeServer, type FakeServer } from '../support/fake-server.js';

/*
 * Deadlines and waits follow a monotonic clock, not the wall clock. The
 * machine's clock cannot be stepped safely in a test, so the fraudctl process gets a Date.now()
 * that jumps an hour back or forward after its first reading (support/clock-step.mjs), while a
 * scripted server makes it wait out a Retry-After: the command must still end within its
 * --timeout and say what happened.
 */

const tmp = tempDir('fraudctl-clock-');
afterAll(() => tmp.remove());
const HOUR = 3_600_000;
const OVERLOADED = { requestId: 'r-503', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] };

let server: FakeServer;
afterEach(() => server.close());
const env = (stepMs: number) =>
  cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: join(tmp.dir, 'config'),
    FRAUDCTL_BASE_URL: server.url,
    FRAUDCTL_API_KEY: 'k-test-0123456789',
    ...clockStepEnv(stepMs),
  });

describe('a wall clock stepped during a retry wait', () => {
  it('back an hour: --timeout 3 still ends the call after 3 s, as a timeout (exit 6)', async () => {
    server = await startFakeServer();
    // A 503 to wait out, then a service that never answers: only the deadline can end the call.
    server.script(json(503, OVERLOADED, { 'retry-after': '1' }), hang);
    const started = performance.now();
    const result = await runCli(['show', 'evt-1', '--timeout', '3'], { env: env(-HOUR), timeoutMs: 20_000 });
    const elapsed = performance.now() - started;
    expect(result.signal, 'still running after 20 s: the deadline followed the wall clock').toBeNull();
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(
      /^error: no complete answer from http:\/\/127\.0\.0\.1:\d+ within 3 s while fetching event "evt-1"$/m,
    );
    expect(server.requests).toHaveLength(2);
    // 3 s of deadline, plus the process's start and end on a busy machine.
    expect(elapsed).toBeLessThan(10_000);
  }, 30_000);

  it('forward an hour: the Retry-After is waited out and the event screened; no timeout, no "may have been stored"', async () => {
    server = await startFakeServer();
    server.script(
      json(503, OVERLOADED, { 'retry-after': '1' }),
      json(201, {
        id: 'evt-2',
        actionType: 'APPROVE',
        totalRiskScore: 3,
        state: 'APPROVED',
        ruleMatches: [],
        listMatches: [],
      }),
    );
    const file = join(tmp.dir, 'event.json');
    writeFileSync(file, JSON.stringify({ id: 'evt-2', amount: 10 }));
    const result = await runCli(['submit', file, '--timeout', '10', '--json'], { env: env(HOUR), timeoutMs: 20_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 'evt-2', actionType: 'APPROVE' });
    expect(result.stderr).not.toMatch(/may have been stored|no answer/);
    expect(server.requests).toHaveLength(2);
  }, 30_000);
});
