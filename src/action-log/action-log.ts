import { open, type FileHandle } from 'node:fs/promises';
import { UsageError } from '../errors/cli-error.js';
import { lockForOneWriter } from '../files/exclusive-lock.js';
import { jsonForTerminal } from '../render/terminal-text.js';

/*
 * `--log FILE` of `review` and of `set-state` for many events: one JSON line per action, appended
 * as it happens, so a supervisor can audit a session. One session at a time writes a log: a
 * second one naming the same file is refused at once (src/files/exclusive-lock.ts). The file is
 * opened for append (O_APPEND: every write lands at the end) and each line is one write(2), so a
 * session that dies leaves whole lines. Lines are written in the order the actions happened.
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
  outcome: 'ok' | 'refused' | 'failed' | 'conflict';
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
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  return {
    path,
    append(entry) {
      const line = logLine(entry, now());
      const write = chain.then(async () => {
        if (closed) throw new Error('the log is closed');
        await handle.write(line);
      });
      // The next line waits for this one, whether or not it was written.
      chain = write.catch(() => {});
      return write;
    },
    async close() {
      await chain;
      closed = true;
      try {
        await handle.close();
      } finally {
        lock?.release();
      }
    },
  };
}
