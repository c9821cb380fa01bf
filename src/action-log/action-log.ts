import { closeSync, constants, existsSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { FileWriteError, LineAppender, pathNames, StreamLineWriter } from '../files/append-line.js';
import { acquireLockAsync, holderWords, lockPathOf, LockBusyError, type HeldLock } from '../files/exclusive-lock.js';
import { errorCode, fileCause, fileErrorHint, fileWriteFailure } from '../files/file-errors.js';
import { removeFileCommand, shellCommand } from '../render/shell-command.js';
import { jsonForTerminal } from '../render/terminal-text.js';
import {
  chainFields,
  chainPointAfter,
  ChainWalker,
  checkSeal,
  GENESIS,
  lineHash,
  sealLine,
  type ChainBreak,
} from './log-chain.js';

/*
 * `--log FILE` of `review` and of `set-state`: one JSON line per action, appended as it happens,
 * so a supervisor can audit a session. Every line says who, where and which build (the session's
 * LogContext, given once when the log is opened: the analyst, host, profile, service URL — never
 * the key —, fraudctl version and a session id), carries its place in the file's hash chain
 * (`line`, `prev`) and ends with its own hash (`hash`: log-chain.ts), which `fraudctl log verify`
 * checks (verify-log.ts).
 *
 * Several sessions may append to one log (a team sharing a file): each line is appended under
 * the file's lock (FILE.lock, src/files/exclusive-lock.ts), taken for that append only — take it,
 * read and check the last line, append, release — so the chain stays one whole chain whoever
 * wrote the line before. The file is created as `touch` would (0666 less the umask: a team's
 * umask 002 in a setgid directory makes it the group's), its lock too; it is opened write-only
 * for append (O_APPEND) and read through a second descriptor, each line is written whole or not at
 * all (a line the disk took only part of is cut back: src/files/append-line.ts), and a file deleted
 * while open is noticed before the next line. A file renamed while open (logrotate's `create`) is
 * followed: the next line goes to a file at the path again (made anew when rotation left none).
 * Lines are written in the order the actions happened.
 *
 * Never chained from a line not verified: before each append the last line is checked — its own
 * hash (checkSeal), and that it is a log line — and a log whose last line fails is refused (the
 * change is not sent): chaining from it would launder the edit, since the next line's `prev`
 * would then vouch for the edited text. A last line without a hash of its own (a log an older
 * fraudctl wrote) cannot vouch for itself: the whole file is walked once (ChainWalker) and refused
 * if any line breaks the chain (its unchained first lines, written before fraudctl chained, aside).
 * That last old line itself stays as trustworthy as it was before (only a hash kept elsewhere
 * proves it: SECURITY.md); from the first sealed line on, every line is. An unsealed line after
 * sealed ones (an older fraudctl appending to the shared log, or an edit that took the hash out)
 * is a break like any other, and refused.
 *
 * Continuity: a log that became shorter under this session (logrotate's `copytruncate`, which
 * copies the file and cuts it to 0, losing what is appended in between; or lines cut off the
 * end) or that it followed to a new file after a rename, gets on the first line this session
 * writes after it `continues: {line, hash}`: the last line this session knew, and the hash of its
 * whole bytes, so that `fraudctl log verify OLD NEW` can check the join, and a line lost between
 * copy and cut shows as a gap. The session says so once on stderr.
 *
 * What an auditor needs is that nothing was done to an event that the log does not show. So a
 * change is logged before it is sent, not only after: a line with `outcome: "sending"` goes
 * first, and the request is sent only once that line is on disk; the line of its outcome (`ok`,
 * `refused`, `failed`) follows when the answer comes. A change whose first line cannot be
 * written is not sent, and the session or run stops there (review ends after giving its claims
 * back; set-state stops as on a results file it cannot write). A `sending` line with no outcome
 * after it means the session ended before the answer was known (a crash, or the log failing
 * then): the event's own state tells whether the change landed. The one action taken when its
 * line cannot be written is giving a claim back when a session ends, because leaving an event
 * IN_REVIEW under nobody is worse: the session's summary lists those events.
 *
 * A FIFO, a pipe, a terminal or /dev/null is opened write-only and non-blocking, never for
 * reading too (which made this process the FIFO's reader: lines vanished, and past the pipe's
 * 64 KB a write blocked the process beyond SIGTERM's reach): a FIFO nobody reads is refused at
 * open (ENXIO), a reader that falls behind is waited for without blocking (StreamLineWriter), and
 * one that goes away (EPIPE) fails the next line, so the change is not sent. Those have no
 * record to keep whole, no lock and nothing to read back: their chain is this session's lines.
 */

/** One action on one event, as the log records it (no API key can be in any field). */
export interface LogEntry {
  eventId: string;
  /** What was done: the review queue's claim, release, skip and decisions; `set-state`, a change by `fraudctl set-state` for many events. */
  action: 'claim' | 'release' | 'approve' | 'decline' | 'escalate' | 'fraud' | 'comment' | 'skip' | 'set-state';
  from: string | null;
  to: string | null;
  comments: string | null;
  requestId: string | null;
  /** sending: written before the request (see above); then its outcome: ok, refused (4xx), failed (5xx, network), conflict (not sent: the event had changed). */
  outcome: 'sending' | 'ok' | 'refused' | 'failed' | 'conflict';
  status: number | null;
  message?: string;
  /** The reason code of the change (`set-state --reason`), written as the line's `reason`; absent: null. */
  reason?: string | null;
}

/** Who acts, where, with which build: the same on every line of a session (log-context.ts builds it). */
export interface LogContext {
  /** `config set analyst` of the profile, else the OS user: declared, not authenticated. */
  analyst: string;
  host: string;
  /** The profile in force; `(--base-url)` or `(FRAUDCTL_BASE_URL)` when the service URL came from there instead. */
  profile: string;
  /** The service's base URL (never the key); null for the embedded sandbox. */
  service: string | null;
  /** fraudctl's version. */
  version: string;
  /** Random per run (a UUID): tells apart two sessions of one analyst. */
  session: string;
}

export interface SessionLog {
  readonly path: string;
  append(entry: LogEntry): Promise<void>;
  close(): Promise<void>;
}

/** A line of another file that this session's writer last knew: recorded as the line's `continues`. */
export interface Continuity {
  line: number;
  hash: string;
}

/**
 * The line for an entry: `time`, the session's context, the entry's fields, `reason` (the code,
 * or null), `continues` when there is one, then its place in the chain (`line`, `prev`), sealed
 * with its own `hash` (sealLine). No API key is in any field.
 */
export function logLine(
  entry: LogEntry,
  now: Date,
  context: LogContext,
  chain: { line: number; prev: string; continues?: Continuity | null },
): string {
  const { reason = null, ...rest } = entry;
  const continues = chain.continues ? { continues: { line: chain.continues.line, hash: chain.continues.hash } } : {};
  const place = { line: chain.line, prev: chain.prev };
  const fields = { time: now.toISOString(), ...context, ...rest, reason, ...continues, ...place };
  // jsonForTerminal: a `cat` of the log on a terminal shows bidi controls escaped too.
  return `${sealLine(jsonForTerminal(fields, false))}\n`;
}

/**
 * How long an append waits for another session's append to the same log (each holds the lock for
 * microseconds), or for a FIFO's reader.
 */
const APPEND_WAIT_MS = 10_000;

/** Created as `touch` creates a file: what the umask leaves of 0666 (a team's umask 002 lets its group write it). */
const SHARED_FILE_MODE = 0o666;

// O_NONBLOCK: a FIFO nobody reads fails the open (ENXIO) instead of hanging it, and a full pipe
// fails a write (EAGAIN) instead of blocking the thread. No effect on a regular file; none on Windows.
const WRITE_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0);

