import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/profiles/config-lock.js';
import { CliError } from '../../src/errors/cli-error.js';
import { readConfigFile, updateConfigFile } from '../../src/profiles/config-file.js';
import { tempEnv } from './temp-env.js';

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

  it('takes over a lock whose owner on this host has died', () => {
    const { dir, lock } = lockPath();
    writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: hostname(), at: Date.now() }));
    expect(withFileLock(lock, () => 'ran', 1_000)).toBe('ran');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes over a lock older than the stale limit, whatever it holds', () => {
    const { lock } = lockPath();
    writeFileSync(lock, 'not json');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(withFileLock(lock, () => 'ran', 1_000)).toBe('ran');
  });

  it('waits for a live holder, then gives up with one line saying who holds it and what to do (exit 1)', () => {
    const { lock } = lockPath();
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }));
    let ran = false;
    let error: unknown;
    try {
      withFileLock(lock, () => (ran = true), 30);
    } catch (e) {
      error = e;
    }
    expect(ran).toBe(false);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ exitCode: 1, message: `the config file is locked by another fraudctl (pid ${process.pid}): nothing was changed` });
    expect((error as CliError).hint).toContain(`remove ${lock}`);
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
