import { setTimeout as sleepFor } from 'node:timers/promises';
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { removeFileCommand } from '../render/shell-command.js';
import { fileWriteFailure, roleOfOption } from './file-errors.js';
import { writeFully } from './write-fully.js';

/*
 * One holder at a time for a file: the config file while it is changed (profiles/config-lock.ts),
 * a run's results file (--out) for the run's whole life, and an action log (--log) for each
 * line appended to it (src/action-log/action-log.ts: sessions share a log). The lock is
 * `FILE.lock` beside the file, created with O_EXCL (mode 0600; an action log's as its log, through
 * the umask) and holding who holds it: pid,
 * host, and on Linux the boot id, the pid namespace and the process's start time (field 22 of
 * /proc/PID/stat), so that a pid the system has given to another process since is not taken for
 * the holder.
 *
 * A lock is taken from its holder only when the holder is gone: same host (and namespace), and
 * no process with its pid (process.kill(pid, 0), which also works on Windows), or one started at
 * another time, or the machine rebooted since. Never by age: a live holder may be slow (an fsync
 * on a busy disk). A holder on another host cannot be checked and is never broken; the error
 * says which host and which file to remove. On Windows and macOS only the pid is checked (no
 * /proc): a pid reused by another process keeps the lock until that process ends.
 *
 * A lock file that names no holder (empty or cut short: its creator died between creating and
 * filling it, which takes microseconds) is taken over once it has stayed so for UNNAMED_GRACE_MS.
 * A creator that cannot fill it (a full disk) removes it, so it never stalls the next command.
 *
 * Released when the holder is done (also after an error, and at Ctrl-C, which ends commands
 * normally); a process that ends without releasing (`| head`'s exit) releases at 'exit'. Only
 * SIGKILL or a crash of the machine leave one behind, which the next run takes over, saying so.
 *
 * Written here rather than taken from a package: proper-lockfile, the usual choice, breaks
 * locks by age (its `stale` option), is asynchronous only, has not been released since 2021, and
 * brings graceful-fs (which patches the global fs module); Node has no flock(2), and an advisory
 * lock through a native addon would be a build dependency on every platform for a few lines.
 */

/** Who holds a lock, as its lock file says. */
export interface LockHolder {
  pid: number;
  host: string;
  /** Linux: /proc/sys/kernel/random/boot_id of the holder's boot. */
  boot?: string;
  /** Linux: the holder's pid namespace (`pid:[4026531836]`); pids of another namespace cannot be checked. */
  pidNs?: string;
  /** Linux: when the holder started, in clock ticks after boot. */
  start?: string;
  /** When it took the lock, for a person reading the file. */
  since?: string;
}

/** How long a lock file naming no holder is left to its creator before it is taken over. */
export const UNNAMED_GRACE_MS = 1_000;

/** The lock is held by someone else (or by this process already): nothing was done. */
export class LockBusyError extends Error {
  constructor(
    readonly lockPath: string,
    readonly holder: LockHolder | null,
    /**
     * 'self': this process holds it already; 'elsewhere': a holder on another host or pid
     * namespace, and 'unreadable': a lock file this user cannot read (another user's), neither of
     * which can be checked.
     */
    readonly kind: 'alive' | 'self' | 'elsewhere' | 'unreadable',
  ) {
    super(`${lockPath} is held${holder ? ` by pid ${holder.pid}` : ''}`);
    this.name = 'LockBusyError';
  }
}

export interface HeldLock {
  /** The lock file. */
  readonly path: string;
  /** Removes the lock file if it is still this holder's. Safe to call more than once. */
  release(): void;
}

export interface LockOptions {
  /** How long to wait for a live holder, in ms (0: refuse at once). Measured on a monotonic clock. */
  waitMs?: number;
  /** Told when a lock left by a holder that is gone is taken over (null: it named no holder). */
  onTakeover?: (holder: LockHolder | null) => void;
  /**
   * The lock file's mode, before the umask: 0600 (this user's) unless given. A file that a team
   * shares (an action log) gives 0666, as its file has, so that a colleague can read who holds
   * the lock (and wait for it) instead of finding a lock nobody else can read.
   */
  mode?: number;
}

