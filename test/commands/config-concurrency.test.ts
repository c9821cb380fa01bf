import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockClock } from '../../src/files/exclusive-lock.js';
import { cliEnv, runCli } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { tempDir } from '../support/sandbox.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';
import { afterAll } from 'vitest';

/*
 * Concurrent `config set` processes each keep their change (the file is
 * changed under a lock), where the last write used to win. Ten pairs, each pair started at
 * once, so that a lost update cannot hide behind lucky timing.
 */

const tmp = tempDir('fraudctl-config-race-');
afterAll(() => tmp.remove());
const env = cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, 'config') });

describe('two config set processes at once', () => {
  it('both values end up in the file, for each of ten pairs', async () => {
    for (let i = 0; i < 10; i++) {
      // The profile is made first: only a base-url creates one (a timeout for a new name is refused as a typo).
      // Nothing races it, so it needs no process of its own.
      const made = await runInProcess(
        ['config', 'set', 'base-url', `https://race-${i}.example.com`, '--profile', `race-${i}`],
        env,
      );
      expect(made.code, made.stderr).toBe(0);
      const [a, b] = await Promise.all([
        runCli(['config', 'set', 'timeout', String(10 + i), '--profile', `race-${i}`], { env }),
        runCli(['config', 'set', 'retries', String(i % 5), '--profile', `race-${i}`], { env }),
      ]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
    }
    const file = JSON.parse(readFileSync(join(tmp.dir, 'config', 'fraudctl', 'config.json'), 'utf8')) as {
      profiles: Record<string, unknown>;
    };
    for (let i = 0; i < 10; i++)
      expect(file.profiles[`race-${i}`]).toEqual({
        baseUrl: `https://race-${i}.example.com`,
        timeoutSeconds: 10 + i,
        retries: i % 5,
      });
  }, 60_000);
});

/*
 * One config file shared by two config directories, each config.json a symlink to it (a
 * dotfiles checkout used by two XDG_CONFIG_HOMEs): the lock is beside the file the links name,
 * so writers through either link take the same lock and no profile is lost.
 */
describe('one config file linked from two config directories', () => {
  it('forty config set processes, eight at a time through either link: every profile is kept', async () => {
    notOnWindows(ON_WINDOWS.symlink);
    const shared = join(tmp.dir, 'dotfiles', 'fraudctl.json');
    mkdirSync(join(tmp.dir, 'dotfiles'), { recursive: true, mode: 0o700 });
    writeFileSync(shared, '{"profiles": {}}\n', { mode: 0o600 });
    const envs = ['a', 'b'].map((side) => {
      mkdirSync(join(tmp.dir, `linked-${side}`, 'fraudctl'), { recursive: true, mode: 0o700 });
      symlinkSync(shared, join(tmp.dir, `linked-${side}`, 'fraudctl', 'config.json'));
      return cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, `linked-${side}`) });
    });
    const names = Array.from({ length: 40 }, (_, i) => `linked-${i}`);
    for (let i = 0; i < names.length; i += 8) {
      const set = (name: string, j: number) =>
        runCli(['config', 'set', 'base-url', `https://${name}.example.com`, '--profile', name], { env: envs[j % 2]! });
      const results = await Promise.all(names.slice(i, i + 8).map(set));
      for (const r of results) expect(r.code, r.stderr).toBe(0);
    }
    const file = JSON.parse(readFileSync(shared, 'utf8')) as { profiles: Record<string, unknown> };
    expect(Object.keys(file.profiles).sort()).toEqual([...names].sort());
    expect(existsSync(`${shared}.lock`)).toBe(false);
  }, 60_000);
});

/*
 * The lock is taken from its holder only when the holder is gone, at
 * once, and never because it has held the lock long (a slow fsync on a busy disk): a live
 * holder's change and this one's would both be lost otherwise. The holder is a live process;
 * `config set` runs in-process on a lock clock of the test's (lockClock), so that its 10 s wait
 * runs its course, pause by pause, without spending 10 s of the suite.
 */
describe('config set while another process holds the config lock', () => {
  it('a live holder is never broken: waits 10 s, then says which pid holds it and changes nothing; once the holder is gone, the lock is taken at once', async () => {
    const configFile = join(tmp.dir, 'config', 'fraudctl', 'config.json');
    const lock = `${configFile}.lock`;
    const made = await runInProcess(
      ['config', 'set', 'base-url', 'https://held.example.com', '--profile', 'held'],
      env,
    );
    expect(made.code, made.stderr).toBe(0);
    const before = readFileSync(configFile);
    // A process that is alive, holding the lock for a minute already.
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
    const real = { ...lockClock };
    let clock = 0;
    let pauses = 0;
    try {
      const text = JSON.stringify({
        pid: holder.pid,
        host: hostname(),
        since: new Date(Date.now() - 60_000).toISOString(),
      });
      writeFileSync(lock, text, { mode: 0o600 });
      const old = new Date(Date.now() - 60_000);
      utimesSync(lock, old, old);

      lockClock.now = () => clock;
      lockClock.sleepSync = (ms) => {
        pauses++;
        clock += ms;
      };
      const waited = await runInProcess(['config', 'set', 'timeout', '9', '--profile', 'held'], env);
      Object.assign(lockClock, real);
      expect(waited.code, waited.stderr).toBe(1);
      expect(waited.stderr.split('\n')[0]).toBe(
        `error: the config file is locked by another fraudctl (pid ${holder.pid}): nothing was changed`,
      );
      // It waited the 10 s, looking again all along (pauses of at most 0.1 s), before giving up.
      expect(clock).toBeGreaterThanOrEqual(10_000);
      expect(pauses).toBeGreaterThanOrEqual(100);
      expect(readFileSync(configFile)).toEqual(before);
      expect(readFileSync(lock, 'utf8')).toBe(text);
    } finally {
      Object.assign(lockClock, real);
      holder.kill('SIGKILL');
      if (holder.exitCode === null && holder.signalCode === null) await once(holder, 'exit');
    }

    // The holder is gone: its lock is taken at once, by a process as a user would run it.
    const started = performance.now();
    const after = await runCli(['config', 'set', 'timeout', '9', '--profile', 'held'], { env });
    expect(after.code, after.stderr).toBe(0);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toMatchObject({ profiles: { held: { timeoutSeconds: 9 } } });
    expect(existsSync(lock)).toBe(false);
  }, 45_000);
});

describe.skipIf(!smallDisk.available)(`config set on a full disk${smallDisk.skipReason}`, () => {
  let disk: SmallDisk | undefined;
  afterAll(() => disk?.remove());

  it('fails saying the disk is full, and once space is freed the next change goes through at once (no lock left behind to wait out)', async () => {
    disk = smallDisk.mount(256 * 1024);
    const diskEnv = cliEnv({ HOME: disk.path, XDG_CONFIG_HOME: disk.path });
    expect(
      (await runCli(['config', 'set', 'base-url', 'https://full.example.com', '--profile', 'full'], { env: diskEnv }))
        .code,
    ).toBe(0);
    disk.fill();
    const full = await runCli(['config', 'set', 'timeout', '6', '--profile', 'full'], { env: diskEnv });
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/^error: .*ENOSPC/m);
    expect(existsSync(join(disk.path, 'fraudctl', 'config.json.lock'))).toBe(false);
    disk.free();
    const started = performance.now();
    const next = await runCli(['config', 'set', 'timeout', '7', '--profile', 'full'], { env: diskEnv });
    expect(next.code, next.stderr).toBe(0);
    expect(performance.now() - started).toBeLessThan(5_000);
  }, 30_000);
});
