import { fstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { open, type FileHandle } from 'node:fs/promises';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { FileWriteError, LineAppender, pathNames } from '../files/append-line.js';
import { acquireLockAsync, holderWords, lockPathOf, LockBusyError, type HeldLock } from '../files/exclusive-lock.js';
import { errorCode, fileErrorCause, fileErrorHint } from '../files/file-errors.js';
import { removeFileCommand } from '../render/shell-command.js';
import { jsonForTerminal } from '../render/terminal-text.js';
import { chainPointAfter, GENESIS, lineHash } from './log-chain.js';

/*
 * `--log FILE` of `review` and of `set-state`: one JSON line per action, appended as it happens,
 * so a supervisor can audit a session. Every line says who, where and which build (the session's
 * LogContext, given once when the log is opened: the analyst, host, profile, service URL — never
 * the key —, fraudctl version and a session id), and carries its place in the file's hash chain
 * (`line`, `prev`: log-chain.ts), which `fraudctl log verify` checks (verify-log.ts).
 *
 * Several sessions may append to one log (a team sharing a file): each line is appended under
 * the file's lock (FILE.lock, src/files/exclusive-lock.ts), taken for that append only — take it,
 * read the last line's hash, append, release — so the chain stays one whole chain whoever wrote
 * the line before. The file is opened for append (O_APPEND), each line is written whole or not
 * at all (a line the disk took only part of is cut back: src/files/append-line.ts), and a file
 * deleted while open is noticed before the next line. A file renamed while open (logrotate
 * without copytruncate) is followed: the next line goes to a file at the path again (made anew
 * when rotation left none), which starts its own chain, and the session says so once on stderr.
 * Lines are written in the order the actions happened.
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

/**
 * The line for an entry: `time`, the session's context, the entry's fields, `reason` (the code,
 * or null), then its place in the chain (`line`, `prev`). No API key is in any field.
 */
export function logLine(entry: LogEntry, now: Date, context: LogContext, chain: { line: number; prev: string }): string {
  const { reason = null, ...rest } = entry;
  const fields = { time: now.toISOString(), ...context, ...rest, reason, line: chain.line, prev: chain.prev };
  // jsonForTerminal: a `cat` of the log on a terminal shows bidi controls escaped too.
  return `${jsonForTerminal(fields, false)}\n`;
}

/** How long an append waits for another session's append to the same log (each holds the lock for microseconds). */
const APPEND_WAIT_MS = 10_000;

/** The lock of one append: a failure is the log's (a FileWriteError naming it), so the change is not sent. */
async function lockForAppend(path: string, lockPath: string, note: (line: string) => void): Promise<HeldLock> {
  try {
    // Waits leave the event loop running: a review screen stays drawn while another analyst appends.
    return await acquireLockAsync(lockPath, {
      waitMs: APPEND_WAIT_MS,
      onTakeover: (holder) => note(`note: ${lockPath} was left by a fraudctl run that is no longer running (${holder ? `pid ${holder.pid}` : 'it names no process'}): taking it over\n`),
    });
  } catch (e) {
    if (e instanceof LockBusyError) {
      if (e.kind === 'self') throw new UsageError(`${path} is given to this command twice: give --log a file of its own`);
      throw new FileWriteError(path, 'LOCKED', `its lock ${lockPath} was held by ${holderWords(e.holder)} for more than ${APPEND_WAIT_MS / 1000} s`);
    }
    throw new FileWriteError(path, errorCode(e), `cannot create its lock ${lockPath}: ${fileErrorCause(e)}`);
  }
}

/**
 * Opens the log for this session's lines, each saying `context`. Exit 2 when it cannot be
 * opened or its lock cannot be made (tried once here, so that nothing is sent first); `note`
 * says on stderr when a dead run's lock is taken over.
 */
export async function openSessionLog(path: string, context: LogContext, note: (line: string) => void = () => {}, now: () => Date = () => new Date()): Promise<SessionLog> {
  let handle: FileHandle;
  try {
    // Readable too: each append reads the last line's hash.
    handle = await open(path, 'a+', 0o600);
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    throw new UsageError(`cannot open the log file ${path}: ${error.code ?? error.message}`, 'give --log a file in a directory you can write to');
  }
  // A terminal, a pipe, /dev/null: no record to keep whole, nothing to read back; the chain is this session's lines.
  const regular = fstatSync(handle.fd).isFile();
  const lockPath = regular ? lockPathOf(path) : null;
  if (lockPath !== null) {
    try {
      (await lockForAppend(path, lockPath, note)).release();
    } catch (e) {
      await handle.close();
      if (!(e instanceof FileWriteError)) throw e;
      const full = e.code === 'ENOSPC' || e.code === 'EDQUOT';
      if (e.code === 'LOCKED') throw new CliError(e.message, ExitCode.FAILURE, `if no fraudctl writes ${path} any more: ${removeFileCommand(lockPath)}`);
      throw new CliError(e.message, full ? ExitCode.FAILURE : ExitCode.USAGE, full ? fileErrorHint({ code: e.code }, dirname(lockPath)) : 'give --log a file in a directory you can write to');
    }
  }
  let lines = new LineAppender(handle.fd, path);
  let next = { line: 1, prev: GENESIS };
  /** Under the lock: when the path no longer names the open file (renamed away), the file at the path from now on. */
  async function followRename(): Promise<void> {
    let opened;
    let now;
    try {
      opened = fstatSync(handle.fd);
      now = pathNames(path, opened);
    } catch {
      return; // cannot look: the open file stays the log, and the append says what is wrong with it
    }
    if (now === 'same') return;
    // Deleted, not renamed: the append refuses it. On Windows a path that names nothing may be
    // either (the link count cannot be trusted there: append-line.ts), and a deletion must stop
    // the session, so only a new file at the path is followed.
    if (now === 'gone' && (opened.nlink === 0 || process.platform === 'win32')) return;
    let fresh: FileHandle;
    try {
      fresh = await open(path, 'a+', 0o600);
    } catch (error) {
      throw new FileWriteError(path, errorCode(error), `it was renamed while open, and a new one cannot be opened: ${fileErrorCause(error)}`);
    }
    await handle.close().catch(() => {});
    handle = fresh;
    lines = new LineAppender(handle.fd, path);
    note(`note: ${path} was renamed while this session wrote to it (rotated?): its next lines go to a new ${path}, which starts its own chain\n`);
  }
  let queue: Promise<void> = Promise.resolve();
  /** One append under the file's lock: the last line's hash read, the line written whole, the lock released. */
  async function appendNow(entry: LogEntry): Promise<void> {
    const lock = lockPath === null ? null : await lockForAppend(path, lockPath, note);
    try {
      let lead = '';
      if (regular) {
        await followRename();
        let point;
        try {
          point = chainPointAfter(handle.fd, fstatSync(handle.fd).size);
        } catch (error) {
          throw new FileWriteError(path, errorCode(error), fileErrorCause(error));
        }
        next = point;
        if (point.needsNewline) lead = '\n';
      }
      const text = logLine(entry, now(), context, next);
      lines.append(lead + text);
      next = { line: next.line + 1, prev: lineHash(Buffer.from(text.slice(0, -1), 'utf8')) };
    } finally {
      lock?.release();
    }
  }

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
      await handle.close();
    },
  };
}