/** A line that cannot be written to the log, or the log that cannot be: a FileWriteError naming it as the log. */
function logWriteError(path: string, code: string, reason: string, hint?: string): FileWriteError {
  return new FileWriteError(path, code, reason, undefined, hint, 'log');
}

/** The lock of one append: a failure is the log's (a FileWriteError naming it), so the change is not sent. */
async function lockForAppend(path: string, lockPath: string, note: (line: string) => void): Promise<HeldLock> {
  try {
    // Waits leave the event loop running: a review screen stays drawn while another analyst appends.
    return await acquireLockAsync(lockPath, {
      waitMs: APPEND_WAIT_MS,
      mode: SHARED_FILE_MODE,
      onTakeover: (holder) =>
        note(
          `note: ${lockPath} was left by a fraudctl run that is no longer running (${holder ? `pid ${holder.pid}` : 'it names no process'}): taking it over\n`,
        ),
    });
  } catch (e) {
    if (e instanceof LockBusyError) {
      if (e.kind === 'self')
        throw new UsageError(`${path} is given to this command twice: give --log a file of its own`);
      throw logWriteError(
        path,
        'LOCKED',
        `its lock ${lockPath} was held by ${holderWords(e.holder)} for more than ${APPEND_WAIT_MS / 1000} s`,
      );
    }
    throw logWriteError(path, errorCode(e), `cannot create its lock ${lockPath}: ${fileCause(e, true)}`);
  }
}

