import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWorkspace, makeLines, readResults } from '../support/batch-events.js';
import { runCli, startCli, type CliResult, type RunningCli } from '../support/cli.js';
import { startPlainEventServer, type PlainServer } from '../support/plain-event-server.js';
import { DEMO_KEY, send, startTestSandbox, stateChangesIn, type TestSandbox } from '../support/sandbox.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * A results file (--out) has one writer at a time (an action log, --log, had
 * too before: now two runs share one, each line appended under the log's lock:
 * test/commands/team-log.test.ts).
 * Two overlapping runs (two cron jobs, `--resume` in a second terminal while the first still
 * runs) sent events twice: the second rewrote the results file the first was appending to. Now
 * the second refuses at once, exit 2, naming the file and the pid of the run that writes it,
 * before it sends or rewrites anything. A lock left by a run that is gone (kill -9) is taken
 * over, saying so; a normal end, Ctrl-C or an error leave none behind.
 *
 * Submit runs against a plain server that counts every POST and holds them until the test
 * releases them (so the first run is surely still running when the second starts); set-state
 * against the real sandbox, fed ids on stdin a few at a time (so the first run is surely still
 * running), counting the state changes the sandbox recorded.
 */

const { dir, path, writeInput, envFor } = batchWorkspace('fraudctl-one-writer-');

const errorLine = (r: CliResult) => r.stderr.split('\n').filter((l) => l.startsWith('error: '));
const refusal = (file: string, pid: number) =>
  `error: ${file} is being written by another fraudctl run (pid ${pid}): one run at a time may write it, and this one did nothing`;
const lineCount = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8').split('\n').length - 1 : 0);
/** The result lines of a results file: its header (the first line, naming the run) not counted. */
const resultCount = (p: string) => Math.max(0, lineCount(p) - 1);

