import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../support/fake-server.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { startCli, type RunningCli } from '../support/cli.js';
import { inReview, postInReview } from '../support/event-fixtures.js';
import { Command } from 'commander';
import { printingDeps, quietContext, ran, sessionFor, type Ran } from '../support/room-deps.js';
import { run } from '../../src/commands/show/run.js';
import type { ShowDeps } from '../../src/commands/show/deps.js';
import { showCommand } from '../../src/commands/show/command.js';
import type { ShowOptions, ShowWatchOptions } from '../../src/commands/show/options.js';
import { describeNotOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * `fraudctl show ID --watch`, in-process through the room's run: against the sandbox, the event
 * changed between checks; against a scripted server for what the sandbox cannot do on demand
 * (throttling with Retry-After, a dropped connection, a state this build does not know). The
 * watch's waits go through a clock the test steps (steppedClock): a check happens when the test
 * ends the wait, and the waits asked for are kept, so nothing waits for a real interval.
 * Signals need a process: Ctrl-C and a hang-up are the built CLI's.
 */

const cli = useSandboxForCli();
let n = 0;
const reviewEvent = () => postInReview(cli.sb, inReview(`watch-${++n}`));
const STAMP = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
const lines = (text: string) => text.trimEnd().split('\n');
const setState = async (id: string, body: { state?: string; comments?: string }) =>
  expect((await cli.sb.call('PATCH', `/event/${id}/state`, { body })).status).toBe(200);

/**
 * The watch's clock, stepped by the test: a wait (the interval, a backoff) lasts until step()
 * ends it, and the clock's time moves on by it. `waits`: every wait asked for, in ms.
 */
function steppedClock(start = Date.parse('2026-12-04T12:00:00Z')) {
  let time = start;
  const waits: number[] = [];
  let wake: (() => void) | null = null;
  let sleepers: (() => void)[] = [];
  return {
    waits,
    now: () => time,
    sleep(ms: number, signal: AbortSignal): Promise<void> {
      waits.push(ms);
      return new Promise<void>((resolve) => {
        const end = () => {
          wake = null;
          resolve();
        };
        signal.addEventListener('abort', end, { once: true });
        wake = () => {
          time += ms;
          end();
        };
        for (const sleeper of sleepers.splice(0)) sleeper();
      });
    },
    /** Resolves once the watch waits for its next check. */
    asleep: (): Promise<void> => (wake ? Promise.resolve() : new Promise<void>((r) => void sleepers.push(r))),
    /** Ends the wait under way: the next check runs. */
    wake() {
      if (!wake) throw new Error('the watch is not waiting');
      wake();
    },
    reset() {
      sleepers = [];
    },
  };
}

/** `fraudctl ARGV` parsed by show's command, whose run is `work`. */
async function parsed(argv: string[], work: (options: ShowOptions) => Promise<void>): Promise<void> {
  const root = new Command('fraudctl').option('--json').option('--no-color').exitOverride();
  root.addCommand(showCommand(quietContext(), (_command, options) => work(options)).exitOverride());
  await root.parseAsync(argv, { from: 'user' });
}

interface Watching {
  written: { stdout: string; stderr: string };
  clock: ReturnType<typeof steppedClock>;
  /** How it ended: the exit code and what it wrote, main's `error:` line included. */
  done: Promise<Ran>;
  /** Resolves when the watch waits for its next check (its checks so far done), or has ended. */
  settled(): Promise<void>;
  /** Ends the wait: one more check, then settled. */
  step(): Promise<void>;
}

/**
 * `show ID --watch` through run, for the service at `url`, with the streams and clock the test
 * gives: the options given, or those the command makes of `argv` (fraudctl's, program.ts's
 * global flags before the command's), which it may refuse before the run.
 */
function watching(
  url: string,
  asked: (Partial<ShowWatchOptions> & { eventId: string }) | string[],
  how: { timeout?: number; terminal?: boolean } = {},
): Watching {
  const print = printingDeps(how.terminal ? { tty: true, columns: 300 } : {});
  const stderr = how.terminal ? { ...print.stderr, isTTY: true, columns: 300 } : print.stderr;
  const session = sessionFor(url, how.timeout !== undefined ? { timeout: how.timeout } : {});
  const clock = steppedClock();
  const deps: ShowDeps = {
    ...print,
    stderr,
    streams: session.context,
    // The client's waits between a call's attempts pass at once: its retries are as ever, without their jitter.
    client: (o) => session.client({ ...o, sleep: async () => {} }),
    waitForShutdown: () => new Promise(() => {}),
    clock,
  };
  const work = Array.isArray(asked)
    ? parsed(asked, (options) => run(options, deps))
    : run({ form: 'watch', intervalSeconds: 1, until: null, json: false, noColor: false, ...asked }, deps);
  const done = ran(work, print);
  const settled = () => Promise.race([clock.asleep(), done.then(() => {})]).finally(() => clock.reset());
  return {
    written: print.written,
    clock,
    done,
    settled,
    step: () => {
      clock.wake();
      return settled();
    },
  };
}

describe('fraudctl show --watch against the sandbox', () => {
  const watch = (options: Partial<ShowWatchOptions> & { eventId: string }) => watching(cli.sb.url, options);

  it('prints the summary, then a line for each change made elsewhere, and stops at a final state (exit 0)', async () => {
    const id = await reviewEvent();
    const run = watch({ eventId: id });
    await run.settled();
    expect(run.written.stdout).toMatch(new RegExp(`${STAMP}  state PENDING_REVIEW · decision REVIEW · comments –\\n$`));
    expect(run.written.stdout).toMatch(/│ state\s+│ PENDING_REVIEW/);
    expect(run.written.stderr).toContain(`watching ${id} every 1 s until APPROVED, DECLINED or FRAUD_CONFIRMED`);

    await setState(id, { state: 'IN_REVIEW', comments: 'called the customer' });
    await run.step();
    expect(run.written.stdout).toMatch(
      new RegExp(`${STAMP}  state PENDING_REVIEW → IN_REVIEW · comments "called the customer"\\n$`),
    );
    await setState(id, { comments: 'waiting for documents' });
    await run.step();
    expect(run.written.stdout).toMatch(new RegExp(`${STAMP}  comments "waiting for documents"\\n$`));
    // A check that finds nothing changed prints nothing.
    await run.step();
    expect(run.written.stdout).toMatch(/"waiting for documents"\n$/);
    await setState(id, { state: 'DECLINED' });
    await run.step();

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
    // Each line's time is the clock's at its check: one interval after the one before.
    expect(lines(result.stdout).at(-1)).toMatch(/^2026-12-04T12:00:04Z {2}/);
    expect(run.clock.waits).toEqual([1000, 1000, 1000, 1000]);
    expect(result.stderr).toContain(`${id} reached DECLINED, a final state`);
  });

  it('--until stops at the state asked for', async () => {
    const id = await reviewEvent();
    const run = watch({ eventId: id, until: 'ESCALATED' });
    await run.settled();
    expect(run.written.stderr).toContain('until ESCALATED');
    await setState(id, { state: 'IN_REVIEW' });
    await run.step();
    expect(run.written.stdout).toContain('state PENDING_REVIEW → IN_REVIEW');
    // Still watching: the next check is waited for.
    expect(run.clock.waits).toHaveLength(2);
    await setState(id, { state: 'ESCALATED' });
    await run.step();
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(lines(result.stdout).at(-1)).toMatch(/state IN_REVIEW → ESCALATED$/);
    expect(result.stderr).toContain(`${id} reached ESCALATED`);
  });

  it('--until a state that can no longer come (the event reached FRAUD_CONFIRMED, which nothing follows): exit 1, saying so', async () => {
    const id = await reviewEvent();
    await setState(id, { state: 'DECLINED' });
    const run = watch({ eventId: id, until: 'APPROVED' });
    await run.settled();
    expect(run.written.stderr).toContain('until APPROVED');
    await setState(id, { state: 'FRAUD_CONFIRMED' });
    await run.step();
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
    const run = watch({ eventId: 'watch-final', intervalSeconds: 5 });
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ state\s+│ APPROVED/);
    expect(result.stderr).toContain('watch-final reached APPROVED, a final state: nothing to watch');
    expect(run.clock.waits).toEqual([]);
  });

  it('--json: the summary as one JSON line at the start and at each change', async () => {
    const id = await reviewEvent();
    const run = watch({ eventId: id, json: true });
    await run.settled();
    expect(run.written.stdout).toContain('\n');
    await setState(id, { state: 'APPROVED', comments: 'ok' });
    await run.step();
    const result = await run.done;
    expect(result.code).toBe(0);
    const bodies = lines(result.stdout).map((l) => JSON.parse(l) as { state: string; comments: string | null });
    expect(bodies.map((b) => [b.state, b.comments])).toEqual([
      ['PENDING_REVIEW', null],
      ['APPROVED', 'ok'],
    ]);
    expect(bodies[1]).toEqual((await cli.sb.call('GET', `/event/${id}`)).json);
  });

  it('an id the service does not know ends it at once, as show does (exit 4)', async () => {
    const result = await watch({ eventId: 'watch-nope' }).done;
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^error: no event "watch-nope"/m);
  });
});

