import { statSync } from 'node:fs';
import { LineChecks } from '../action-log/line-trust.js';
import { stateIn } from '../contract/states.js';
import { UsageError } from '../errors/cli-error.js';
import { fileFailure } from '../files/file-errors.js';
import { shellCommand } from '../render/shell-command.js';
import { sym } from '../render/symbols.js';
import { terminalSafe } from '../render/terminal-text.js';
import type { Session } from '../session.js';
import { readEventHistory, type HistoryAction } from './read-history.js';

/*
 * `fraudctl history ID --log FILE…`: the story of one event, told by the action
 * logs the team keeps (read-history.ts) — who did what, from which state to which, with what
 * comment and reason, and how it ended — then the event as the service has it now (one GET
 * through the session's client, as `show` does). The logs are read whole before the GET: a file
 * that cannot be read is exit 2 and nothing is asked of the service. A line that breaks its log's
 * hash chain (action-log/line-trust.ts) stops the story before it is told, exit 1, each such line
 * named, unless --include-unverified: then the actions it tells are marked unverified. When the
 * event cannot be read now (the service down, a 404, another service), the story from the logs
 * is still told, then why "now" is missing, and the exit code is the failure's. Every string
 * from a log or the service passes terminalSafe (or the JSON escaping) before the terminal.
 */

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A log that cannot be read: exit 2, naming it. */
function unreadableFile(file: string, error: unknown): UsageError {
  const { message, hint } = fileFailure(
    file,
    error,
    'log',
    'give --log the files that review --log and set-state --log wrote',
  );
  return new UsageError(message, hint);
}

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

const serviceName = (service: string | null) => (service === null ? 'the embedded sandbox' : terminalSafe(service));

export interface HistoryOptions {
  /** Tell the story from lines that break the chain too, marked. */
  includeUnverified: boolean;
}

export async function showHistory(
  session: Session,
  eventId: string,
  files: readonly string[],
  options: HistoryOptions = { includeUnverified: false },
): Promise<void> {
  // Said before any line is read: a missing file, or a directory.
  for (const file of files) {
    try {
      if (statSync(file).isDirectory()) throw Object.assign(new Error('a directory'), { code: 'EISDIR' });
    } catch (error) {
      throw unreadableFile(file, error);
    }
  }
  let history;
  const checks = new LineChecks();
  try {
    history = await readEventHistory(eventId, files, checks);
  } catch (error) {
    const file = files.find((f) => (error as { path?: string }).path === f) ?? files[0]!;
    throw unreadableFile(file, error);
  }
  const output = await session.output();
  for (const note of checks.notes()) output.note(note);
  if (checks.unverified > 0 && !options.includeUnverified) {
    output.note(checks.breakLines().join('\n'));
    const json = output.json ? ['--json'] : [];
    const flags = [...json, '--include-unverified', ...session.serviceFlags()];
    const again = shellCommand(['fraudctl', 'history', eventId, '--log', ...files, ...flags]);
    throw checks.refusal('history', shellCommand(['fraudctl', 'log', 'verify', ...checks.unverifiedFiles()]), again);
  }
  if (checks.unverified > 0) {
    const included = checks.includedNote().replace('the figures include', 'the story includes');
    output.note(`${included}; its actions from them are marked UNVERIFIED`);
  }
  const { unreadable, actions } = history;
  if (unreadable.length > 0) {
    const shown = unreadable
      .slice(0, 10)
      .map((u) => `${terminalSafe(u.file)}:${u.line}`)
      .join(', ');
    const more = unreadable.length > 10 ? ` and ${unreadable.length - 10} more` : '';
    output.note(
      `note: ${unreadable.length === 1 ? '1 line is not a log line' : `${unreadable.length} lines are not log lines`} (torn or edited), skipped: ${shown}${more}`,
    );
  }
  // The service this run talks to, as a log line names it (null: the embedded sandbox).
  const here = (await session.settings()).baseUrl;
  const elsewhere = [...new Set(actions.map((a) => a.service).filter((s) => s !== here))];
  if (elsewhere.length > 0) {
    output.note(
      `note: the logs record actions on ${terminalSafe(eventId)} at ${elsewhere.map(serviceName).join(', ')}; this run reads ${serviceName(here)}: the event now might not be the same event`,
    );
  }
  // The logs hold the story whether or not the event can be read now: told first, then why "now" is missing.
  let body: unknown = null;
  let failure: unknown = null;
  try {
    body = (await (await session.client()).getEvent(eventId)).body;
  } catch (error) {
    failure = error;
  }
  if (output.json) {
    output.printJson({ id: eventId, actions, now: body });
    if (failure !== null) throw failure;
    return;
  }
  const lines: string[] = [];
  const names = files.map((f) => terminalSafe(f)).join(', ');
  if (actions.length === 0) lines.push(`${terminalSafe(eventId)}: no action in ${names}`);
  else {
    lines.push(`${terminalSafe(eventId)}: ${plural(actions.length, 'action', 'actions')} in ${names}`);
    for (const a of actions) lines.push(...actionLines(a));
  }
  if (failure !== null) {
    lines.push(`now: not read from ${serviceName(here)} (the error below says why)`);
    output.print(lines.join('\n'));
    throw failure;
  }
  const comments = typeof body === 'object' && body !== null ? (body as { comments?: unknown }).comments : null;
  lines.push(
    `now: ${terminalSafe(stateIn(body) ?? '(no state)')}  ${sym.dot} comment: ${typeof comments === 'string' && comments !== '' ? terminalSafe(comments) : '(none)'}`,
  );
  output.print(lines.join('\n'));
}
