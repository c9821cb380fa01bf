import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { CliError, ExitCode } from '../errors/cli-error.js';

/*
 * A lock around each read-modify-write of the config file, so that two fraudctl processes
 * changing it at once (`config set` in two terminals, `login` in a script) both keep their
 * change instead of the last write winning.
 *
 * Written here rather than taken from a package: proper-lockfile, the usual choice, is
 * asynchronous only when it has to wait (its lockSync refuses retries), has not been released
 * since 2021, and brings graceful-fs (which patches the global fs module) and signal-exit 3
 * (which patches process.emit); the config code is synchronous and loads on every command.
 * What is needed is small: an exclusive create (O_EXCL) of `config.json.lock` holding the
 * owner's pid, host and time; waiting in short sleeps; and taking over a stale lock — one whose
 * owner on this host is gone, or older than STALE_MS (the work under the lock is a read, a
 * write and an fsync: milliseconds).
 */

const STALE_MS = 10_000;
const DEFAULT_WAIT_MS = 10_000;

interface Owner {
  pid: number;
  host: string;
  at: number;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** A synchronous pause: the config code is synchronous, and nothing else runs meanwhile. */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function readOwner(path: string): { text: string; owner: Owner | null; ageMs: number } | null {
  try {
    const text = readFileSync(path, 'utf8');
    const ageMs = Date.now() - statSync(path).mtimeMs;
    let owner: Owner | null = null;
    try {
      const v = JSON.parse(text) as Partial<Owner>;
      if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.at === 'number') owner = v as Owner;
    } catch {
      // Empty or cut short: its creator died between open and write, or is writing it right now.
    }
    return { text, owner, ageMs };
  } catch {
    return null; // gone already
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(seen: { owner: Owner | null; ageMs: number }): boolean {
  if (seen.ageMs > STALE_MS) return true;
  return seen.owner !== null && seen.owner.host === hostname() && !alive(seen.owner.pid);
}

/**
 * Removes a stale lock, unless it was replaced meanwhile: moved aside first, then compared
 * with what was judged stale; a fresh lock moved by mistake is linked back (link fails rather
 * than overwrite if yet another process has taken the lock since).
 */
function removeStale(path: string, staleText: string): void {
  // node:crypto taken here, not imported (it costs every command that loads this file ~10 ms).
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else removed it
  }
  try {
    if (readFileSync(aside, 'utf8') !== staleText) linkSync(aside, path);
  } catch {
    // The lock was taken again meanwhile: that holder's lock stands.
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // Already gone.
    }
  }
}

/** Runs `work` holding the lock `path` (created with O_EXCL, mode 0600), waiting up to `waitMs` for another holder. */
export function withFileLock<T>(path: string, work: () => T, waitMs = DEFAULT_WAIT_MS): T {
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() } satisfies Owner);
  const deadline = Date.now() + waitMs;
  let pause = 5;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(path, 'wx', 0o600);
      writeSync(fd, mine);
      closeSync(fd);
      break;
    } catch (e) {
      if (fd !== undefined) closeSync(fd);
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new CliError(`cannot lock the config file (${path}): ${(e as NodeJS.ErrnoException).code ?? String(e)}`, ExitCode.FAILURE, 'check the permissions of its directory');
      }
    }
    const seen = readOwner(path);
    if (seen && isStale(seen)) {
      removeStale(path, seen.text);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = seen?.owner ? `another fraudctl (pid ${seen.owner.pid})` : 'another fraudctl';
      throw new CliError(`the config file is locked by ${who}: nothing was changed`, ExitCode.FAILURE, `try again; if no other fraudctl is running, remove ${path}`);
    }
    sleepSync(pause + Math.random() * pause);
    pause = Math.min(50, pause * 2);
  }
  try {
    return work();
  } finally {
    // Released only if still ours (it could have been taken over as stale by a very slow peer's view).
    const seen = readOwner(path);
    if (seen?.text === mine) {
      try {
        unlinkSync(path);
      } catch {
        // Already gone.
      }
    }
  }
}
