import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/*
 * The lines of action logs (src/action-log/) as `fraudctl report` needs them: who, when, which
 * event, what was done, its outcome and reason. A line that is not a JSON object with a time,
 * an event id, an action and an outcome (edited by hand, cut by a crash, another program's) is
 * counted as unreadable and skipped: a report over a team's files should not fail on one bad
 * line, and the count says there were some. Lines of an older build have no analyst or session:
 * the analyst is then "(unknown)" and the session the file.
 */

export interface LogRecord {
  /** ms since the epoch. */
  time: number;
  analyst: string;
  /** Tells apart two runs of one analyst: pairs a `sending` line with its outcome. */
  session: string;
  eventId: string;
  action: string;
  to: string | null;
  outcome: string;
  reason: string | null;
}

export const UNKNOWN_ANALYST = '(unknown)';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** One line as a record; null when it is not a log line this can read. */
export function recordOf(line: string, file: string): LogRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const time = Date.parse(text(v.time) ?? '');
  const eventId = text(v.eventId);
  const action = text(v.action);
  const outcome = text(v.outcome);
  if (!Number.isFinite(time) || eventId === null || action === null || outcome === null) return null;
  return { time, analyst: text(v.analyst) || UNKNOWN_ANALYST, session: text(v.session) ?? `file:${file}`, eventId, action, to: text(v.to), outcome, reason: text(v.reason) };
}

/** The records of one file, in its order, and how many of its lines could not be read (blank lines are neither). */
export async function readLogRecords(file: string, onRecord: (record: LogRecord) => void): Promise<{ lines: number; unreadable: number }> {
  let lines = 0;
  let unreadable = 0;
  const input = createReadStream(file, { encoding: 'utf8' });
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    lines++;
    const record = recordOf(line, file);
    if (record === null) unreadable++;
    else onRecord(record);
  }
  return { lines, unreadable };
}
