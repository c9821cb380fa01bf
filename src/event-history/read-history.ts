import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/*
 * One event's actions, read from the action logs (`--log` of review and set-state,
 * src/action-log/): every line about the event across the files, each `sending` line joined
 * with the outcome line that follows it in the same session (one action), in time order.
 *
 * The files are read a line at a time (node:readline over a stream), so a log of any length
 * takes the memory of one line plus the event's own actions. A line of another event is
 * skipped; a line that is not a log line (torn by a crash, edited, garbage) is counted and
 * named (file:line), never fatal: the rest of the file still tells the story.
 */

/** A log line's fields as history reads them (src/action-log/action-log.ts writes them). */
interface LogLineFields {
  time: string;
  analyst: string | null;
  host: string | null;
  profile: string | null;
  service: string | null;
  session: string | null;
  eventId: string;
  action: string;
  from: string | null;
  to: string | null;
  comments: string | null;
  reason: string | null;
  requestId: string | null;
  outcome: string;
  status: number | null;
  message: string | null;
}

/** One action on the event: a `sending` line and its outcome, or a line that stands alone. */
export interface HistoryAction {
  /** When it began (the `sending` line's time, else the line's). */
  time: string;
  /** When its outcome was written; null when it has none, or is one line. */
  answeredAt: string | null;
  analyst: string | null;
  host: string | null;
  profile: string | null;
  /** The service the line names (null: the embedded sandbox). */
  service: string | null;
  session: string | null;
  action: string;
  from: string | null;
  to: string | null;
  comments: string | null;
  reason: string | null;
  /** ok, refused, failed, conflict, or unknown: a `sending` with no outcome after it (the session ended before the answer). */
  outcome: string;
  status: number | null;
  message: string | null;
  requestId: string | null;
  /** Where it was read: the file and its line (the `sending` line's, for a joined action). */
  file: string;
  line: number;
}

export interface EventHistory {
  actions: HistoryAction[];
  /** Lines that are not log lines: where they are. */
  unreadable: { file: string; line: number }[];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A log line's fields, or null when it is not one (not a JSON object, or without time, event, action, outcome). */
function fieldsOf(text: string): LogLineFields | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const time = str(v.time);
  const eventId = str(v.eventId);
  const action = str(v.action);
  const outcome = str(v.outcome);
  if (time === null || Number.isNaN(Date.parse(time)) || eventId === null || action === null || outcome === null) return null;
  return {
    time,
    analyst: str(v.analyst),
    host: str(v.host),
    profile: str(v.profile),
    service: str(v.service),
    session: str(v.session),
    eventId,
    action,
    from: str(v.from),
    to: str(v.to),
    comments: str(v.comments),
    reason: str(v.reason),
    requestId: str(v.requestId),
    outcome,
    status: typeof v.status === 'number' ? v.status : null,
    message: str(v.message),
  };
}

/**
 * The event's actions in `files`, in time order (actions at the same instant in file order).
 * Throws the file's error when one cannot be opened or read (the caller says which).
 */
export async function readEventHistory(eventId: string, files: readonly string[]): Promise<EventHistory> {
  const actions: HistoryAction[] = [];
  const unreadable: EventHistory['unreadable'] = [];
  for (const file of files) {
    // A `sending` waiting for its outcome, by session, event and action (one session does one thing at a time per event).
    const open = new Map<string, HistoryAction>();
    const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    let n = 0;
    for await (const text of lines) {
      n++;
      if (text.trim() === '') continue;
      const f = fieldsOf(text);
      if (f === null) {
        unreadable.push({ file, line: n });
        continue;
      }
      if (f.eventId !== eventId) continue;
      const key = JSON.stringify([f.session, f.action]);
      const pending = open.get(key);
      if (f.outcome !== 'sending' && pending !== undefined) {
        open.delete(key);
        Object.assign(pending, { answeredAt: f.time, outcome: f.outcome, status: f.status, message: f.message, requestId: f.requestId ?? pending.requestId });
        continue;
      }
      const action: HistoryAction = {
        time: f.time,
        answeredAt: null,
        analyst: f.analyst,
        host: f.host,
        profile: f.profile,
        service: f.service,
        session: f.session,
        action: f.action,
        from: f.from,
        to: f.to,
        comments: f.comments,
        reason: f.reason,
        outcome: f.outcome === 'sending' ? 'unknown' : f.outcome,
        status: f.status,
        message: f.message,
        requestId: f.requestId,
        file,
        line: n,
      };
      // A second `sending` in the same session before an outcome: the first one's answer never came.
      if (f.outcome === 'sending') open.set(key, action);
      actions.push(action);
    }
  }
  const order = new Map(files.map((f, i) => [f, i]));
  actions.sort((a, b) => Date.parse(a.time) - Date.parse(b.time) || order.get(a.file)! - order.get(b.file)! || a.line - b.line);
  return { actions, unreadable };
}