describeNotOnWindows(ON_WINDOWS.signal, 'fraudctl show --watch, signals (a process)', () => {
  const watch = (args: string[]): RunningCli =>
    startCli(['show', ...args, '--watch', '--interval', '1'], { env: cli.env() });

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
});

describe('fraudctl show --watch against a scripted server', () => {
  let server: FakeServer;
  /** The next summary answers, one per GET /event/{id}; the last one repeats. */
  let steps: Array<(res: ServerResponse) => void>;
  /** How many summaries were asked for. */
  let summaries: number;
  beforeAll(async () => {
    server = await startFakeServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    summaries = 0;
    server.script((res: ServerResponse, _req: IncomingMessage, recorded) => {
      if (recorded.url.endsWith('/risk-assessment'))
        return send(res, 200, {
          eventId: 'e-1',
          actionType: 'REVIEW',
          totalRiskScore: 50,
          alerts: [],
          listMatches: [],
        });
      summaries++;
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
  const watch = (options: Partial<ShowWatchOptions> = {}, how: { timeout?: number; terminal?: boolean } = {}) =>
    watching(server.url, { eventId: 'e-1', ...options }, how);
  /** Steps the watch, check after check, until it ends. */
  const toTheEnd = async (run: Watching) => {
    let ended = false;
    void run.done.then(() => (ended = true));
    await run.settled();
    while (!ended) await run.step();
    return run.done;
  };

  it('a 503 the client cannot wait out within --timeout: a line on stderr, and the next check no sooner than Retry-After', async () => {
    const unavailable = (res: ServerResponse) =>
      send(
        res,
        503,
        { requestId: 'r-503', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] },
        { 'retry-after': '3' },
      );
    steps = [state('PENDING_REVIEW'), unavailable, state('APPROVED')];
    const run = watch({}, { timeout: 1 });
    const result = await toTheEnd(run);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `^${STAMP}  check failed: the service is unavailable while fetching event "e-1" \\(503 SERVICE_UNAVAILABLE: OVERLOADED, request r-503\\), and asked to wait 3 s before another try: longer than --timeout \\(1 s\\) allows; next check in 3 s$`,
        'm',
      ),
    );
    expect(summaries).toBe(3);
    // The wait after the 503 is Retry-After's (longer than the interval doubled).
    expect(run.clock.waits).toEqual([1000, 3000]);
    expect(lines(result.stdout).at(-1)).toMatch(/state PENDING_REVIEW → APPROVED$/);
  });

  it('on a terminal, a service down at the start is said at once with when the next check is, and the summary comes when it answers; off one it ends as show does', async () => {
    const unavailable = (res: ServerResponse) =>
      send(res, 503, { requestId: 'r-down', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] });
    steps = [unavailable, state('PENDING_REVIEW'), state('APPROVED')];
    const run = watch({}, { terminal: true });
    await run.settled();
    // The first answer is a 503: said at once (no retries of the client's first), not after a blank wait.
    expect(run.written.stderr).toMatch(
      /check failed: the service is unavailable while fetching event "e-1" \(503 SERVICE_UNAVAILABLE: OVERLOADED, request r-down\); next check in 2 s/,
    );
    expect(summaries).toBe(1);
    expect(run.written.stdout).toBe('');
    const result = await toTheEnd(run);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/reached APPROVED/);
    expect(result.stdout).toMatch(/PENDING_REVIEW/);
    // Off a terminal the first check is show's: its failure (after the client's retries) is the exit code.
    steps = [unavailable];
    const script = await watch({}, { timeout: 2 }).done;
    expect(script.code).toBe(6);
  });

  it('a dropped connection is a line on stderr, not an exit; the watch goes on', async () => {
    const drop = (res: ServerResponse) => res.socket?.destroy();
    steps = [state('PENDING_REVIEW'), drop, drop, drop, drop, state('DECLINED', 'chargeback')];
    const run = watch();
    const result = await toTheEnd(run);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `^${STAMP}  check failed: the connection to .* dropped while fetching event "e-1".*; next check in 2 s$`,
        'm',
      ),
    );
    expect(run.clock.waits).toEqual([1000, 2000]);
    expect(lines(result.stdout).at(-1)).toMatch(/state PENDING_REVIEW → DECLINED · comments "chargeback"$/);
  });

  it('a state this build does not know is a change worth showing, and ends the watch', async () => {
    steps = [state('PENDING_REVIEW'), state('ON_HOLD_BY_PARTNER\u001b[2J')];
    const result = await toTheEnd(watch());
    expect(result.code).toBe(0);
    expect(lines(result.stdout).at(-1)).toMatch(/state PENDING_REVIEW → ON_HOLD_BY_PARTNER\\x1b\[2J$/);
    expect(result.stderr).toContain('e-1 is in ON_HOLD_BY_PARTNER\\x1b[2J, a state this build does not know');
  });

  it('--until matches states as set-state --state does: any case and separators', async () => {
    steps = [state('IN_REVIEW'), state('APPROVED')];
    const result = await toTheEnd(
      watching(server.url, ['show', 'e-1', '--watch', '--interval', '1', '--until', 'approved']),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('watching e-1 every 1 s until APPROVED');
    expect(result.stderr).toContain('e-1 reached APPROVED');
    expect(result.stderr).not.toContain('not a state this build knows');
    expect(lines(result.stdout).at(-1)).toMatch(/state IN_REVIEW → APPROVED$/);
  });

  it('--until with a typo is a usage error with the nearest state (exit 2), and nothing is sent', async () => {
    steps = [state('PENDING_REVIEW')];
    const before = server.requests.length;
    const result = await watching(server.url, ['show', 'e-1', '--watch', '--until', 'aproved']).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown state "aproved": did you mean APPROVED\?$/m);
    expect(result.stderr).toContain('to watch for a state this build does not know, add --force-state');
    expect(server.requests.length).toBe(before);
  });

  it('--until STATE --force-state watches for a state this build does not know, as typed, past the final ones', async () => {
    steps = [state('APPROVED'), state('ON_HOLD')];
    const result = await toTheEnd(watch({ until: 'ON_HOLD' }));
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stdout).at(-1)).toMatch(/state APPROVED → ON_HOLD$/);
    expect(result.stderr).toContain('e-1 reached ON_HOLD');
  });

  it('the event gone (404) ends it with exit 4', async () => {
    steps = [
      state('PENDING_REVIEW'),
      (res) => send(res, 404, { requestId: 'r', errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] }),
    ];
    const result = await toTheEnd(watch());
    expect(result.code).toBe(4);
  });
});

