import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  acquireLock,
  lockForOneWriter,
  LockBusyError,
  parseHolder,
  UNNAMED_GRACE_MS,
  type LockHolder,
} from '../../src/files/exclusive-lock.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';
import { notOnWindows, ON_WINDOWS, onWindows } from '../support/prerequisites.js';
import { shellCommand } from '../../src/render/shell-command.js';

/*
 * The one lock every file with one writer uses: a holder that is alive is
 * never broken, however long it holds; a holder that is gone (no such pid, a pid reused by a
 * process started later, another boot) is taken over at once; a lock naming nobody after a
 * short grace; a lock file is never left behind by a full disk.
 */

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function lockIn(): { dir: string; lock: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fraudctl-xlock-'));
  dirs.push(dir);
  return { dir, lock: join(dir, 'file.lock') };
}

/** A pid namespace that is not this process's, as a lock file names one (`pid:[4026531836]`); Linux only. */
const otherNamespace = () => `pid:[${Number(/\d+/.exec(readlinkSync('/proc/self/ns/pid'))![0]) + 1}]`;

/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

/** A live process that is not this one. */
function liveChild(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

const startOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
};

function busy(fn: () => unknown): LockBusyError {
  try {
    fn();
  } catch (e) {
    if (e instanceof LockBusyError) return e;
    throw e;
  }
  throw new Error('the lock was taken');
}

describe('acquireLock', () => {
  it('creates the lock file naming this process, refuses a second take in the same process, and removes it on release', () => {
    const { dir, lock } = lockIn();
    const held = acquireLock(lock);
    const holder = parseHolder(readFileSync(lock, 'utf8'))!;
    expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
    if (process.platform === 'linux') expect(holder.start).toBe(startOf(process.pid));
    expect(busy(() => acquireLock(lock)).kind).toBe('self');
    held.release();
    held.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never takes a live holder’s lock, however long it has held it; says who holds it after the wait', () => {
    const { lock } = lockIn();
    const child = liveChild();
    const text = JSON.stringify({
      pid: child.pid,
      host: hostname(),
      since: new Date(Date.now() - 3_600_000).toISOString(),
    });
    writeFileSync(lock, text);
    const started = performance.now();
    const error = busy(() => acquireLock(lock, { waitMs: 200 }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(error.kind).toBe('alive');
    expect(error.holder?.pid).toBe(child.pid);
    expect(readFileSync(lock, 'utf8')).toBe(text);
  });

  it('takes a dead holder’s lock at once, and says so', () => {
    const { lock } = lockIn();
    const pid = deadPid();
    writeFileSync(lock, JSON.stringify({ pid, host: hostname() }));
    const taken: (LockHolder | null)[] = [];
    const started = performance.now();
    const held = acquireLock(lock, { waitMs: 10_000, onTakeover: (h) => taken.push(h) });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(taken).toEqual([{ pid, host: hostname() }]);
    expect(parseHolder(readFileSync(lock, 'utf8'))?.pid).toBe(process.pid);
    held.release();
  });

  it.skipIf(process.platform !== 'linux' && !onWindows)(
    'a live pid that started later than the holder is another process: the lock is taken',
    () => {
      notOnWindows(ON_WINDOWS.procStart);
      const { lock } = lockIn();
      const child = liveChild();
      writeFileSync(
        lock,
        JSON.stringify({ pid: child.pid, host: hostname(), start: String(Number(startOf(child.pid!)) - 1) }),
      );
      const taken: (LockHolder | null)[] = [];
      acquireLock(lock, { onTakeover: (h) => taken.push(h) }).release();
      expect(taken.map((h) => h?.pid)).toEqual([child.pid]);
    },
  );

  it.skipIf(process.platform !== 'linux' && !onWindows)(
    'a holder of an earlier boot is gone, even if its pid runs now',
    () => {
      notOnWindows(ON_WINDOWS.procStart);
      const { lock } = lockIn();
      writeFileSync(
        lock,
        JSON.stringify({ pid: process.ppid, host: hostname(), boot: '00000000-0000-0000-0000-000000000000' }),
      );
      const taken: (LockHolder | null)[] = [];
      acquireLock(lock, { onTakeover: (h) => taken.push(h) }).release();
      expect(taken).toHaveLength(1);
    },
  );

  it('a holder on another host cannot be checked: never taken', () => {
    const { lock } = lockIn();
    writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: 'not-this-host.example' }));
    expect(busy(() => acquireLock(lock, { waitMs: 20 })).kind).toBe('elsewhere');
    expect(existsSync(lock)).toBe(true);
  });

  it.skipIf(process.platform !== 'linux' && !onWindows)(
    'a holder in another pid namespace (a container): never taken',
    () => {
      notOnWindows(ON_WINDOWS.pidNamespace);
      const { lock } = lockIn();
      // A pid that is free here: in the holder's namespace it may well run.
      writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: hostname(), pidNs: otherNamespace() }));
      expect(busy(() => acquireLock(lock, { waitMs: 20 })).kind).toBe('elsewhere');
      expect(existsSync(lock)).toBe(true);
    },
  );

  it('a lock file naming nobody (its creator died before filling it) is taken after a short grace', () => {
    const { lock } = lockIn();
    writeFileSync(lock, '');
    const taken: (LockHolder | null)[] = [];
    const started = performance.now();
    acquireLock(lock, { onTakeover: (h) => taken.push(h) }).release();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(UNNAMED_GRACE_MS);
    expect(took).toBeLessThan(UNNAMED_GRACE_MS + 2_000);
    expect(taken).toEqual([null]);
  });

  it('waits on a monotonic clock: the wall clock stepped back does not make the wait endless', () => {
    const { lock } = lockIn();
    const child = liveChild();
    writeFileSync(lock, JSON.stringify({ pid: child.pid, host: hostname() }));
    const realNow = Date.now.bind(Date);
    const t0 = realNow();
    let reads = 0;
    // Each read of the wall clock is a second earlier than the one before.
    Date.now = () => {
      if (++reads > 100) throw new Error('still waiting after the clock stepped back');
      return t0 - reads * 1_000;
    };
    try {
      expect(busy(() => acquireLock(lock, { waitMs: 300 })).kind).toBe('alive');
    } finally {
      Date.now = realNow;
    }
  });

  describe.skipIf(!smallDisk.available)(`on a full disk${smallDisk.skipReason}`, () => {
    let disk: SmallDisk | undefined;
    afterAll(() => disk?.remove());

    it('fails with ENOSPC and leaves no lock file behind, so the next take is immediate', () => {
      disk = smallDisk.mount(64 * 1024);
      disk.fill();
      const lock = join(disk.path, 'config.json.lock');
      expect(() => acquireLock(lock)).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
      expect(existsSync(lock)).toBe(false);
      disk.free();
      const started = performance.now();
      acquireLock(lock).release();
      expect(performance.now() - started).toBeLessThan(500);
    });
  });
});

