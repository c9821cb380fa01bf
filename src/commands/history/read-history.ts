import type { LineChecks } from '../../action-log/line-trust.js';
import { logFileLines, logLineFields } from '../../action-log/read-log.js';

/*
 * One event's actions, read from the action logs (`--log` of review and set-state,
 * src/action-log/): every line about the event across the files, each `sending` line joined
 * with the outcome line that follows it in the same session (one action), in time order.
 *
 * The files are read a line at a time (src/action-log/read-log.ts), so a log of any length
 * takes the memory of one line plus the event's own actions. Each line is checked against its
 * file's hash chain as it is read (LineChecks, action-log/line-trust.ts: the caller decides what
 * a break means); an action from a line that breaks it says so (`unverified`). A line of another
 * event is skipped; a line that is not a log line (torn by a crash, edited, garbage) is counted
 * and named (file:line): the rest of the file still tells the story.
 */

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
  /** A line of it breaks the log's hash chain: that line and how (`line 5 edited`); null when both hold. */
  unverified: string | null;
}

export interface EventHistory {
  actions: HistoryAction[];
  /** Lines that are not log lines: where they are. */
  unreadable: { file: string; line: number }[];
}

/**
 * The event's actions in `files`, in time order (actions at the same instant in file order).
 * Throws the file's error when one cannot be opened or read (the caller says which).
 */
export async function readEventHistory(
  eventId: string,
  files: readonly string[],
  checks: LineChecks,
): Promise<EventHistory> {
  const actions: HistoryAction[] = [];
  const unreadable: EventHistory['unreadable'] = [];
  for (const file of files) {
    // A `sending` waiting for its outcome, by session, event and action (one session does one thing at a time per event).
    const open = new Map<string, HistoryAction>();
    for await (const { n, text, broken } of logFileLines(file)) {
      const trust = checks.add(file, broken);
      if (trust === 'crash' || (text.trim() === '' && trust === 'believed')) continue;
      const unverified = trust === 'unverified' ? `line ${n} ${broken!.kind}` : null;
      const f = logLineFields(text);
      if (f === null) {
        unreadable.push({ file, line: n });
        continue;
      }
      if (f.eventId !== eventId) continue;
      const key = JSON.stringify([f.session, f.action]);
      const pending = open.get(key);
      if (f.outcome !== 'sending' && pending !== undefined) {
        open.delete(key);
        Object.assign(pending, {
          answeredAt: f.time,
          outcome: f.outcome,
          status: f.status,
          message: f.message,
          requestId: f.requestId ?? pending.requestId,
          unverified: pending.unverified ?? unverified,
        });
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
        unverified,
      };
      // A second `sending` in the same session before an outcome: the first one's answer never came.
      if (f.outcome === 'sending') open.set(key, action);
      actions.push(action);
    }
  }
  const order = new Map(files.map((f, i) => [f, i]));
  actions.sort(
    (a, b) => Date.parse(a.time) - Date.parse(b.time) || order.get(a.file)! - order.get(b.file)! || a.line - b.line,
  );
  return { actions, unreadable };
}
