import { logFileLines, logLineFields } from '../../action-log/read-log.js';
import type { LineChecks } from '../../action-log/line-trust.js';

/*
 * The lines of action logs (src/action-log/) as `fraudctl report` needs them: who, when, at which
 * service, which event, what was done, its outcome and reason; each line checked against its
 * file's hash chain as it is read (LineChecks: which lines may be believed). A line that is not a
 * JSON object with a time, an event id, an action and an outcome (edited by hand, cut by a crash,
 * another program's) is counted as unreadable and skipped. Lines of an older build have no
 * analyst, session or service: the analyst is then "(unknown)", the session the file, the service
 * not named.
 *
 * Several files are read at once, a line of each at a time, and merged by time (a file's own
 * lines in its order; lines of one time in the order of the files): two analysts' files
 * interleave, and a session's `sending` line in one file finds its outcome in the next (a log
 * rotated under it). Memory: one line per file.
 */

export interface LogRecord {
  /** ms since the epoch. */
  time: number;
  analyst: string;
  /** Tells apart two runs of one analyst: pairs a `sending` line with its outcome. */
  session: string;
  /**
   * The service the line names: its base URL, null for the embedded sandbox; undefined when it
   * names none (an older build's line).
   */
  service: string | null | undefined;
  profile: string | null;
  eventId: string;
  action: string;
  to: string | null;
  outcome: string;
  reason: string | null;
  /** The line breaks the log's hash chain: read only when the caller asked for unverified lines too. */
  unverified: boolean;
}

export const UNKNOWN_ANALYST = '(unknown)';

/** One line as a record; null when it is not a log line this can read. */
export function recordOf(line: string, file: string, unverified: boolean, namesService: boolean): LogRecord | null {
  const f = logLineFields(line);
  if (f === null) return null;
  return {
    time: Date.parse(f.time),
    analyst: f.analyst || UNKNOWN_ANALYST,
    session: f.session ?? `file:${file}`,
    service: namesService ? f.service : undefined,
    profile: f.profile,
    eventId: f.eventId,
    action: f.action,
    to: f.to,
    outcome: f.outcome,
    reason: f.reason,
    unverified,
  };
}

/**
 * What was read of the files: lines (blank ones of a whole chain left out), those that are not log
 * lines by file, and a crash's remnants.
 */
export interface LinesRead {
  lines: number;
  unreadable: Map<string, number>;
  /** Lines cut short or of NUL bytes (LineChecks names them). */
  crash: number;
}

/** A file's read error, naming the file. */
export class LogReadError extends Error {
  constructor(
    readonly file: string,
    override readonly cause: unknown,
  ) {
    super(`cannot read ${file}`);
  }
}

async function* recordsOf(file: string, checks: LineChecks, read: LinesRead): AsyncGenerator<LogRecord> {
  try {
    for await (const { text, broken } of logFileLines(file)) {
      const trust = checks.add(file, broken);
      if (text.trim() === '' && trust === 'believed') continue;
      read.lines++;
      // Lines written before fraudctl chained its lines name no service (nor anything else the chain brought).
      if (trust === 'crash') {
        read.crash++;
        continue;
      }
      const record = recordOf(text, file, trust === 'unverified', broken?.kind !== 'unchained');
      if (record === null) {
        read.unreadable.set(file, (read.unreadable.get(file) ?? 0) + 1);
        continue;
      }
      yield record;
    }
  } catch (error) {
    throw new LogReadError(file, error);
  }
}

/**
 * Every record of `files`, merged by time, to `onRecord`; throws LogReadError naming a file that
 * cannot be read.
 */
export async function readLogRecords(
  files: readonly string[],
  checks: LineChecks,
  onRecord: (record: LogRecord) => void,
): Promise<LinesRead> {
  const read: LinesRead = { lines: 0, unreadable: new Map(), crash: 0 };
  const streams = files.map((file) => recordsOf(file, checks, read));
  const heads: (LogRecord | null)[] = [];
  for (const stream of streams) heads.push((await stream.next()).value ?? null);
  for (;;) {
    let first = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i];
      if (head && (first === -1 || head.time < heads[first]!.time)) first = i;
    }
    if (first === -1) return read;
    onRecord(heads[first]!);
    heads[first] = (await streams[first]!.next()).value ?? null;
  }
}