function readOr<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/PID/stat, the start time; undefined off Linux or when there is no such process. */
function startTimeOf(pid: number): string | undefined {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (stat === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[22 - 3];
}

let selfValue: LockHolder | undefined;
function self(): LockHolder {
  selfValue ??= {
    pid: process.pid,
    host: hostname(),
    ...optional(
      'boot',
      readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    ),
    ...optional(
      'pidNs',
      readOr(() => readlinkSync('/proc/self/ns/pid')),
    ),
    ...optional('start', startTimeOf(process.pid)),
  };
  return selfValue;
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined || value === '' ? {} : ({ [key]: value } as Record<K, string>);
}

/** The holder a lock file names, or null when it names none (empty, cut short, not ours). */
export function parseHolder(text: string): LockHolder | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  // A pid of 0 or below would make kill(2) signal a process group: such a file names no holder.
  if (!Number.isSafeInteger(v.pid) || (v.pid as number) <= 0 || typeof v.host !== 'string') return null;
  const text_ = (key: string) => (typeof v[key] === 'string' ? (v[key] as string) : undefined);
  return {
    pid: v.pid as number,
    host: v.host,
    ...optional('boot', text_('boot')),
    ...optional('pidNs', text_('pidNs')),
    ...optional('start', text_('start')),
    ...optional('since', text_('since')),
  };
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, and belongs to another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the holder still runs: 'gone' only when that is certain. */
export function holderState(holder: LockHolder): 'alive' | 'gone' | 'elsewhere' {
  const me = self();
  if (holder.host !== me.host) return 'elsewhere';
  if (holder.pidNs !== undefined && me.pidNs !== undefined && holder.pidNs !== me.pidNs) return 'elsewhere';
  if (holder.boot !== undefined && me.boot !== undefined && holder.boot !== me.boot) return 'gone';
  // This process's own pid in a lock it does not hold (acquireLock checks that first): an earlier process's.
  if (holder.pid === me.pid) return 'gone';
  if (!processExists(holder.pid)) return 'gone';
  if (holder.start !== undefined) {
    const start = startTimeOf(holder.pid);
    if (start !== undefined && start !== holder.start) return 'gone';
  }
  return 'alive';
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/*
 * The clock a synchronous wait is measured (monotonic) and spent on: a synchronous pause, as the
 * lock is taken by synchronous code (the config file's), and waits are short. A test replaces it
 * to see a 10 s wait for a live holder run its course without spending the 10 s.
 */
export const lockClock = {
  now: (): number => performance.now(),
  sleepSync: (ms: number): void => void Atomics.wait(sleeper, 0, 0, ms),
};

/** Creates the lock file holding `text`; false when it exists. A lock file that cannot be filled is removed. */
function tryCreate(path: string, text: string, mode: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeFully(fd, text);
    closeSync(fd);
    return true;
  } catch (e) {
    // A full disk: an empty lock file left here would hold up the next command.
    readOr(() => closeSync(fd));
    readOr(() => unlinkSync(path));
    throw e;
  }
}

/**
 * Removes a lock judged stale, unless it was replaced meanwhile: moved aside first, then
 * compared with what was judged stale; a fresh lock moved by mistake is linked back (link fails
 * rather than overwrite if yet another process has taken the lock since). True when removed.
 */
function removeStale(path: string, staleText: string): boolean {
  // node:crypto taken here, not imported: every command loads this file (docs/decisions/node-crypto-where-used.md).
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false; // someone else removed it
    throw e; // a directory this process cannot change: waiting would not help
  }
  let removed = true;
  try {
    if (readFileSync(aside, 'utf8') !== staleText) {
      removed = false;
      linkSync(aside, path);
    }
  } catch {
    // The lock was taken again meanwhile: that holder's lock stands.
  } finally {
    readOr(() => unlinkSync(aside));
  }
  return removed;
}

const held = new Map<string, string>();
let releaseAtExit = false;

function release(path: string): void {
  const mine = held.get(path);
  if (mine === undefined) return;
  held.delete(path);
  // Removed only if still ours.
  if (readOr(() => readFileSync(path, 'utf8')) === mine) readOr(() => unlinkSync(path));
}

/**
 * Takes the lock `lockPath` (see above), waiting up to `waitMs` for a live holder. Throws
 * LockBusyError when it stays held, or the error of creating the lock file (EACCES, ENOENT, …).
 * Waits block the thread: for synchronous callers (the config file's lock).
 */
export function acquireLock(lockPath: string, options: LockOptions = {}): HeldLock {
  const attempts = lockAttempts(lockPath, options);
  for (let step = attempts.next(); ; step = attempts.next()) {
    if (step.done) return step.value;
    lockClock.sleepSync(step.value);
  }
}

/**
 * acquireLock whose waits leave the event loop running: for a lock taken while a screen is
 * drawn or requests are in flight (the action log's, taken at every append).
 */
export async function acquireLockAsync(lockPath: string, options: LockOptions = {}): Promise<HeldLock> {
  const attempts = lockAttempts(lockPath, options);
  for (let step = attempts.next(); ; step = attempts.next()) {
    if (step.done) return step.value;
    await sleepFor(step.value);
  }
}