describe('lockForOneWriter', () => {
  it('refuses a file another live run writes: exit 2, one line naming the file and the pid', () => {
    const { dir } = lockIn();
    const file = join(dir, 'results.jsonl');
    const child = liveChild();
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: child.pid, host: hostname() }));
    const notes: string[] = [];
    expect(() => lockForOneWriter(file, '--out', (l) => notes.push(l))).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: `${file} is being written by another fraudctl run (pid ${child.pid}): one run at a time may write it, and this one did nothing`,
      }),
    );
    expect(notes).toEqual([]);
  });

  it.skipIf(process.platform !== 'linux' && !onWindows)(
    'a holder in another pid namespace is said to be, not "pid 1"',
    () => {
      notOnWindows(ON_WINDOWS.pidNamespace);
      const { dir } = lockIn();
      const file = join(dir, 'results.jsonl');
      writeFileSync(`${file}.lock`, JSON.stringify({ pid: 1, host: hostname(), pidNs: otherNamespace() }));
      expect(() => lockForOneWriter(file, '--out', () => {})).toThrow(
        expect.objectContaining({
          exitCode: 2,
          message:
            `${file} is being written by another fraudctl run (pid 1 in another pid namespace, such as a container): ` +
            'one run at a time may write it, and this one did nothing',
          hint: `if no fraudctl runs there any more: ${shellCommand(['rm', `${file}.lock`])}`,
        }),
      );
    },
  );

  it('two names of one file (a symlink) share one lock', () => {
    notOnWindows(ON_WINDOWS.symlink);
    const { dir } = lockIn();
    const file = join(dir, 'log.jsonl');
    writeFileSync(file, '');
    const link = join(dir, 'link.jsonl');
    symlinkSync(file, link);
    const held = lockForOneWriter(file, '--log', () => {})!;
    expect(() => lockForOneWriter(link, '--log', () => {})).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: `${link} is given to this command twice: give --log a file of its own`,
      }),
    );
    held.release();
    expect(readdirSync(dir).sort()).toEqual(['link.jsonl', 'log.jsonl']);
  });

  it('takes no lock for what is not a regular file (a terminal, a pipe, /dev/null)', () => {
    expect(lockForOneWriter('/dev/null', '--log', () => {})).toBeNull();
  });
});