/** The log as open: the descriptor lines are written to, and for a regular file one to read its last line through. */
interface OpenLog {
  write: number;
  read: number | null;
  stat: Stats;
}

function closeQuietly(fd: number | null): void {
  if (fd === null) return;
  try {
    closeSync(fd);
  } catch {
    // Closing what was only read or has failed: nothing to report.
  }
}

/**
 * Opens `path` write-only for append (creating it), and when it is a regular file opens it again
 * for reading: the same file, checked by device and inode (a rename in between is tried again).
 * Throws what open(2) throws.
 */
function openLog(path: string): OpenLog {
  for (let attempt = 0; ; attempt++) {
    const write = openSync(path, WRITE_FLAGS, SHARED_FILE_MODE);
    let read: number | null = null;
    try {
      const stat = fstatSync(write);
      if (!stat.isFile()) return { write, read: null, stat };
      read = openSync(path, constants.O_RDONLY);
      const seen = fstatSync(read);
      if (seen.dev === stat.dev && seen.ino === stat.ino) return { write, read, stat };
      if (attempt >= 2) throw Object.assign(new Error('the file at the path keeps changing'), { code: 'EAGAIN' });
    } catch (error) {
      closeQuietly(read);
      closeQuietly(write);
      throw error;
    }
    closeQuietly(read);
    closeQuietly(write);
  }
}

/**
 * The open failure in the words every file gets (file-errors.ts), with a hint that fits it: the
 * file's mode and owner for a file that is there, the directory's for one that is not.
 */
function openFailure(path: string, error: unknown): CliError {
  const code = errorCode(error);
  if (code === 'ENXIO') {
    return new UsageError(
      `cannot write the log ${path}: it is a FIFO that nobody reads (ENXIO), so its lines would reach nobody`,
      'start the program that reads it first, then run this again',
    );
  }
  const { message, hint } = fileWriteFailure(path, error, 'log', { option: '--log' });
  // A colleague who may not write a team's log is told where the group's rights are said.
  const theirs = (code === 'EACCES' || code === 'EPERM') && existsSync(path);
  return new UsageError(message, theirs ? `${hint}; a team's log is its group's (fraudctl help log)` : hint);
}

/** A log whose last line cannot be chained from: refused, naming the line, with what to do. */
export class LogNotIntactError extends FileWriteError {
  constructor(
    path: string,
    /** What is wrong, naming the line: "line 52 was edited after it was written (…)". */
    readonly problem: string,
  ) {
    const reason = `it is not intact: ${problem}; nothing is chained to it (${verifyHint(path)})`;
    super(path, 'NOT_INTACT', reason, undefined, verifyHint(path), 'log');
    this.name = 'LogNotIntactError';
  }
}

function verifyHint(path: string): string {
  return `see what changed: ${shellCommand(['fraudctl', 'log', 'verify', path])}; to go on, give --log a new file`;
}

/** What this session knows of the file it writes: where its last line was, and what that line was. */
interface Known {
  dev: number;
  ino: number;
  /** The file's length after that line. */
  size: number;
  line: number;
  /** That line's hash (whole bytes): what `continues` names. */
  hash: string;
}

export interface SessionLogOptions {
  /** Aborted: a wait for a FIFO's reader ends at once (a bulk run's second Ctrl-C). */
  signal?: AbortSignal;
}

/**
 * Opens the log for this session's lines, each saying `context`. Exit 2 when it cannot be
 * opened or its lock cannot be made, exit 1 when its last line cannot be chained from (tried
 * here, so that nothing is sent first); `note` says on stderr when a dead run's lock is taken
 * over, a rename is followed or a file became shorter.
 */
