import type { LogEntry } from './action-log.js';

/*
 * The one builder of the action log's entries (action-log.ts writes them): an action, then each
 * line of it, `sending` before the request and one outcome after. Every entry has its fields in
 * the same order, so every line of the log reads alike; `message` is there only when given.
 */

/** What a line is about: the event, what was done to it, the states from and to, the comment it sets. */
export interface LoggedAction {
  eventId: string;
  action: LogEntry['action'];
  from: string | null;
  to: string | null;
  comments?: string | null;
  /** The reason code of the change (`set-state --reason`, a number key in `review`); absent or null: none. */
  reason?: string | null;
}

/** What came back, when anything did: the service's request id and status, and a sentence. */
export interface LoggedAnswer {
  requestId?: string | null;
  status?: number | null;
  message?: string | undefined;
}

/** The line of an action with an outcome (`sending`: written before the request is sent). */
export function logEntry(action: LoggedAction, outcome: LogEntry['outcome'], answer: LoggedAnswer = {}): LogEntry {
  const entry: LogEntry = {
    eventId: action.eventId,
    action: action.action,
    from: action.from,
    to: action.to,
    comments: action.comments ?? null,
    requestId: answer.requestId ?? null,
    outcome,
    status: answer.status ?? null,
  };
  const withMessage = answer.message === undefined ? entry : { ...entry, message: answer.message };
  return action.reason == null ? withMessage : { ...withMessage, reason: action.reason };
}

/** The line written before a change is sent (src/action-log/action-log.ts: a change is logged first). */
export function sendingEntry(action: LoggedAction): LogEntry {
  return logEntry(action, 'sending');
}