/** The attempts to take a lock: yields each pause (ms) to wait before the next, returns the lock taken. */
function* lockAttempts(lockPath: string, options: LockOptions): Generator<number, HeldLock, void> {
  const mine = JSON.stringify({ ...self(), since: new Date().toISOString() } satisfies LockHolder);
  // A monotonic clock: a wall clock stepped back would make the wait endless.
  const deadline = lockClock.now() + (options.waitMs ?? 0);
  let unnamedSince: number | null = null;
  let pause = 5;
  if (held.has(lockPath)) throw new LockBusyError(lockPath, self(), 'self');
  for (;;) {
    if (tryCreate(lockPath, mine, options.mode ?? 0o600)) break;
    let text: string;
    try {
      text = readFileSync(lockPath, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
      // Another user's lock (mode 0600, or a umask that keeps others out): its holder cannot be
      // checked, and is never broken.
      if (lockClock.now() >= deadline) throw new LockBusyError(lockPath, null, 'unreadable');
      yield pause;
      pause = Math.min(50, pause * 2);
      continue;
    }
    const holder = parseHolder(text);
    const now = lockClock.now();
    if (holder === null) {
      unnamedSince ??= now;
      if (now - unnamedSince >= UNNAMED_GRACE_MS) {
        if (removeStale(lockPath, text)) options.onTakeover?.(null);
        unnamedSince = null;
        continue;
      }
    } else {
      unnamedSince = null;
      const state = holderState(holder);
      if (state === 'gone') {
        if (removeStale(lockPath, text)) options.onTakeover?.(holder);
        continue;
      }
      if (now >= deadline) throw new LockBusyError(lockPath, holder, state);
    }
    yield pause + Math.random() * pause;
    pause = Math.min(50, pause * 2);
  }
  held.set(lockPath, mine);
  if (!releaseAtExit) {
    releaseAtExit = true;
    // A process that ends without its finally blocks (process.exit after stdout closed) still releases.
    process.once('exit', () => {
      for (const path of [...held.keys()]) release(path);
    });
  }
  return { path: lockPath, release: () => release(lockPath) };
}

/** The lock file of `path`: beside the file a symlink leads to, so two names of one file share one lock. */
export function lockPathOf(path: string): string {
  const real =
    readOr(() => realpathSync(path)) ?? readOr(() => join(realpathSync(dirname(path)), basename(path))) ?? path;
  return `${real}.lock`;
}

/**
 * The holder in words: `pid 4242`, or `pid 4242 on host web-2` when it is on another host, or
 * `pid 1 in another pid namespace, such as a container` when it is on this host but its pid is of
 * another namespace: "pid 1" alone would name this namespace's init, which holds no lock.
 */
export function holderWords(holder: LockHolder | null): string {
  if (holder === null) return 'another process';
  const me = self();
  if (holder.host !== me.host) return `pid ${holder.pid} on host ${holder.host}`;
  const otherNamespace = holder.pidNs !== undefined && me.pidNs !== undefined && holder.pidNs !== me.pidNs;
  if (otherNamespace) return `pid ${holder.pid} in another pid namespace, such as a container`;
  return `pid ${holder.pid}`;
}

/**
 * Makes this run the one writer of `path` (a results file, an action log) until release():
 * throws a UsageError (exit 2) naming the file and the holder when another run writes it.
 * Returns null for a file that is not a regular file (a terminal, a pipe, /dev/null): those have
 * no single record to keep whole. `note` says on stderr when a dead run's lock is taken over.
 */
export function lockForOneWriter(path: string, option: string, note: (line: string) => void): HeldLock | null {
  const stat = readOr(() => statSync(path));
  if (stat !== undefined && !stat.isFile()) return null;
  const lockPath = lockPathOf(path);
  try {
    return acquireLock(lockPath, {
      onTakeover: (holder) =>
        note(
          `note: ${lockPath} was left by a fraudctl run that is no longer running (${holder ? `pid ${holder.pid}` : 'it names no process'}): taking it over\n`,
        ),
    });
  } catch (e) {
    if (e instanceof LockBusyError) {
      if (e.kind === 'self')
        throw new UsageError(`${path} is given to this command twice: give ${option} a file of its own`);
      const words = `${path} is being written by another fraudctl run (${holderWords(e.holder)}): one run at a time may write it, and this one did nothing`;
      if (e.kind === 'elsewhere')
        throw new UsageError(words, `if no fraudctl runs there any more: ${removeFileCommand(lockPath)}`);
      if (e.kind === 'unreadable')
        throw new UsageError(
          `${path} is being written by another user's fraudctl run (its lock ${lockPath} cannot be read): this run did nothing`,
          `if no fraudctl of another user writes it: ${removeFileCommand(lockPath)}`,
        );
      throw new UsageError(words);
    }
    const code = (e as NodeJS.ErrnoException).code;
    // The lock is made beside the file: a missing directory is the file's, any other cause named with the lock.
    const { message, hint } = fileWriteFailure(path, e, roleOfOption(option), {
      option,
      at: dirname(lockPath),
      ...(code === 'ENOENT' ? {} : { doing: `cannot create its lock ${lockPath}` }),
    });
    const full = code === 'ENOSPC' || code === 'EDQUOT';
    throw new CliError(message, full ? ExitCode.FAILURE : ExitCode.USAGE, hint);
  }
}