export async function openSessionLog(
  path: string,
  context: LogContext,
  note: (line: string) => void = () => {},
  now: () => Date = () => new Date(),
  options: SessionLogOptions = {},
): Promise<SessionLog> {
  let file: OpenLog;
  try {
    file = openLog(path);
  } catch (e) {
    throw openFailure(path, e);
  }
  const regular = file.read !== null;
  const lockPath = regular ? lockPathOf(path) : null;
  let lines: LineAppender | StreamLineWriter = regular
    ? new LineAppender(file.write, path, 0, process.platform, 'log')
    : new StreamLineWriter(file.write, path, APPEND_WAIT_MS, options.signal, 'log');
  let next: { line: number; prev: string } = { line: 1, prev: GENESIS };
  let known: Known | null = null;
  /** The open file (device, inode) is known to hold sealed lines: an unsealed line after them is a break. */
  let sealedSeen = false;
  /** The file as last walked whole (unsealed last line): not walked again while it is unchanged. */
  let walked: { dev: number; ino: number; size: number; prev: string } | null = null;
  /** A rename was followed since `known`: the next line records the old file's last line. */
  let followed = false;

  /** Under the lock: when the path no longer names the open file (renamed away), the file at the path from now on. */
  function followRename(): void {
    let opened;
    let atPath;
    try {
      opened = fstatSync(file.write);
      atPath = pathNames(path, opened);
    } catch {
      return; // cannot look: the open file stays the log, and the append says what is wrong with it
    }
    if (atPath === 'same') return;
    // Deleted, not renamed: the append refuses it. On Windows a path that names nothing may be
    // either (the link count cannot be trusted there: append-line.ts), and a deletion must stop
    // the session, so only a new file at the path is followed.
    if (atPath === 'gone' && (opened.nlink === 0 || process.platform === 'win32')) return;
    let fresh: OpenLog;
    try {
      fresh = openLog(path);
    } catch (error) {
      throw logWriteError(
        path,
        errorCode(error),
        `it was renamed while open, and a new one cannot be opened: ${fileCause(error, true)}`,
      );
    }
    if (fresh.read === null) {
      closeQuietly(fresh.write);
      const words = 'it was renamed while open, and what is at its path now is not a regular file';
      throw logWriteError(path, 'ENOTREG', words);
    }
    closeQuietly(file.read);
    closeQuietly(file.write);
    file = fresh;
    lines = new LineAppender(file.write, path, 0, process.platform, 'log');
    sealedSeen = false;
    followed = known !== null;
    note(
      `note: ${path} was renamed while this session wrote to it (rotated?): its next lines go to a new ${path}, ` +
        "whose first line from this session names the old file's last line (continues)\n",
    );
  }

  /**
   * Under the lock: the point to chain the next line from, after checking the line it chains
   * from (see above); throws LogNotIntactError when that line cannot be chained from.
   */
  function checkedPoint(stat: Stats): ReturnType<typeof chainPointAfter> {
    let point;
    try {
      point = chainPointAfter(file.read as number, stat.size);
    } catch (error) {
      throw logWriteError(path, errorCode(error), fileCause(error, true));
    }
    if (point.last === null) return point;
    const place = point.line - 1;
    const seal = checkSeal(point.last);
    const fields = chainFields(point.last);
    const refuse = (problem: string) => new LogNotIntactError(path, `line ${place} ${problem}`);
    if (seal === 'broken') throw refuse('was edited after it was written (its own hash does not match its text)');
    if (fields === 'bad') throw refuse('is not a whole log line (cut short, or edited)');
    if (seal === 'sealed') {
      if (fields === null || fields.line <= 0) throw refuse('is not a log line (it has no line number)');
      sealedSeen = true;
      return point;
    }
    if (sealedSeen) {
      throw refuse('carries no hash of its own after lines that do (inserted, or written by an older fraudctl)');
    }
    const unchanged =
      walked?.dev === stat.dev && walked.ino === stat.ino && walked.size === stat.size && walked.prev === point.prev;
    if (!unchanged) {
      const found = walkWhole(file.read as number, stat.size);
      if (found !== null) throw new LogNotIntactError(path, found.problem);
      walked = { dev: stat.dev, ino: stat.ino, size: stat.size, prev: point.prev };
    }
    return point;
  }

  /**
   * Whether the file no longer ends with what this session knew: cut short (copytruncate, lines
   * removed) or a rename followed.
   */
  function continuity(stat: Stats, point: { line: number; prev: string }): Continuity | null {
    if (known === null) return null;
    if (followed) return { line: known.line, hash: known.hash };
    if (stat.dev !== known.dev || stat.ino !== known.ino) return null;
    const lastLine = point.line - 1;
    const same = lastLine === known.line && point.prev === known.hash;
    if (same || (stat.size >= known.size && lastLine >= known.line)) return null;
    note(
      `note: ${path} is shorter than when this session last wrote it (line ${known.line}): rotated by copytruncate, ` +
        'or cut; its next line names the line this session knew (continues)\n',
    );
    return { line: known.line, hash: known.hash };
  }

  /** One append under the file's lock: the last line checked, the line written whole, the lock released. */
  async function appendNow(entry: LogEntry): Promise<void> {
    const lock = lockPath === null ? null : await lockForAppend(path, lockPath, note);
    try {
      if (lines instanceof StreamLineWriter) {
        const text = logLine(entry, now(), context, next);
        await lines.append(text);
        next = { line: next.line + 1, prev: lineHash(Buffer.from(text.slice(0, -1), 'utf8')) };
        return;
      }
      followRename();
      let stat;
      try {
        stat = fstatSync(file.write);
      } catch (error) {
        throw logWriteError(path, errorCode(error), fileCause(error, true));
      }
      const point = checkedPoint(stat);
      const continues = continuity(stat, point);
      const text = logLine(entry, now(), context, { ...point, continues });
      const lead = point.needsNewline ? '\n' : '';
      lines.append(lead + text);
      const hash = lineHash(Buffer.from(text.slice(0, -1), 'utf8'));
      next = { line: point.line + 1, prev: hash };
      const size = stat.size + Buffer.byteLength(lead + text);
      known = { dev: stat.dev, ino: stat.ino, size, line: point.line, hash };
      followed = false;
      sealedSeen = true;
    } finally {
      lock?.release();
    }
  }

  if (lockPath !== null) {
    try {
      const lock = await lockForAppend(path, lockPath, note);
      try {
        const stat = fstatSync(file.write);
        const point = checkedPoint(stat);
        if (point.last !== null) {
          known = { dev: stat.dev, ino: stat.ino, size: stat.size, line: point.line - 1, hash: point.prev };
        }
      } finally {
        lock.release();
      }
    } catch (e) {
      closeQuietly(file.read);
      closeQuietly(file.write);
      if (e instanceof LogNotIntactError) {
        const words = `${path} is not intact: ${e.problem}: no line is written to it, and nothing was sent`;
        throw new CliError(words, ExitCode.FAILURE, e.hint);
      }
      if (!(e instanceof FileWriteError)) throw e;
      const full = e.code === 'ENOSPC' || e.code === 'EDQUOT';
      if (e.code === 'LOCKED')
        throw new CliError(
          e.message,
          ExitCode.FAILURE,
          `if no fraudctl writes ${path} any more: ${removeFileCommand(lockPath)}`,
        );
      throw new CliError(
        e.message,
        full ? ExitCode.FAILURE : ExitCode.USAGE,
        full ? fileErrorHint({ code: e.code }, dirname(lockPath)) : 'give --log a file in a directory you can write to',
      );
    }
  }

  let queue: Promise<void> = Promise.resolve();
  let closed = false;
  return {
    path,
    append(entry) {
      if (closed) return Promise.reject(new Error('the log is closed'));
      // One append at a time in this process, in the order they were asked for: the order of the
      // lines is the order of the appends (the lock's wait lets other work run meanwhile).
      const turn = queue.then(() => appendNow(entry));
      queue = turn.catch(() => {});
      return turn;
    },
    async close() {
      closed = true;
      // The appends asked for before it are written first.
      await queue;
      closeQuietly(file.read);
      closeQuietly(file.write);
    },
  };
}

