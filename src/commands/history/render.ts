import { stateIn } from '../../contract/states.js';
import { sym } from '../../render/symbols.js';
import { terminalSafe } from '../../render/terminal-text.js';
import type { HistoryAction } from './read-history.js';

/*
 * The story as words: a head line (how many actions, in which logs), a line per action (time,
 * who, what, from and to, how it ended; its comment and reason below it), then the event now, or
 * why it was not read. Every string from a log or the service passes terminalSafe.
 */

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** How an action ended, in words. */
function outcomeWords(a: HistoryAction): string {
  const message = a.message ? `: ${terminalSafe(a.message)}` : '';
  switch (a.outcome) {
    case 'ok':
      return `ok${message}`;
    case 'refused':
      return `refused${a.status !== null ? ` (${a.status})` : ''}${message}`;
    case 'failed':
      return `failed${a.status !== null ? ` (${a.status})` : ''}${message}`;
    case 'conflict':
      return `not sent${message}`;
    case 'unknown':
      return 'outcome unknown (the session ended before the answer)';
    default:
      return `${terminalSafe(a.outcome)}${message}`;
  }
}

/** `2026-11-25 18:01:02` (UTC, as logged). */
const when = (time: string) => `${terminalSafe(time.slice(0, 19).replace('T', ' '))}Z`;

function actionLines(a: HistoryAction): string[] {
  const who = `${terminalSafe(a.analyst ?? '(no analyst)')} (profile ${terminalSafe(a.profile ?? '?')}, host ${terminalSafe(a.host ?? '?')})`;
  // A comment or a skip has no state to go to: the state it was in.
  const change =
    a.to !== null
      ? `  ${a.from !== null ? `${terminalSafe(a.from)} ` : ''}${sym.arrow} ${terminalSafe(a.to)}`
      : a.from !== null
        ? `  on ${terminalSafe(a.from)}`
        : '';
  const unverified = a.unverified === null ? '' : `  ${sym.dot} UNVERIFIED (${terminalSafe(a.file)}: ${a.unverified})`;
  const what = `${terminalSafe(a.action)}${change}  ${sym.dot} ${outcomeWords(a)}${unverified}`;
  const lines = [`${when(a.time)}  ${who}  ${what}`];
  if (a.comments !== null) lines.push(`    comment: ${terminalSafe(a.comments)}`);
  if (a.reason !== null) lines.push(`    reason: ${terminalSafe(a.reason)}`);
  return lines;
}

/** The service a log line names, or this run reads (null: the embedded sandbox). */
export const serviceName = (service: string | null) =>
  service === null ? 'the embedded sandbox' : terminalSafe(service);

/** `now`: the event as read (`body`), or the service it could not be read from (`notRead`). */
export function storyText(
  eventId: string,
  files: readonly string[],
  actions: readonly HistoryAction[],
  now: { body: unknown } | { notRead: string | null },
): string {
  const lines: string[] = [];
  const names = files.map((f) => terminalSafe(f)).join(', ');
  if (actions.length === 0) lines.push(`${terminalSafe(eventId)}: no action in ${names}`);
  else {
    lines.push(`${terminalSafe(eventId)}: ${plural(actions.length, 'action', 'actions')} in ${names}`);
    for (const a of actions) lines.push(...actionLines(a));
  }
  if ('notRead' in now) {
    lines.push(`now: not read from ${serviceName(now.notRead)} (the error below says why)`);
    return lines.join('\n');
  }
  const { body } = now;
  const comments = typeof body === 'object' && body !== null ? (body as { comments?: unknown }).comments : null;
  lines.push(
    `now: ${terminalSafe(stateIn(body) ?? '(no state)')}  ${sym.dot} comment: ${typeof comments === 'string' && comments !== '' ? terminalSafe(comments) : '(none)'}`,
  );
  return lines.join('\n');
}
