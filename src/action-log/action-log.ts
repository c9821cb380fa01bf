import { open, type FileHandle } from 'node:fs/promises';
import { UsageError } from '../errors/cli-error.js';
import { jsonForTerminal } from '../render/terminal-text.js';

/*
 * `--log FILE` of `review` and of `set-state` for many events: one JSON line per action, appended
 * as it happens, so a supervisor can audit a session. The file is opened for append (O_APPEND: every write lands at the end, even with two
 * sessions logging to one file) and each line is one write(2), so lines never interleave and a
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

export async function openSessionLog(path: string, now: () => Date = () => new Date()): Promise<SessionLog> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'a', 0o600);
  } catch (e) {
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
      await handle.close();
    },
  };
}
