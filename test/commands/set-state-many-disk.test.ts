import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/action-log/action-log.js';
import type { ChangeResult } from '../../src/results-file/change-result.js';
import { cliEnv } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { DEMO_KEY, send, startTestSandbox, stateChangesIn, tempDir, type TestSandbox } from '../support/sandbox.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';

/*
 * `set-state` for many events when its files cannot be written: the
 * audit --log on a full disk (a real tmpfs) stops the run, and no change is made that the log
 * does not show; --resume without a results file is refused before anything is read. Changes
 * are counted in the sandbox's own state_changes table. fraudctl runs in-process (main()).
 */

const tmp = tempDir('fraudctl-bulk-disk-');
const db = join(tmp.dir, 'sandbox.db');
let sb: TestSandbox;
const disks: SmallDisk[] = [];
beforeAll(async () => {
  sb = await startTestSandbox({ dbPath: db });
});
afterAll(async () => {
  await sb.close();
  for (const disk of disks) disk.remove();
  await tmp.remove();
});

const env = () =>
  cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: join(tmp.dir, 'config'),
    XDG_DATA_HOME: join(tmp.dir, 'data'),
    FRAUDCTL_BASE_URL: sb.url,
    FRAUDCTL_API_KEY: DEMO_KEY,
  });

async function pending(prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  for (const id of ids) await send(sb.url, 'POST', '/event', { body: { id, amount: 1500, currency: 'EUR' } });
  return ids;
}

const changesOf = (ids: readonly string[]) => stateChangesIn(db, ids);

/** The log's lines, each a whole JSON object; the file ends with a newline. */
function readLog(path: string): LogEntry[] {
  const text = readFileSync(path, 'utf8');
  if (text === '') return [];
  expect(text.endsWith('\n'), 'the log ends with a whole line').toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l) as LogEntry);
}

describe('set-state --log on a full disk', () => {
  it.skipIf(!smallDisk.available)(
    `stops (exit 1) naming the log, with the summary; every change made is in the log, no torn line; --resume finishes once there is room${smallDisk.skipReason}`,
    async () => {
      const ids = await pending('logfull', 40);
      const disk = smallDisk.mount(128 * 1024);
      disks.push(disk);
      // Two pages free: one for the log's lock file (FILE.lock), one for a dozen log lines of the 80 the run would write.
      disk.fill(2 * 4096);
      const log = join(disk.path, 'audit.log');
      const out = join(tmp.dir, 'logfull.jsonl');
      const args = [
        'set-state',
        ...ids,
        '--state',
        'escalated',
        '--comments',
        'second look',
        '--yes',
        '--out',
        out,
        '--log',
        log,
        '--concurrency',
        '4',
      ];
      const first = await runInProcess(args, env());
      expect(first.code, first.stderr).toBe(1);
      expect(first.stderr).toContain(`error: cannot write the log ${log}: no space left on its disk (ENOSPC)`);
      expect(first.stderr).toMatch(/Set-state stopped: \d+ ids/);
      expect(first.stderr).toContain('stopped: a file could not be written');
      expect(first.stderr).toContain(`free space on the disk of ${log}, then run the same command with --resume`);

      const changed = [...changesOf(ids)].filter(([, n]) => n > 0).map(([id]) => id);
      expect(changed.length).toBeGreaterThan(0);
      expect(changed.length).toBeLessThan(ids.length);
      const logged = readLog(log);
      const sending = new Set(logged.filter((l) => l.outcome === 'sending').map((l) => l.eventId));
      // An action that cannot be logged is not taken.
      expect(changed.filter((id) => !sending.has(id))).toEqual([]);
      const results = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as ChangeResult)
        .filter((r) => r.item !== undefined);
      expect(results.filter((r) => r.outcome === 'CHANGED' && !sending.has(r.id!))).toEqual([]);

      disk.free();
      const second = await runInProcess([...args, '--resume'], env());
      expect(second.code, second.stderr).toBe(0);
      expect([...changesOf(ids).values()].filter((n) => n !== 1)).toEqual([]);
      const all = readLog(log);
      expect(ids.filter((id) => !all.some((l) => l.eventId === id && l.outcome === 'sending'))).toEqual([]);
    },
  );
});

describe('set-state --resume without a results file', () => {
  it('is a usage error (exit 2) before anything is read or changed', async () => {
    const ids = await pending('noresume', 2);
    const out = join(tmp.dir, 'never.jsonl');
    const result = await runInProcess(
      ['set-state', ...ids, '--state', 'escalated', '--yes', '--out', out, '--resume'],
      env(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: no results file ${out} to resume\nrun without --resume to start\n`);
    expect([...changesOf(ids).values()]).toEqual([0, 0]);
  });
});

describe('set-state --out on a full disk', () => {
  it.skipIf(!smallDisk.available)(
    `stops (exit 1) naming the file, keeps it whole, and --resume changes the rest, each once${smallDisk.skipReason}`,
    async () => {
      const ids = await pending('outfull', 40);
      const disk = smallDisk.mount(128 * 1024);
      disks.push(disk);
      // Two pages free: one for the lock file beside the results, one for a dozen result lines of 40.
      disk.fill(2 * 4096);
      const out = join(disk.path, 'results.jsonl');
      const input = join(tmp.dir, 'outfull-ids.txt');
      writeFileSync(input, `${ids.join('\n')}\n`);
      const args = ['set-state', '--from', input, '--state', 'escalated', '--yes', '--out', out, '--concurrency', '4'];
      const first = await runInProcess(args, env());
      expect(first.code, first.stderr).toBe(1);
      expect(first.stderr).toContain(`error: cannot write the results file ${out}: no space left on its disk (ENOSPC)`);
      expect(first.stderr).toMatch(/Set-state stopped: \d+ ids/);
      const text = readFileSync(out, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      for (const line of text.slice(0, -1).split('\n')) expect(() => JSON.parse(line) as unknown, line).not.toThrow();

      disk.free();
      const second = await runInProcess([...args, '--resume'], env());
      expect(second.code, second.stderr).toBe(0);
      expect([...changesOf(ids).values()].filter((n) => n !== 1)).toEqual([]);
      // One line per id, after the run's header.
      expect(
        readFileSync(out, 'utf8')
          .trim()
          .split('\n')
          .filter((l) => !l.startsWith('{"fraudctl":"results"')),
      ).toHaveLength(40);
    },
  );
});
