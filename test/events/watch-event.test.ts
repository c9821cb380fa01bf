import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../support/fake-server.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { cliEnv, runCli, startCli, type RunningCli } from '../support/cli.js';
import { startOnTerminal } from '../support/pty.js';
import { inReview, postInReview } from '../support/event-fixtures.js';
import { inProcess } from '../support/in-process.js';
import { watchEvent, type WatchOptions } from '../../src/events/watch-event.js';
import type { CliError } from '../../src/errors/cli-error.js';

/*
 * `fraudctl show ID --watch`, as processes: against the sandbox with a second fraudctl changing
 * the event; against a scripted server for what the sandbox cannot do on demand (throttling with
 * Retry-After, a dropped connection, a state this build does not know).
 */

const cli = useSandboxForCli();
let n = 0;
const reviewEvent = () => postInReview(cli.sb, inReview(`watch-${++n}`));
const STAMP = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
const watch = (args: string[], env = cli.env()): RunningCli =>
  startCli(['show', ...args, '--watch', '--interval', '1'], { env });
const lines = (text: string) => text.trimEnd().split('\n');

describe('fraudctl show --watch against the sandbox', () => {
  it('prints the summary, then a line for each change another process makes, and stops at a final state (exit 0)', async () => {
    const id = await reviewEvent();
    const run = watch([id]);
    await expect
      .poll(() => run.output().stdout, { timeout: 10_000 })
      .toMatch(new RegExp(`${STAMP}  state PENDING_REVIEW · decision REVIEW · comments –\\n$`));
    expect(run.output().stdout).toMatch(/│ state\s+│ PENDING_REVIEW/);
    // stderr is another pipe: what the process wrote there first may reach this process after stdout's summary.
    await expect
      .poll(() => run.output().stderr, { timeout: 10_000 })
      .toContain(`watching ${id} every 1 s until APPROVED, DECLINED or FRAUD_CONFIRMED`);

    expect((await cli.run(['set-state', id, '--state', 'IN_REVIEW', '--comments', 'called the customer'])).code).toBe(
      0,
    );
    await expect
      .poll(() => run.output().stdout, { timeout: 10_000 })
      .toMatch(new RegExp(`${STAMP}  state PENDING_REVIEW → IN_REVIEW · comments "called the customer"\\n$`));
    // It replaces the comment the event has: said so (set-state refuses otherwise, off a terminal).
    expect((await cli.run(['set-state', id, '--comments', 'waiting for documents', '--replace-comment'])).code).toBe(0);
    await expect
      .poll(() => run.output().stdout, { timeout: 10_000 })
      .toMatch(new RegExp(`${STAMP}  comments "waiting for documents"\\n$`));
    // IN_REVIEW is held: set-state changes it off a terminal only when told to.
    expect((await cli.run(['set-state', id, '--state', 'DECLINED', '--include-claimed'])).code).toBe(0);

    const result = await run.done;
    expect(result.code).toBe(0);
    expect(
      lines(result.stdout)
        .slice(-4)
        .map((l) => l.replace(new RegExp(`^${STAMP}  `), '')),
    ).toEqual([
      'state PENDING_REVIEW · decision REVIEW · comments –',
      'state PENDING_REVIEW → IN_REVIEW · comments "called the customer"',
      'comments "waiting for documents"',
      'state IN_REVIEW → DECLINED',
    ]);
    expect(result.stderr).toContain(`${id} reached DECLINED, a final state`);
  });

  it('--until stops at the state asked for', async () => {
    const id = await reviewEvent();
    const run = watch([id, '--until', 'ESCALATED']);
    await expect.poll(() => run.output().stderr, { timeout: 10_000 }).toContain('until ESCALATED');
    expect((await cli.run(['set-state', id, '--state', 'IN_REVIEW'])).code).toBe(0);
    await expect.poll(() => run.output().stdout, { timeout: 10_000 }).toContain('state PENDING_REVIEW → IN_REVIEW');
    expect(run.child.exitCode).toBeNull();
    expect((await cli.run(['set-state', id, '--state', 'ESCALATED', '--include-claimed'])).code).toBe(0);
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(lines(result.stdout).at(-1)).toMatch(/state IN_REVIEW → ESCALATED$/);
    expect(result.stderr).toContain(`${id} reached ESCALATED`);
  });

  it('--until a state that can no longer come (the event reached FRAUD_CONFIRMED, which nothing follows): exit 1, saying so', async () => {
    const id = await reviewEvent();
    expect((await cli.run(['set-state', id, '--state', 'DECLINED'])).code).toBe(0);
    const run = watch([id, '--until', 'approved']);
    await expect.poll(() => run.output().stderr, { timeout: 10_000 }).toContain('until APPROVED');
    expect((await cli.run(['set-state', id, '--state', 'FRAUD_CONFIRMED'])).code).toBe(0);
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^error: ${id} reached FRAUD_CONFIRMED, which no state follows: APPROVED can no longer come$`, 'm'),
    );
  });

  it('an event already in a final state: the summary, and done (exit 0)', async () => {
    expect(
      (await cli.sb.call('POST', '/event', { body: { id: 'watch-final', amount: 5, currency: 'EUR' } })).status,
    ).toBe(201);
    const result = await runCli(['show', 'watch-final', '--watch'], { env: cli.env() });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ state\s+│ APPROVED/);
    expect(result.stderr).toContain('watch-final reached APPROVED, a final state: nothing to watch');
  });

  it('--json: the summary as one JSON line at the start and at each change', async () => {
    const id = await reviewEvent();
    const run = watch([id, '--json']);
    await expect.poll(() => run.output().stdout, { timeout: 10_000 }).toContain('\n');
    expect((await cli.run(['set-state', id, '--state', 'APPROVED', '--comments', 'ok'])).code).toBe(0);
    const result = await run.done;
    expect(result.code).toBe(0);
    const bodies = lines(result.stdout).map((l) => JSON.parse(l) as { state: string; comments: string | null });
    expect(bodies.map((b) => [b.state, b.comments])).toEqual([
      ['PENDING_REVIEW', null],
      ['APPROVED', 'ok'],
    ]);
    expect(bodies[1]).toEqual((await cli.sb.call('GET', `/event/${id}`)).json);
  });

  it('Ctrl-C stops it: exit 130', async () => {
    const id = await reviewEvent();
    const run = watch([id]);
    await expect.poll(() => run.output().stderr, { timeout: 10_000 }).toContain('watching');
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(new RegExp(`^error: stopped watching ${id}$`, 'm'));
  });

  it('a hang-up (SIGHUP: the terminal closed) stops it as Ctrl-C does, then the process ends by SIGHUP (129 to a shell)', async () => {
    const id = await reviewEvent();
    const run = watch([id]);
    await expect.poll(() => run.output().stderr, { timeout: 10_000 }).toContain('watching');
    run.child.kill('SIGHUP');
    const result = await run.done;
    expect(result.signal).toBe('SIGHUP');
    expect(result.stderr).toMatch(new RegExp(`^error: stopped watching ${id}$`, 'm'));
  });

  it('an id the service does not know ends it at once, as show does (exit 4)', async () => {
    const result = await runCli(['show', 'watch-nope', '--watch'], { env: cli.env() });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^error: no event "watch-nope"/m);
  });
});

describe('fraudctl show --watch against a scripted server', () => {
  let server: FakeServer;
  /** The next summary answers, one per GET /event/{id}; the last one repeats. */
  let steps: Array<(res: ServerResponse) => void>;
  let summaryAt: number[];
  beforeAll(async () => {
    server = await startFakeServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    summaryAt = [];
    server.script((res: ServerResponse, _req: IncomingMessage, recorded) => {
      if (recorded.url.endsWith('/risk-assessment'))
        return send(res, 200, {
          eventId: 'e-1',
          actionType: 'REVIEW',
          totalRiskScore: 50,
          alerts: [],
          listMatches: [],
        });
      summaryAt.push(Date.now());
      (steps.length > 1 ? steps.shift()! : steps[0]!)(res);
    });
  });
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const state =
    (s: string, comments: string | null = null) =>
    (res: ServerResponse) =>
      send(res, 200, { id: 'e-1', totalScore: 50, state: s, comments, allowlistMatch: false, denylistMatch: false });
  const env = () =>
    cliEnv({
      HOME: cli.dir,
      XDG_CONFIG_HOME: `${cli.dir}/config`,
      FRAUDCTL_BASE_URL: server.url,
      FRAUDCTL_API_KEY: 'k-test-0123456789',
    });

  it('a 503 the client cannot wait out within --timeout: a line on stderr, and the next check no sooner than Retry-After', async () => {
    const unavailable = (res: ServerResponse) =>
      send(
        res,
        503,
        { requestId: 'r-503', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] },
        { 'retry-after': '3' },
      );
    steps = [state('PENDING_REVIEW'), unavailable, state('APPROVED')];
    const result = await runCli(['show', 'e-1', '--watch', '--interval', '1', '--timeout', '1'], {
      env: env(),
      timeoutMs: 20_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `^${STAMP}  check failed: the service is unavailable while fetching event "e-1" \\(503 SERVICE_UNAVAILABLE: OVERLOADED, request r-503\\), and asked to wait 3 s before another try: longer than --timeout \\(1 s\\) allows; next check in 3 s$`,
        'm',
      ),
    );
    expect(summaryAt).toHaveLength(3);
    expect(summaryAt[2]! - summaryAt[1]!).toBeGreaterThanOrEqual(2_900);
    expect(lines(result.stdout).at(-1)).toMatch(/state PENDING_REVIEW → APPROVED$/);
  });

  it('on a terminal, a service down at the start is said at once with when the next check is, and the summary comes when it answers; off one it ends as show does', async () => {
    const unavailable = (res: ServerResponse) =>
      send(res, 503, { requestId: 'r-down', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] });
    steps = [unavailable, state('PENDING_REVIEW'), state('APPROVED')];
    const pty = await startOnTerminal(['show', 'e-1', '--watch', '--interval', '1'], {
      env: env(),
      width: 300,
      height: 120,
    });
    try {
      // The first answer is a 503: said at once (no retries of the client's first), not after a blank wait.
      await pty.waitFor(
        /check failed: the service is unavailable while fetching event "e-1" \(503 SERVICE_UNAVAILABLE: OVERLOADED, request r-down\); next check in 2 s/,
      );
      expect(summaryAt).toHaveLength(1);
      await pty.waitFor(/reached APPROVED/);
      const { code, screen } = await pty.exited();
      expect(code, screen).toBe(0);
      expect(screen).toMatch(/PENDING_REVIEW/);
    } finally {
      await pty.kill();
    }
    // Off a terminal the first check is show's: its failure (after the client's retries) is the exit code.
    steps = [unavailable];
    const script = await runCli(['show', 'e-1', '--watch', '--interval', '1', '--timeout', '2'], {
      env: env(),
      timeoutMs: 20_000,
    });
    expect(script.code).toBe(6);
  });

  it('a dropped connection is a line on stderr, not an exit; the watch goes on', async () => {
    const drop = (res: ServerResponse) => res.socket?.destroy();
    steps = [state('PENDING_REVIEW'), drop, drop, drop, drop, state('DECLINED', 'chargeback')];
    const result = await runCli(['show', 'e-1', '--watch', '--interval', '1'], { env: env(), timeoutMs: 20_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `^${STAMP}  check failed: the connection to .* dropped while fetching event "e-1".*; next check in 2 s$`,
        'm',
      ),
    );
    expect(lines(result.stdout).at(-1)).toMatch(/state PENDING_REVIEW → DECLINED · comments "chargeback"$/);
  });

  it('a state this build does not know is a change worth showing, and ends the watch', async () => {
    steps = [state('PENDING_REVIEW'), state('ON_HOLD_BY_PARTNER\u001b[2J')];
    const result = await runCli(['show', 'e-1', '--watch', '--interval', '1'], { env: env() });
    expect(result.code).toBe(0);
    expect(lines(result.stdout).at(-1)).toMatch(/state PENDING_REVIEW → ON_HOLD_BY_PARTNER\\x1b\[2J$/);
    expect(result.stderr).toContain('e-1 is in ON_HOLD_BY_PARTNER\\x1b[2J, a state this build does not know');
  });

  it('--until matches states as set-state --state does: any case and separators', async () => {
    steps = [state('IN_REVIEW'), state('APPROVED')];
    const result = await runCli(['show', 'e-1', '--watch', '--interval', '1', '--until', 'approved'], {
      env: env(),
      timeoutMs: 10_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('watching e-1 every 1 s until APPROVED');
    expect(result.stderr).toContain('e-1 reached APPROVED');
    expect(result.stderr).not.toContain('not a state this build knows');
    expect(lines(result.stdout).at(-1)).toMatch(/state IN_REVIEW → APPROVED$/);
  });

  it('--until with a typo is a usage error with the nearest state (exit 2), and nothing is sent', async () => {
    steps = [state('PENDING_REVIEW')];
    const before = server.requests.length;
    const result = await runCli(['show', 'e-1', '--watch', '--until', 'aproved'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown state "aproved": did you mean APPROVED\?$/m);
    expect(result.stderr).toContain('to watch for a state this build does not know, add --force-state');
    expect(server.requests.length).toBe(before);
  });

  it('--until STATE --force-state watches for a state this build does not know, as typed, past the final ones', async () => {
    steps = [state('APPROVED'), state('ON_HOLD')];
    const result = await runCli(['show', 'e-1', '--watch', '--interval', '1', '--until', 'ON_HOLD', '--force-state'], {
      env: env(),
      timeoutMs: 10_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stdout).at(-1)).toMatch(/state APPROVED → ON_HOLD$/);
    expect(result.stderr).toContain('e-1 reached ON_HOLD');
  });

  it('the event gone (404) ends it with exit 4', async () => {
    steps = [
      state('PENDING_REVIEW'),
      (res) => send(res, 404, { requestId: 'r', errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] }),
    ];
    const result = await runCli(['show', 'e-1', '--watch', '--interval', '1'], { env: env() });
    expect(result.code).toBe(4);
  });
});

/** `show --watch` in-process against the sandbox: what it wrote so far, and how it ended. */
function watchInProcess(id: string, options: WatchOptions) {
  const { session, written } = inProcess(cli.sb.url);
  const done = watchEvent(session, id, options).then(
    () => ({ code: 0, message: '' }),
    (error: CliError) => ({ code: error.exitCode, message: error.message }),
  );
  return { written, done: done.finally(() => session.close()) };
}

describe('show --watch --until a state the event can no longer reach (in-process)', () => {
  const POLL = { timeout: 10_000 };
  it('an APPROVED event and --until IN_REVIEW: the summary, then exit 1 at once, saying what can follow', async () => {
    const id = await reviewEvent();
    expect((await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state: 'APPROVED' } })).status).toBe(200);
    const watch = watchInProcess(id, { intervalSeconds: 3600, until: 'IN_REVIEW' });
    // An interval of an hour: the answer comes from the first check, not from waiting.
    const message = `${id} is APPROVED, after which only APPROVED, DECLINED or FRAUD_CONFIRMED can come: IN_REVIEW can no longer come`;
    expect(await watch.done).toEqual({ code: 1, message });
    expect(watch.written.stdout).toMatch(/│ state\s+│ APPROVED/);
    expect(watch.written.stderr).not.toContain('watching');
  });

  it('an event that moves, while watched, to a state that cannot lead to --until: exit 1 at that check', async () => {
    const id = await reviewEvent();
    const watch = watchInProcess(id, { intervalSeconds: 1, until: 'IN_REVIEW' });
    await expect.poll(() => watch.written.stderr, POLL).toContain(`watching ${id} every 1 s until IN_REVIEW`);
    expect((await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state: 'ESCALATED' } })).status).toBe(200);
    const message = `${id} reached ESCALATED, after which only APPROVED, DECLINED or FRAUD_CONFIRMED can come: IN_REVIEW can no longer come`;
    expect(await watch.done).toEqual({ code: 1, message });
    expect(watch.written.stdout).toMatch(/state PENDING_REVIEW → ESCALATED\n$/);
  });

  it('a state that can still come keeps it going; one this build does not know (--force-state) is not ruled out', async () => {
    const id = await reviewEvent();
    expect((await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state: 'APPROVED' } })).status).toBe(200);
    const watch = watchInProcess(id, { intervalSeconds: 1, until: 'FRAUD_CONFIRMED' });
    await expect.poll(() => watch.written.stderr, POLL).toContain('until FRAUD_CONFIRMED');
    const forced = watchInProcess(id, { intervalSeconds: 1, until: 'ON_HOLD' });
    await expect.poll(() => forced.written.stderr, POLL).toContain('ON_HOLD is not a state this build knows');
    expect((await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state: 'FRAUD_CONFIRMED' } })).status).toBe(200);
    expect(await watch.done).toEqual({ code: 0, message: '' });
    // Nothing follows FRAUD_CONFIRMED, not even a state this build does not know.
    const message = `${id} reached FRAUD_CONFIRMED, which no state follows: ON_HOLD can no longer come`;
    expect(await forced.done).toEqual({ code: 1, message });
  });
});