describe('submit: two runs on one --out', () => {
  let held: PlainServer;
  beforeAll(async () => {
    held = await startPlainEventServer({ hold: true });
  });
  afterAll(() => held.close());

  it('the second (--resume, or not) refuses at once naming the file and the first run’s pid; nothing is sent twice; the first records every result and leaves no lock', async () => {
    const count = 40;
    const input = writeInput(makeLines('overlap', count));
    const out = path('results.jsonl');
    const env = envFor(held.url, 'plain-key');
    const first = startCli(['submit', input, '--out', out, '--concurrency', '4'], { env });
    let second: CliResult | undefined;
    let again: CliResult | undefined;
    let secondMs = Infinity;
    try {
      await expect.poll(() => held.inFlight(), { timeout: 10_000 }).toBe(4);
      // Both bounded: an old build that goes on sending would be held by the server until killed.
      const started = performance.now();
      second = await runCli(['submit', input, '--out', out, '--resume', '--concurrency', '4'], {
        env,
        timeoutMs: 8_000,
      });
      secondMs = performance.now() - started;
      again = await runCli(['submit', input, '--out', out], { env, timeoutMs: 8_000 });
    } finally {
      held.release();
    }
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toBe(`${refusal(out, first.child.pid!)}\n`);
    // At once: a process start, not a wait for the first run.
    expect(secondMs).toBeLessThan(5_000);
    expect(again.code, again.stderr).toBe(2);
    expect(errorLine(again)).toEqual([refusal(out, first.child.pid!)]);

    const done = await first.done;
    expect(done.code, done.stderr).toBe(0);
    const results = readResults(out);
    expect(results.map((r) => r.line).sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(results.every((r) => r.outcome === 'DECIDED')).toBe(true);
    expect(held.processed()).toBe(count);
    expect([...held.stored.values()].filter((c) => c !== 1)).toEqual([]);
    expect(existsSync(`${out}.lock`)).toBe(false);
  }, 40_000);
});

describe('submit: two runs on one --rejects', () => {
  let held: PlainServer;
  beforeAll(async () => {
    held = await startPlainEventServer({ hold: true });
  });
  afterAll(() => held.close());

  // A fresh run refuses an existing --rejects, but a resume takes the one its header names: two
  // runs could then both write (and at resume rewrite) one rejects file. The second is refused.
  it('a resume whose header names the --rejects another run is writing refuses at once, exit 2, naming it and the pid', async () => {
    const env = envFor(held.url, 'plain-key');
    const rejects = path('rejects.jsonl');
    // An earlier run's results file naming that rejects file (a run of no events: nothing sent).
    const earlier = path('earlier.jsonl');
    const empty = writeInput([]);
    const made = await runCli(['submit', empty, '--out', earlier, '--rejects', path('unused-rejects.jsonl')], { env });
    expect(made.code, made.stderr).toBe(0);
    const [headerLine, ...rest] = readFileSync(earlier, 'utf8').split('\n');
    const header = JSON.parse(headerLine!) as { options: Record<string, unknown> };
    header.options.rejects = rejects;
    writeFileSync(earlier, [JSON.stringify(header), ...rest].join('\n'));

    const input = writeInput(makeLines('rejects-overlap', 20));
    const first = startCli(
      ['submit', input, '--out', path('first.jsonl'), '--rejects', rejects, '--concurrency', '4'],
      { env },
    );
    let second: CliResult | undefined;
    try {
      await expect.poll(() => held.inFlight(), { timeout: 10_000 }).toBe(4);
      second = await runCli(['submit', input, '--out', earlier, '--resume'], { env, timeoutMs: 8_000 });
    } finally {
      held.release();
    }
    expect(second.code, second.stderr).toBe(2);
    expect(errorLine(second)).toEqual([refusal(rejects, first.child.pid!)]);
    const done = await first.done;
    expect(done.code, done.stderr).toBe(0);
    expect(held.processed()).toBe(20);
    expect(existsSync(`${rejects}.lock`)).toBe(false);
  }, 40_000);
});

describe('submit: a lock left by a run that is gone', () => {
  it('a lock file naming a pid that is not alive is taken over, with a note; the run goes on and removes it at its end', async () => {
    const server = await startPlainEventServer();
    try {
      const out = path('results.jsonl');
      const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
      writeFileSync(`${out}.lock`, JSON.stringify({ pid: dead, host: hostname() }));
      const result = await runCli(['submit', writeInput(makeLines('dead', 5)), '--out', out], {
        env: envFor(server.url, 'plain-key'),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(
        `note: ${out}.lock was left by a fraudctl run that is no longer running (pid ${dead}): taking it over`,
      );
      expect(readResults(out)).toHaveLength(5);
      expect(existsSync(`${out}.lock`)).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('kill -9 leaves the lock; --resume takes it over, says so, and sends each event once', async () => {
    const held = await startPlainEventServer({ hold: true });
    try {
      const count = 20;
      const input = writeInput(makeLines('killed', count));
      const out = path('results.jsonl');
      const env = envFor(held.url, 'plain-key');
      const first = startCli(['submit', input, '--out', out, '--concurrency', '4'], { env });
      await expect.poll(() => held.inFlight(), { timeout: 10_000 }).toBe(4);
      first.child.kill('SIGKILL');
      await first.done;
      expect(existsSync(`${out}.lock`)).toBe(true);
      held.release();
      const resumed = await runCli(['submit', input, '--out', out, '--resume'], { env, timeoutMs: 30_000 });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(
        `note: ${out}.lock was left by a fraudctl run that is no longer running (pid ${first.child.pid}): taking it over`,
      );
      expect(readResults(out)).toHaveLength(count);
      expect([...held.stored.values()].filter((c) => c !== 1)).toEqual([]);
      expect(existsSync(`${out}.lock`)).toBe(false);
    } finally {
      await held.close();
    }
  }, 40_000);
});

describe('submit: no lock left behind after Ctrl-C or an error', () => {
  it('Ctrl-C: the lines in flight finish, exit 130, no lock file', async () => {
    notOnWindows(ON_WINDOWS.signal);
    const held = await startPlainEventServer({ hold: true });
    try {
      const out = path('results.jsonl');
      const run = startCli(['submit', writeInput(makeLines('ctrlc', 30)), '--out', out, '--concurrency', '2'], {
        env: envFor(held.url, 'plain-key'),
      });
      await expect.poll(() => held.inFlight(), { timeout: 10_000 }).toBe(2);
      expect(existsSync(`${out}.lock`)).toBe(true);
      run.child.kill('SIGINT');
      await expect
        .poll(() => run.output().stderr, { timeout: 10_000 })
        .toContain('stopping: finishing the lines in flight');
      held.release();
      const result = await run.done;
      expect(result.code, result.stderr).toBe(130);
      expect(existsSync(`${out}.lock`)).toBe(false);
    } finally {
      await held.close();
    }
  });

  it('a refused key: exit 3, no lock file', async () => {
    const server = await startPlainEventServer();
    try {
      const out = path('results.jsonl');
      const result = await runCli(['submit', writeInput(makeLines('refused', 3)), '--out', out], {
        env: envFor(server.url, 'wrong-key'),
      });
      expect(result.code, result.stderr).toBe(3);
      expect(existsSync(`${out}.lock`)).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe('set-state for many events: two runs sharing --out, or --log', () => {
  let sb: TestSandbox;
  const db = join(dir, 'sandbox.db');
  beforeAll(async () => {
    sb = await startTestSandbox({ dbPath: db });
  });
  afterAll(() => sb.close());

  async function pending(prefix: string, count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
    for (const id of ids) await send(sb.url, 'POST', '/event', { body: { id, amount: 1500, currency: 'EUR' } });
    return ids;
  }

  const changesOf = (ids: readonly string[]) => [...stateChangesIn(db, ids).values()];

  it('on one --out the second refuses at once, exit 2, naming the file and pid; on one --log both change and log their events, each once', async () => {
    const mine = await pending('log-first', 10);
    const theirs = await pending('log-second', 3);
    const log = path('actions.jsonl');
    const out = path('results.jsonl');
    const env = envFor(sb.url, DEMO_KEY);
    // Ids on stdin, a few at a time: the first run cannot end before the test lets it.
    const first: RunningCli = startCli(
      ['set-state', '--from', '-', '--state', 'declined', '--comments', 'ring 9', '--yes', '--log', log, '--out', out],
      { env, keepStdinOpen: true },
    );
    first.child.stdin.write(`${mine.slice(0, 4).join('\n')}\n`);
    // Two log lines a change: before it is sent, and its outcome.
    await expect.poll(() => lineCount(log), { timeout: 10_000 }).toBe(8);

    const sameLog = await runCli(['set-state', ...theirs, '--state', 'declined', '--yes', '--log', log], {
      env,
      timeoutMs: 8_000,
    });
    const sameOut = await runCli(['set-state', ...mine, '--state', 'declined', '--yes', '--out', out, '--resume'], {
      env,
      timeoutMs: 8_000,
    });

    first.child.stdin.end(`${mine.slice(4).join('\n')}\n`);
    const done = await first.done;

    expect(sameLog.code, sameLog.stderr).toBe(0);
    expect(sameOut.code, sameOut.stderr).toBe(2);
    expect(errorLine(sameOut)).toEqual([refusal(out, first.child.pid!)]);
    expect(done.code, done.stderr).toBe(0);
    // The second run on the same log changed its events; the first changed each of its events once, logged once before and once after.
    expect(changesOf(theirs)).toEqual([1, 1, 1]);
    expect(changesOf(mine)).toEqual(Array(10).fill(1));
    const logged = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { eventId: string; action: string; outcome: string });
    for (const outcome of ['sending', 'ok'])
      expect(
        logged
          .filter((l) => l.outcome === outcome)
          .map((l) => l.eventId)
          .sort(),
      ).toEqual([...mine, ...theirs].sort());
    expect(logged).toHaveLength(26);
    expect(resultCount(out)).toBe(10);
    expect(existsSync(`${log}.lock`)).toBe(false);
    expect(existsSync(`${out}.lock`)).toBe(false);
  }, 40_000);
});