/**
 * The first break in the chain of the file open as `fd` (`size` bytes), walked whole once
 * (ChainWalker), or null: for a log whose last line has no hash of its own. The first lines of
 * a fraudctl that did not chain its lines are no break here (lines chained after them are
 * checked), as they were not when that fraudctl appended to them. Synchronous: once per session
 * for a log of an older build, at the speed of hashing its lines (0.9 s for 100 MB here).
 */
function walkWhole(fd: number, size: number): ChainBreak | null {
  const walker = new ChainWalker();
  const chunkSize = 64 * 1024;
  const buffer = Buffer.alloc(chunkSize);
  let pieces: Buffer[] = [];
  let at = 0;
  while (at < size) {
    const n = readSync(fd, buffer, 0, Math.min(chunkSize, size - at), at);
    if (n === 0) break;
    at += n;
    const chunk = buffer.subarray(0, n);
    let start = 0;
    for (let feed = chunk.indexOf(10); feed !== -1; feed = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, feed);
      const found = walker.step(pieces.length > 0 ? Buffer.concat([...pieces, piece]) : piece, true);
      if (found !== null && found.kind !== 'unchained') return found;
      pieces = [];
      start = feed + 1;
    }
    if (start < chunk.length) pieces.push(Buffer.from(chunk.subarray(start)));
  }
  if (pieces.length > 0) {
    const found = walker.step(Buffer.concat(pieces), false);
    // A whole last line without its line feed is what the next append mends (it writes one first).
    if (found !== null && found.kind !== 'unchained' && found.kind !== 'unterminated') return found;
  }
  return null;
}