describe('show --watch --until a state the event can no longer reach', () => {
  const watch = (options: Partial<ShowWatchOptions> & { eventId: string }) => watching(cli.sb.url, options);

  it('an APPROVED event and --until IN_REVIEW: the summary, then exit 1 at once, saying what can follow', async () => {
    const id = await reviewEvent();
    await setState(id, { state: 'APPROVED' });
    const run = watch({ eventId: id, intervalSeconds: 3600, until: 'IN_REVIEW' });
    // The answer comes from the first check, not from waiting.
    const message = `${id} is APPROVED, after which only APPROVED, DECLINED or FRAUD_CONFIRMED can come: IN_REVIEW can no longer come`;
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error: ${message}\n`);
    expect(run.clock.waits).toEqual([]);
    expect(result.stdout).toMatch(/│ state\s+│ APPROVED/);
  });

  it('an event that moves, while watched, to a state that cannot lead to --until: exit 1 at that check', async () => {
    const id = await reviewEvent();
    const run = watch({ eventId: id, until: 'IN_REVIEW' });
    await run.settled();
    expect(run.written.stderr).toContain(`watching ${id} every 1 s until IN_REVIEW`);
    await setState(id, { state: 'ESCALATED' });
    await run.step();
    const message = `${id} reached ESCALATED, after which only APPROVED, DECLINED or FRAUD_CONFIRMED can come: IN_REVIEW can no longer come`;
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`\\nerror: ${message}\\n$`));
    expect(result.stdout).toMatch(/state PENDING_REVIEW → ESCALATED\n$/);
  });

  it('a state that can still come keeps it going; one this build does not know (--force-state) is not ruled out', async () => {
    const id = await reviewEvent();
    await setState(id, { state: 'APPROVED' });
    const run = watch({ eventId: id, until: 'FRAUD_CONFIRMED' });
    await run.settled();
    expect(run.written.stderr).toContain('until FRAUD_CONFIRMED');
    const forced = watch({ eventId: id, until: 'ON_HOLD' });
    await forced.settled();
    expect(forced.written.stderr).toContain('ON_HOLD is not a state this build knows');
    await setState(id, { state: 'FRAUD_CONFIRMED' });
    await run.step();
    await forced.step();
    expect((await run.done).code).toBe(0);
    // Nothing follows FRAUD_CONFIRMED, not even a state this build does not know.
    const message = `${id} reached FRAUD_CONFIRMED, which no state follows: ON_HOLD can no longer come`;
    const result = await forced.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`\\nerror: ${message}\\n$`));
  });
});
