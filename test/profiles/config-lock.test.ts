import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/profiles/config-lock.js';
import { CliError } from '../../src/errors/cli-error.js';
import { readConfigFile, updateConfigFile } from '../../src/profiles/config-file.js';
import { tempEnv } from './temp-env.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';
import { shellCommand } from '../../src/render/shell-command.js';
import { notOnWindows, ON_WINDOWS, onWindows } from '../support/prerequisites.js';

/* The lock around each read-modify-write of the config file: exclusive, released, stale locks taken over. */

function lockPath(): { dir: string; lock: string } {
  const t = tempEnv();
  mkdirSync(t.configDir, { recursive: true });
  return { dir: t.configDir, lock: join(t.configDir, 'config.json.lock') };
}

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid!;
}

describe('withFileLock', () => {
  it('holds the lock file while the work runs, and removes it after, also when the work throws', () => {
    const { dir, lock } = lockPath();
    expect(withFileLock(lock, () => existsSync(lock))).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(() =>
      withFileLock(lock, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a lock held on another host cannot be checked: never taken, and the hint says which file to remove', () => {
    const { lock } = lockPath();
    writeFileSync(lock, JSON.stringify({ pid: 4242, host: 'elsewhere.example', at: Date.now() }));
    expect(() => withFileLock(lock, () => 'ran', 20)).toThrow(
      'the config file is locked by another fraudctl (pid 4242 on host elsewhere.example): nothing was changed',
    );
    try {
      withFileLock(lock, () => 'ran', 20);
    } catch (e) {
      expect((e as CliError).hint).toBe(`try again; if no fraudctl runs there any more: ${shellCommand(['rm', lock])}`);
    }
  });

  it.skipIf(process.platform !== 'linux' && !onWindows)(
    'held in another pid namespace: said so, not "pid 1"; never taken',
    () => {
      notOnWindows(ON_WINDOWS.pidNamespace);
      const { lock } = lockPath();
      const otherNamespace = `pid:[${Number(/\d+/.exec(readlinkSync('/proc/self/ns/pid'))![0]) + 1}]`;
      writeFileSync(lock, JSON.stringify({ pid: 1, host: hostname(), pidNs: otherNamespace }));
      expect(() => withFileLock(lock, () => 'ran', 20)).toThrow(
        expect.objectContaining({
          message:
            'the config file is locked by another fraudctl (pid 1 in another pid namespace, such as a container): ' +
            'nothing was changed',
          hint: `try again; if no fraudctl runs there any more: ${shellCommand(['rm', lock])}`,
        }),
      );
      expect(existsSync(lock)).toBe(true);
    },
  );

  it('takes over a lock whose owner on this host has died', () => {
    const { dir, lock } = lockPath();
    writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: hostname(), at: Date.now() }));
    expect(withFileLock(lock, () => 'ran', 1_000)).toBe('ran');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never takes a live holder’s lock because it is old (a slow fsync)', () => {
    const { lock } = lockPath();
    // Held for a minute by a process that is still running (this one's parent).
    const text = JSON.stringify({ pid: process.ppid, host: hostname(), at: Date.now() - 60_000 });
    writeFileSync(lock, text);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    let ran = false;
    expect(() => withFileLock(lock, () => (ran = true), 50)).toThrow(
      `the config file is locked by another fraudctl (pid ${process.ppid}): nothing was changed`,
    );
    expect(ran).toBe(false);
    expect(readFileSync(lock, 'utf8')).toBe(text);
  });

  it('waits on a monotonic clock: a wall clock stepped back does not make it wait for ever', () => {
    const { lock } = lockPath();
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: hostname(), at: Date.now() }));
    const realNow = Date.now.bind(Date);
    const t0 = realNow();
    let reads = 0;
    Date.now = () => {
      if (++reads > 100) throw new Error('still waiting after the clock stepped back');
      return t0 - reads * 1_000;
    };
    let error: unknown;
    try {
      withFileLock(lock, () => 'ran', 200);
    } catch (e) {
      error = e;
    } finally {
      Date.now = realNow;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toBe(
      `the config file is locked by another fraudctl (pid ${process.ppid}): nothing was changed`,
    );
  });

  describe.skipIf(!smallDisk.available)(`a full disk${smallDisk.skipReason}`, () => {
    let disk: SmallDisk | undefined;
    afterAll(() => disk?.remove());

    it('leaves no lock file behind, so the next change does not wait', () => {
      disk = smallDisk.mount(64 * 1024);
      disk.fill();
      const lock = join(disk.path, 'config.json.lock');
      expect(() => withFileLock(lock, () => 'ran')).toThrow(
        `cannot write the config file ${join(disk.path, 'config.json')}: cannot create its lock ${lock}: ` +
          'no space left on its disk (ENOSPC); nothing was changed',
      );
      expect(existsSync(lock)).toBe(false);
      disk.free();
      const started = performance.now();
      expect(withFileLock(lock, () => 'ran')).toBe('ran');
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  });

  it('waits for a live holder, then gives up with one line saying who holds it and what to do (exit 1)', () => {
    const { lock } = lockPath();
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: hostname(), at: Date.now() }));
    let ran = false;
    let error: unknown;
    try {
      withFileLock(lock, () => (ran = true), 30);
    } catch (e) {
      error = e;
    }
    expect(ran).toBe(false);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({
      exitCode: 1,
      message: `the config file is locked by another fraudctl (pid ${process.ppid}): nothing was changed`,
    });
    expect((error as CliError).hint).toBe('try again once it has finished (it has held the lock for more than 0.03 s)');
    expect(existsSync(lock)).toBe(true);
  });
});

describe('updateConfigFile', () => {
  it('reads, changes and writes under the lock; a change that returns false writes nothing', () => {
    const t = tempEnv();
    updateConfigFile(t.env, (file) => {
      file.profiles.a = { timeoutSeconds: 5 };
    });
    expect(readConfigFile(t.env).profiles.a).toEqual({ timeoutSeconds: 5 });
    updateConfigFile(t.env, (file) => {
      file.profiles.b = { retries: 1 };
      return false;
    });
    expect(readConfigFile(t.env).profiles.b).toBeUndefined();
    expect(readdirSync(t.configDir)).toEqual(['config.json']);
  });
});
