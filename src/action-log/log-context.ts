import { hostname, userInfo } from 'node:os';
import type { Session } from '../session.js';
import { VERSION } from '../process/version.js';
import type { LogContext, LogEntry } from './action-log.js';

/*
 * Who, where and which build a session's --log lines name (issue 29), built once per run when
 * the log is opened: the analyst the profile declares (`fraudctl config set analyst NAME`), else
 * the OS user; the host; the profile and its service URL (the key is never part of it); the
 * version; and a random session id, so that two runs of one analyst are told apart. The analyst
 * is declared, not authenticated: the API key is the merchant's, not a person's (SECURITY.md).
 */

/** The OS user's name; `unknown` where the system has none for this uid (a container's). */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

export async function logContextOf(session: Session): Promise<LogContext> {
  const settings = await session.settings();
  return {
    analyst: settings.analyst ?? osUser(),
    host: hostname(),
    profile: settings.profile,
    service: settings.baseUrl,
    version: VERSION,
    // The Web Crypto global: no module to load for it.
    session: globalThis.crypto.randomUUID(),
  };
}

/** The log's action for a change to `state` (the review queue's names), or `comment` when only a comment is sent. */
export function actionForChange(state: string | undefined): LogEntry['action'] {
  if (state === undefined) return 'comment';
  const actions: Readonly<Record<string, LogEntry['action']>> = { APPROVED: 'approve', DECLINED: 'decline', ESCALATED: 'escalate', FRAUD_CONFIRMED: 'fraud' };
  return actions[state] ?? 'set-state';
}
