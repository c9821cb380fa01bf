import { failureFields } from '../api/api-error.js';
import { classifyFailure, saidNo } from '../failures/failure-kind.js';
import { CliError, ExitCode } from '../errors/cli-error.js';
import { openSessionLog, type LogContext, type LogEntry } from './action-log.js';
import { actionForChange } from './log-context.js';

/*
 * `set-state ID --log FILE`: one event's change, logged as a change of many is: a
 * `sending` line before the PATCH, which is not sent when that line cannot be written (exit 1),
 * and a line for its outcome after (ok, refused, failed). A PATCH that landed but whose outcome
 * line could not be written is said (exit 1): the change was made, the log lacks its outcome.
 */

/** What is about to be sent: the event, its state as read just before, and the body. */
export interface OneChange {
  eventId: string;
  from: string | null;
  to: string | undefined;
  comments: string | undefined;
  /** The reason code (`--reason`), or null. */
  reason: string | null;
}

export interface ChangeLog {
  /** Logs `change`, calls `send`, logs its outcome; what `send` gives or throws. Closes the log. */
  send<T extends { requestId: string | null }>(change: OneChange, send: () => Promise<T>): Promise<T>;
  /** Closes the log when nothing was sent (a usage error, a no, a conflict); once closed, again does nothing. */
  close(): Promise<void>;
}

/** Opens the log (before the event is read: a file it cannot write is said before anything happens). */
export async function openChangeLog(
  path: string,
  context: LogContext,
  note: (line: string) => void,
): Promise<ChangeLog> {
  const log = await openSessionLog(path, context, note);
  let closed: Promise<void> | null = null;
  const close = () => (closed ??= log.close());
  return {
    close,
    async send(change, send) {
      const entry = {
        eventId: change.eventId,
        action: actionForChange(change.to),
        from: change.from,
        to: change.to ?? null,
        comments: change.comments ?? null,
        reason: change.reason,
      } as const;
      try {
        try {
          await log.append({ ...entry, requestId: null, outcome: 'sending', status: null });
        } catch (error) {
          const words = `not sent: the change could not be written to the log first (${(error as Error).message})`;
          throw new CliError(words, ExitCode.FAILURE, error instanceof CliError ? error.hint : undefined);
        }
        let reply;
        let outcome: LogEntry;
        try {
          reply = await send();
          outcome = { ...entry, requestId: reply.requestId, outcome: 'ok', status: null };
        } catch (error) {
          let fields;
          try {
            fields = failureFields(error);
          } catch {
            throw error; // not a call's failure (a bug): nothing to log of it
          }
          // Refused: the service said no (src/failures/); a 408 or 429 may go through when sent again.
          const refused = saidNo(classifyFailure(error).kind);
          await appendOutcome(
            {
              ...entry,
              requestId: fields.requestId,
              outcome: refused ? 'refused' : 'failed',
              status: fields.status,
              message: fields.message,
            },
            error,
          );
          throw error;
        }
        await appendOutcome(outcome, null);
        return reply;
      } finally {
        await close();
      }
    },
  };

  /** The outcome's line; when it cannot be written, the error says so (after the call's own failure, if any). */
  async function appendOutcome(line: LogEntry, callError: unknown): Promise<void> {
    try {
      await log.append(line);
    } catch (error) {
      if (callError !== null) return; // the call's failure is what to report; the log lacks its line
      throw new CliError(
        `the change was made, but its outcome could not be written to the log (${(error as Error).message})`,
        ExitCode.FAILURE,
      );
    }
  }
}
