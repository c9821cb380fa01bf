import { closeSync, existsSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWorkspace, byLine, makeLines, readResults } from '../support/batch-events.js';
import { startCli, type CliResult } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { startPlainEventServer, type PlainServer, type PlainServerFaults } from '../support/plain-event-server.js';
import { startOnTerminal } from '../support/pty.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';
import { DEMO_KEY, startTestSandbox, type TestSandbox } from '../support/sandbox.js';

/*
 * Nothing lost, nothing duplicated: batches under injected faults, killed and resumed,
 * interrupted. Each runs against the sandbox (which deduplicates by id) and against a plain
 * server that stores every POST it processes, as a real service may. A run that is killed,
 * interrupted or hung up on is a process; every other run (the --resume after one too) runs
 * in-process through main.
 */

const { dir, path, writeInput, envFor } = batchWorkspace('fraudctl-batch-faults-');

const lineCount = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').split('\n').length - 1 : 0);

/*
 * Waits until `p` has `atLeast` lines, reading only what was appended since the last look: the
 * servers the batch talks to run on this thread, and reading the whole growing file every 10 ms
 * took their time.
 */
async function waitForLines(p: string, atLeast: number, run: { done: Promise<CliResult> }): Promise<void> {
  let ended = false;
  void run.done.then(() => (ended = true));
  let lines = 0;
  let read = 0;
  const chunk = Buffer.alloc(1 << 16);
  for (;;) {
    if (existsSync(p)) {
      const fd = openSync(p, 'r');
      try {
        for (let n; (n = readSync(fd, chunk, 0, chunk.length, read)) > 0; read += n) {
          const got = chunk.subarray(0, n);
          for (let at = got.indexOf(10); at !== -1; at = got.indexOf(10, at + 1)) lines++;
        }
      } finally {
        closeSync(fd);
      }
    }
    if (lines >= atLeast) return;
    if (ended) throw new Error(`the batch ended before writing ${atLeast} results`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every input line has exactly one result, and every result is a decision. */
function expectAllDecided(out: string, count: number): void {
  const { lines, repeated } = byLine(readResults(out));
  expect(repeated).toEqual([]);
  expect(lines.size).toBe(count);
  const notDecided = [...lines.values()].filter((r) => r.outcome !== 'DECIDED');
  expect(notDecided).toEqual([]);
}

interface Target {
  name: string;
  url: string;
  key: string;
  /** id → times stored. */
  storedCounts(ids: string[]): Map<string, number>;
}

/*
 * The faults are seeded, keyed by event id (`--chaos seed=N`, and the plain server's `seed`), so
 * each line meets the same faults on every run whatever the timing, and the verdict cannot
 * depend on chance. Unseeded, 2 runs in 13 had a line meet a fault on every attempt (FAILED).
 * Under these seeds no line does, even one whose attempts a kill or Ctrl-C cut short; other
 * shares, ids or retry rules may need other seeds (the sandbox's seed=7 fails line 1100).
 */
const FAULTS: PlainServerFaults = { unavailable: 0.03, resetBefore: 0.02, resetAfter: 0.03, timeoutAfter: 0.03 };
const CHAOS = '503=0.03,reset-before=0.02,reset-after=0.03,504=0.03,retry-after=0,seed=1';

let chaosSandbox: TestSandbox;
let plain: PlainServer;
let slowSandbox: TestSandbox;
let slowPlain: PlainServer;
const dbPath = join(dir, 'chaos.db');
const slowDbPath = join(dir, 'slow.db');

function sandboxTarget(sb: () => TestSandbox, db: string, name: string): Target {
  return {
    name,
    get url() {
      return sb().url;
    },
    key: DEMO_KEY,
    storedCounts(ids) {
      const conn = new Database(db, { readonly: true });
      try {
        const counts = new Map<string, number>();
        for (const id of ids) counts.set(id, 0);
        const rows = conn.prepare('SELECT id, count(*) FROM events GROUP BY id').raw().all() as [string, number][];
        for (const [id, c] of rows) if (counts.has(id)) counts.set(id, c);
        return counts;
      } finally {
        conn.close();
      }
    },
  };
}

function plainTarget(server: () => PlainServer, name: string): Target {
  return {
    name,
    get url() {
      return server().url;
    },
    key: 'plain-key',
    storedCounts(ids) {
      return new Map(ids.map((id) => [id, server().stored.get(id) ?? 0]));
    },
  };
}

beforeAll(async () => {
  [chaosSandbox, plain, slowSandbox, slowPlain] = await Promise.all([
    startTestSandbox({ dbPath, chaos: CHAOS }),
    startPlainEventServer({ faults: FAULTS, seed: 7 }),
    startTestSandbox({ dbPath: slowDbPath, chaos: 'latency=3-8,seed=1' }),
    startPlainEventServer({ faults: FAULTS, seed: 11, latencyMs: 5 }),
  ]);
});
afterAll(async () => {
  await Promise.all([chaosSandbox.close(), plain.close(), slowSandbox.close(), slowPlain.close()]);
});

const faulty = [
  sandboxTarget(() => chaosSandbox, dbPath, 'the sandbox under --chaos'),
  plainTarget(() => plain, 'a non-idempotent server with faults'),
];
const slow = [
  sandboxTarget(() => slowSandbox, slowDbPath, 'the sandbox'),
  plainTarget(() => slowPlain, 'a non-idempotent server with faults'),
];
const idsOf = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);

/**
 * Events in the batches under faults: 4,000 in the suite (about 450 of them meet a fault), 10,000
 * in `npm run soak` (FRAUDCTL_LONG), or FRAUDCTL_FAULT_EVENTS. The seeded draws are per event
 * id, so the suite's batch meets the same faults as the first 4,000 lines of the long one.
 */
const FAULT_EVENTS = Number(process.env.FRAUDCTL_FAULT_EVENTS ?? (process.env.FRAUDCTL_LONG ? 10_000 : 4_000));

describe.each(faulty)(`a batch of ${FAULT_EVENTS.toLocaleString('en')} events against $name`, (target) => {
  it('gives every line exactly one result, a decision, and stores each id exactly once', async () => {
    const prefix = `tenk-${target.key}`;
    const out = path('results.jsonl');
    const result = await runInProcess(
      ['submit', writeInput(makeLines(prefix, FAULT_EVENTS)), '--out', out, '--concurrency', '32', '--json'],
      envFor(target.url, target.key),
    );
    expectAllDecided(out, FAULT_EVENTS);
    expect(result.code, result.stderr).toBe(0);
    const counts = target.storedCounts(idsOf(prefix, FAULT_EVENTS));
    expect([...counts.values()].filter((c) => c !== 1)).toEqual([]);
    // The faults did happen: lines that needed more than one request, and retries in the summary.
    const results = readResults(out);
    expect(results.filter((r) => r.attempts > 1).length).toBeGreaterThan(FAULT_EVENTS * 0.03);
    const summary = JSON.parse(result.stdout) as { unknown: number; retries: number };
    expect(summary.unknown).toBe(0);
    expect(summary.retries).toBeGreaterThan(FAULT_EVENTS * 0.01);
  }, 120_000);
});

describe('a batch under --chaos seed=N', () => {
  it('meets the same faults at --concurrency 1 and 32: line by line, the same attempts and outcome', async () => {
    const input = writeInput(makeLines('replayed', 300));
    const runAt = async (concurrency: number) => {
      const sb = await startTestSandbox({
        chaos: '503=0.05,reset-before=0.03,reset-after=0.03,504=0.03,retry-after=0,seed=5',
      });
      try {
        const out = path('results.jsonl');
        await runInProcess(
          ['submit', input, '--out', out, '--concurrency', String(concurrency)],
          envFor(sb.url, DEMO_KEY),
        );
        // In line order: lines finish in a different order at each concurrency.
        return readResults(out)
          .map(({ line, outcome, status, errorType, attempts }) => ({ line, outcome, status, errorType, attempts }))
          .sort((a, b) => a.line - b.line);
      } finally {
        await sb.close();
      }
    };
    const oneAtATime = await runAt(1);
    const concurrent = await runAt(32);
    expect(oneAtATime).toHaveLength(300);
    expect(concurrent).toEqual(oneAtATime);
    expect(oneAtATime.filter((r) => r.attempts > 1).length).toBeGreaterThan(20);
  }, 90_000);
});

/*
 * From here to kill -TERM, the tests run side by side: each is a CLI process of its own, against
 * a server of its own or ids of its own, waiting for what it can observe (lines written, requests
 * at the server, words on stderr), so the time one spends waiting on its process another uses.
 */
describe.concurrent.each(slow)('a batch killed with SIGKILL half-way, then --resume, against $name', (target) => {
  it('ends with one result per input line and each id stored exactly once', async () => {
    const prefix = `killed-${target.key}`;
    const count = 3_000;
    const input = writeInput(makeLines(prefix, count));
    const out = path('results.jsonl');
    const env = envFor(target.url, target.key);
    const first = startCli(['submit', input, '--out', out, '--concurrency', '16'], { env });
    await waitForLines(out, count / 2, first);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const before = lineCount(out);
    expect(before).toBeLessThan(count);

    const resumed = await runInProcess(['submit', input, '--out', out, '--concurrency', '16', '--resume'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/already done by the earlier run/);
    expectAllDecided(out, count);
    const counts = target.storedCounts(idsOf(prefix, count));
    expect([...counts.values()].filter((c) => c !== 1)).toEqual([]);
  }, 90_000);
});

describe.concurrent('values as jq prints them, killed with SIGKILL half-way, then --resume', () => {
  it('ends with one result per value, named by the line where it starts, and each id stored exactly once', async () => {
    const target = slow[0]!;
    const prefix = 'killed-jq';
    const count = 1_500;
    const events = makeLines(prefix, count).map((line) => JSON.stringify(JSON.parse(line), null, 2));
    const input = path('events.json');
    writeFileSync(input, `${events.join('\n')}\n`);
    const starts: number[] = [];
    for (let i = 0, line = 1; i < count; line += events[i]!.split('\n').length, i++) starts.push(line);
    const out = path('results.jsonl');
    const env = envFor(target.url, target.key);
    const first = startCli(['submit', '-', '--out', out, '--concurrency', '16'], {
      env,
      input: readFileSync(input, 'utf8'),
    });
    await waitForLines(out, count / 2, first);
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    expect(lineCount(out)).toBeLessThan(count);

    const resumed = await runInProcess(['submit', input, '--out', out, '--concurrency', '16', '--resume'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/already done by the earlier run/);
    const { lines, repeated } = byLine(readResults(out));
    expect(repeated).toEqual([]);
    expect([...lines.keys()].sort((a, b) => a - b)).toEqual(starts);
    starts.forEach((line, i) =>
      expect(lines.get(line)).toMatchObject({ column: 1, id: `${prefix}-${i + 1}`, outcome: 'DECIDED' }),
    );
    const counts = target.storedCounts(idsOf(prefix, count));
    expect([...counts.values()].filter((c) => c !== 1)).toEqual([]);
  }, 90_000);
});

describe.concurrent('Ctrl-C', () => {
  const target = slow[1]!;
  it('stops reading, finishes the lines in flight, prints the summary, exits 130; --resume completes the batch', async () => {
    const prefix = 'interrupted';
    const count = 2_000;
    const input = writeInput(makeLines(prefix, count));
    const out = path('results.jsonl');
    const rejects = path('rejects.jsonl');
    const env = envFor(target.url, target.key);
    const first = startCli(['submit', input, '--out', out, '--rejects', rejects, '--concurrency', '8'], { env });
    await waitForLines(out, 300, first);
    first.child.kill('SIGINT');
    const interrupted = await first.done;
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toContain('stopping: finishing the lines in flight');
    expect(interrupted.stderr).toMatch(/Batch stopped: [\d,]+ events/);
    expect(interrupted.stderr).toMatch(/^error: interrupted after [\d,]+ events/m);
    // Every line written is whole, and none is missing between those in flight: readable, not corrupt.
    const partial = readResults(out);
    expect(partial.length).toBeLessThan(count);
    expect(new Set(partial.map((r) => r.line)).size).toBe(partial.length);

    const resumed = await runInProcess(
      ['submit', input, '--out', out, '--rejects', rejects, '--concurrency', '8', '--resume'],
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expectAllDecided(out, count);
    const counts = target.storedCounts(idsOf(prefix, count));
    expect([...counts.values()].filter((c) => c !== 1)).toEqual([]);
  }, 60_000);
});

describe.concurrent('a second Ctrl-C', () => {
  let stuck: PlainServer;
  beforeAll(async () => {
    stuck = await startPlainEventServer({ latencyMs: 20_000 });
  });
  afterAll(() => stuck.close());

  it('aborts the requests in flight at once, leaves their lines unrecorded, and exits 130', async () => {
    const out = path('results.jsonl');
    const run = startCli(['submit', writeInput(makeLines('aborted', 50)), '--out', out, '--concurrency', '4'], {
      env: envFor(stuck.url, 'plain-key'),
    });
    // Wait until the batch's four requests are at the server, then press Ctrl-C, and again once
    // the batch says it is finishing the lines in flight.
    await expect.poll(() => stuck.maxInFlight(), { timeout: 10_000 }).toBe(4);
    run.child.kill('SIGINT');
    await expect
      .poll(() => run.output().stderr, { timeout: 10_000 })
      .toContain('stopping: finishing the lines in flight');
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('aborted at the second Ctrl-C');
    // Only the header: no result, and not closed (lines were left in flight).
    const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ fraudctl: 'results', closed: false });
    expect(stuck.processed()).toBe(0);
  }, 20_000);
});

/** The state of process `pid` as /proc/PID/stat gives it (R, S, Z…), or null once it is gone. */
function processState(pid: number): string | null {
  try {
    return /^\d+ \(.*\) (\S)/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

/** Whether SIGHUP is pending for process `pid` (sent, its handler not yet run), in either pending set of /proc/PID/status. */
function hangUpPending(pid: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return false;
  }
  return [/^SigPnd:\s*([0-9a-f]+)$/m, /^ShdPnd:\s*([0-9a-f]+)$/m].some(
    (mask) => (BigInt(`0x${mask.exec(status)?.[1] ?? '0'}`) & 1n) !== 0n,
  );
}

const ended = (pid: number) => [null, 'Z'].includes(processState(pid));

/*
 * The server holds the four requests until the test has seen the stop begin, then answers: had it
 * answered after a latency instead, a machine slow to deliver the signal would have let the batch
 * take more lines first, and the test fail by chance.
 */
describe.concurrent('a terminal that hangs up', () => {
  it('finishes the lines in flight and records them, sending no more (SIGHUP, as Ctrl-C)', async () => {
    const held = await startPlainEventServer({ hold: true });
    const out = path('hangup-results.jsonl');
    const pty = await startOnTerminal(
      ['submit', writeInput(makeLines('hangup', 50)), '--out', out, '--concurrency', '4'],
      { env: envFor(held.url, 'plain-key') },
    );
    try {
      await expect.poll(() => held.inFlight(), { timeout: 10_000 }).toBe(4);
      const { shell, program } = await pty.pids();
      await pty.kill();
      // The kernel sends SIGHUP to the program as the session's shell ends; once it is no longer
      // pending, the program has taken it. Only then do the answers come.
      await expect.poll(() => ended(shell) && !hangUpPending(program), { timeout: 10_000 }).toBe(true);
      held.release();
      await expect.poll(() => ended(program), { timeout: 10_000 }).toBe(true);
      const results = readResults(out);
      expect(results.map((r) => r.outcome)).toEqual(['DECIDED', 'DECIDED', 'DECIDED', 'DECIDED']);
      expect(held.processed()).toBe(4);
    } finally {
      await pty.kill();
      await held.close();
    }
  }, 20_000);

  it('kill -HUP: the lines in flight recorded, the summary printed as on Ctrl-C, then the process ends by SIGHUP', async () => {
    const held = await startPlainEventServer({ hold: true });
    try {
      const out = path('hup-results.jsonl');
      const run = startCli(['submit', writeInput(makeLines('hup', 50)), '--out', out, '--concurrency', '4'], {
        env: envFor(held.url, 'plain-key'),
      });
      await expect.poll(() => held.inFlight(), { timeout: 10_000 }).toBe(4);
      run.child.kill('SIGHUP');
      await expect
        .poll(() => run.output().stderr, { timeout: 10_000 })
        .toContain('stopping: finishing the lines in flight');
      held.release();
      const result = await run.done;
      expect(result.signal).toBe('SIGHUP');
      expect(result.stderr).toMatch(/Batch stopped: 4 events/);
      expect(readResults(out).map((r) => r.outcome)).toEqual(['DECIDED', 'DECIDED', 'DECIDED', 'DECIDED']);
      expect(held.processed()).toBe(4);
    } finally {
      await held.close();
    }
  }, 20_000);
});

describe.concurrent('kill -TERM (systemd stopping a unit, cron under timeout)', () => {
  it('finishes and records the lines in flight as on Ctrl-C, then exits 143, not the Ctrl-C code', async (context) => {
    notOnWindows(ON_WINDOWS.signal, context);
    const held = await startPlainEventServer({ hold: true });
    try {
      const out = path('term-results.jsonl');
      const run = startCli(['submit', writeInput(makeLines('term', 50)), '--out', out, '--concurrency', '4'], {
        env: envFor(held.url, 'plain-key'),
      });
      await expect.poll(() => held.inFlight(), { timeout: 10_000 }).toBe(4);
      run.child.kill('SIGTERM');
      await expect
        .poll(() => run.output().stderr, { timeout: 10_000 })
        .toContain('stopping: finishing the lines in flight');
      held.release();
      const result = await run.done;
      expect(result.code).toBe(143);
      expect(result.stderr).toMatch(/Batch stopped: 4 events/);
      expect(result.stderr).toMatch(/^error: interrupted after 4 events$/m);
      expect(readResults(out).map((r) => r.outcome)).toEqual(['DECIDED', 'DECIDED', 'DECIDED', 'DECIDED']);
      expect(held.processed()).toBe(4);
    } finally {
      await held.close();
    }
  }, 20_000);
});

describe('a Retry-After for a few lines', () => {
  const waiting = ['waiting-1', 'waiting-2', 'waiting-3', 'waiting-4', 'waiting-5'];
  let server: PlainServer;
  beforeAll(async () => {
    server = await startPlainEventServer({ throttleFirstPost: Object.fromEntries(waiting.map((id) => [id, 2])) });
  });
  afterAll(() => server.close());

  it('delays those lines only: other lines are sent while they wait, and requests in flight stay within --concurrency', async () => {
    const out = path('results.jsonl');
    const count = 300;
    const result = await runInProcess(
      ['submit', writeInput(makeLines('waiting', count)), '--out', out, '--concurrency', '2', '--json'],
      envFor(server.url, 'plain-key'),
    );
    expect(result.code, result.stderr).toBe(0);
    expectAllDecided(out, count);
    expect([...server.stored.values()].filter((c) => c !== 1)).toEqual([]);
    expect(server.stored.size).toBe(count);
    const answers = server.answers;
    for (const id of waiting) {
      const first = answers.findIndex((a) => a.id === id);
      const retry = answers.findIndex((a, i) => i > first && a.id === id);
      expect(answers[first]?.status).toBe(503);
      expect(answers[retry]?.status).toBe(201);
      // Had the Retry-After paused the whole batch, only requests already sent when the 503 came
      // (at most --concurrency - 1 = 1) could be answered before the line's own retry. Each line
      // waits 2 s: plenty for other lines to be sent even on a slow machine.
      const others = answers.slice(first + 1, retry).filter((a) => a.id !== id);
      expect(others.length, `answers to other lines while ${id} waited`).toBeGreaterThanOrEqual(10);
    }
    // Five lines waiting at once, yet never more than two requests at the server.
    expect(server.maxInFlight()).toBeLessThanOrEqual(2);
  }, 60_000);
});

describe('an outage', () => {
  let down: PlainServer;
  beforeAll(async () => {
    down = await startPlainEventServer({ faults: { unavailable: 1 } });
  });
  afterAll(() => down.close());

  it('spends the shared retry budget, then stops instead of retrying every line: exit 1 and a summary that says so', async () => {
    const out = path('results.jsonl');
    const result = await runInProcess(
      ['submit', writeInput(makeLines('outage', 5_000)), '--out', out],
      envFor(down.url, 'plain-key'),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the retry budget is spent');
    expect(result.stderr).toContain('--resume');
    const results = readResults(out);
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThan(200);
    expect(results.every((r) => r.outcome === 'FAILED')).toBe(true);
    expect(results.some((r) => r.errorType === 'RETRY_BUDGET_SPENT')).toBe(true);
    // About 100 retries (a budget of 500 at 5 each) plus one first try per line taken: no storm.
    expect(down.faults.unavailable).toBeLessThan(400);
    expect(down.processed()).toBe(0);
  }, 60_000);
});
