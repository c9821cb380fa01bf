import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byLine, makeLines, readResults } from '../support/batch-events.js';
import { cliEnv } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { startPlainEventServer, type PlainServer } from '../support/plain-event-server.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';
import { tempDir } from '../support/sandbox.js';

/*
 * A results file that cannot be written: a full disk (a real tmpfs
 * with room for a few lines), the file deleted during the run, --resume without one. Against a
 * server that stores every POST it processes (no replay by id), so an event sent twice shows.
 * Run in-process through main: nothing here needs a process of its own.
 */

const tmp = tempDir('fraudctl-batch-disk-');
let server: PlainServer;
let slow: PlainServer;
const disks: SmallDisk[] = [];
beforeAll(async () => {
  [server, slow] = await Promise.all([startPlainEventServer(), startPlainEventServer({ latencyMs: 4 })]);
});
afterAll(async () => {
  await Promise.all([server.close(), slow.close()]);
  for (const disk of disks) disk.remove();
  await tmp.remove();
});

let n = 0;
const input = (prefix: string, count: number) => {
  const p = join(tmp.dir, `${++n}-events.jsonl`);
  writeFileSync(p, `${makeLines(prefix, count).join('\n')}\n`);
  return p;
};
const env = (url: string) =>
  cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: join(tmp.dir, 'config'),
    XDG_DATA_HOME: join(tmp.dir, 'data'),
    FRAUDCTL_BASE_URL: url,
    FRAUDCTL_API_KEY: 'plain-key',
  });
const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);

/** Every line of the file is a whole JSON object and the file ends with a newline; the count of results (the run's header line aside). */
function expectWholeLines(path: string): number {
  const text = readFileSync(path, 'utf8');
  if (text === '') return 0;
  expect(text.endsWith('\n'), 'the file ends with a whole line').toBe(true);
  const lines = text.slice(0, -1).split('\n');
  for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
  return lines.filter((line) => (JSON.parse(line) as { fraudctl?: unknown }).fraudctl !== 'results').length;
}

/** The events of `prefix` each stored exactly once, and the results file one decision per input line. */
function expectEachOnce(target: PlainServer, prefix: string, count: number, out: string): void {
  const stored = ids(prefix, count).map((id) => target.stored.get(id) ?? 0);
  expect(
    stored.filter((c) => c !== 1),
    'events not stored exactly once',
  ).toEqual([]);
  const { lines, repeated } = byLine(readResults(out));
  expect(repeated).toEqual([]);
  expect(lines.size).toBe(count);
  expect([...lines.values()].filter((r) => r.outcome !== 'DECIDED')).toEqual([]);
}

describe('a results file on a full disk', () => {
  it.skipIf(!smallDisk.available)(
    `stops naming the file and the cause, with the summary, keeps the file whole, and --resume completes once there is room${smallDisk.skipReason}`,
    async () => {
      const disk = smallDisk.mount(256 * 1024);
      disks.push(disk);
      // A page for the lock file beside the results (FILE.lock), and room for about 30 result lines (~270 bytes each) of the 120.
      disk.fill(12 * 1024);
      const out = join(disk.path, 'results.jsonl');
      const events = input('full', 120);
      const first = await runInProcess(['submit', events, '--out', out, '--concurrency', '4'], env(server.url));
      expect(first.code, first.stderr).toBe(1);
      expect(first.stderr).toContain(`error: cannot write the results file ${out}: no space left on its disk (ENOSPC)`);
      expect(first.stderr).toMatch(/Batch stopped: \d+ events/);
      expect(first.stderr).toContain('stopped: a file could not be written');
      expect(first.stderr).toContain('free space on its disk, then run the same command with --resume');
      expect(first.stderr).not.toMatch(/\n\s+at /); // no stack trace
      const kept = expectWholeLines(out);
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(120);

      disk.free();
      const second = await runInProcess(
        ['submit', events, '--out', out, '--concurrency', '4', '--resume'],
        env(server.url),
      );
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain(`${kept} already done by the earlier run`);
      expectEachOnce(server, 'full', 120, out);
    },
  );
});

describe('--resume on a full disk', () => {
  it.skipIf(!smallDisk.available)(
    `says it cannot prepare the results file, leaves it as it was, and works once there is room${smallDisk.skipReason}`,
    async () => {
      const disk = smallDisk.mount(256 * 1024);
      disks.push(disk);
      const out = join(disk.path, 'results.jsonl');
      const events = input('resfull', 30);
      const first = await runInProcess(['submit', events, '--out', out], env(server.url));
      expect(first.code, first.stderr).toBe(0);
      const before = readFileSync(out, 'utf8');
      // Room for the lock file (a page), none for the rewritten copy --resume makes before it renames it over the file.
      disk.fill(4096);
      const second = await runInProcess(['submit', events, '--out', out, '--resume'], env(server.url));
      expect(second.code, second.stderr).toBe(1);
      expect(second.stderr).toContain(
        `error: cannot prepare ${out} for --resume: no space left on its disk (ENOSPC) writing ${out}.resume-`,
      );
      expect(second.stderr).toContain(`; ${out} is unchanged`);
      expect(second.stderr).toContain('free space on its disk, then run the same command again');
      expect(readFileSync(out, 'utf8')).toBe(before);
      expect(readdirSync(disk.path).sort()).toEqual(['filler', 'results.jsonl']);
      disk.free();
      const third = await runInProcess(['submit', events, '--out', out, '--resume'], env(server.url));
      expect(third.code, third.stderr).toBe(0);
      expect(third.stderr).toContain('30 already done by the earlier run');
      expectEachOnce(server, 'resfull', 30, out);
    },
  );
});

async function waitForLines(path: string, atLeast: number, run: { done: Promise<unknown> }): Promise<void> {
  let ended = false;
  void run.done.then(() => (ended = true));
  const count = () => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').length - 1 : 0);
  while (count() < atLeast) {
    if (ended) throw new Error(`the batch ended before writing ${atLeast} results`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('a results file deleted during the run', () => {
  it('stops (exit 1) naming the file, writes back what it held, and --resume sends each event once', async () => {
    const out = join(tmp.dir, 'deleted-results.jsonl');
    const events = input('gone', 1500);
    const run = { done: runInProcess(['submit', events, '--out', out, '--concurrency', '2'], env(slow.url)) };
    // 20 results, after the run's header line.
    await waitForLines(out, 21, run);
    rmSync(out);
    const first = await run.done;
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain(
      `error: ${out} was deleted while fraudctl was writing it: what it held up to then was written back to ${out}`,
    );
    expect(first.stderr).toContain('Batch stopped');
    expect(first.stderr).toContain('then run the same command with --resume');
    const kept = expectWholeLines(out);
    expect(kept).toBeGreaterThanOrEqual(20);
    expect(kept).toBeLessThan(1500);

    const second = await runInProcess(
      ['submit', events, '--out', out, '--concurrency', '8', '--resume'],
      env(slow.url),
    );
    expect(second.code, second.stderr).toBe(0);
    expectEachOnce(slow, 'gone', 1500, out);
  });

  it('--resume with no results file is a usage error (exit 2), never a fresh run', async () => {
    const out = join(tmp.dir, 'never-written.jsonl');
    const before = server.processed();
    const result = await runInProcess(['submit', input('none', 3), '--out', out, '--resume'], env(server.url));
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: no results file ${out} to resume\nrun without --resume to start\n`);
    expect(server.processed()).toBe(before);
    expect(existsSync(out)).toBe(false);
  });
});
