import { open, type FileHandle } from 'node:fs/promises';
import { UsageError } from '../errors/cli-error.js';
import { LineAppender } from '../files/append-line.js';
import { lockForOneWriter } from '../files/exclusive-lock.js';
import { jsonForTerminal } from '../render/terminal-text.js';

/*
 * `--log FILE` of `review` and of `set-state` for many events: one JSON line per action, appended
 * as it happens, so a supervisor can audit a session. One session at a time writes a log: a
 * second one naming the same file is refused at once (src/files/exclusive-lock.ts). The file is
 * opened for append (O_APPEND: every line lands at the end), each line is written whole or not
 * at all (a line the disk took only part of is cut back: src/files/append-line.ts), and a file
 * deleted while open is noticed before the next line. Lines are written in the order the
 * actions happened.
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
}

export interface SessionLog {
  readonly path: string;
  append(entry: LogEntry): Promise<void>;
  close(): Promise<void>;
}

/** The line for an entry: `time` first, then the entry's fields (no API key can be in any of them). */
export function logLine(entry: LogEntry, now: Date): string {
  // jsonForTerminal: a `cat` of the log on a terminal shows bidi controls escaped too.
  return `${jsonForTerminal({ time: now.toISOString(), ...entry }, false)}\n`;
}

/** Opens the log for this session alone (exit 2 when another run writes it); `note` says on stderr when a dead run's lock is taken over. */
export async function openSessionLog(path: string, now: () => Date = () => new Date(), note: (line: string) => void = () => {}): Promise<SessionLog> {
  const lock = lockForOneWriter(path, '--log', note);
  let handle: FileHandle;
  try {
    handle = await open(path, 'a', 0o600);
  } catch (e) {
    lock?.release();
    const error = e as NodeJS.ErrnoException;
    throw new UsageError(`cannot open the log file ${path}: ${error.code ?? error.message}`, 'give --log a file in a directory you can write to');
  }
  // Written at once (one write(2) a line): the order of appends is the order of the lines.
  const lines = new LineAppender(handle.fd, path);
  let closed = false;
  return {
    path,
    async append(entry) {
      if (closed) throw new Error('the log is closed');
      lines.append(logLine(entry, now()));
    },
    async close() {
      closed = true;
      try {
        await handle.close();
      } finally {
        lock?.release();
      }
    },
  };
}
