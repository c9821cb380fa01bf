import { statSync } from 'node:fs';
import { LineChecks } from '../../action-log/line-trust.js';
import { UsageError } from '../../errors/cli-error.js';
import { fileFailure } from '../../files/file-errors.js';
import { shellCommand } from '../../render/shell-command.js';
import { terminalSafe } from '../../render/terminal-text.js';
import { outputOf } from '../room-deps.js';
import type { HistoryDeps } from './deps.js';
import type { HistoryOptions } from './options.js';
import { readEventHistory } from './read-history.js';
import { serviceName, storyText } from './render.js';

/*
 * `fraudctl history ID --log FILE…`: the story of one event, told by the action logs the team keeps (read-history.ts) — who did what, from which state to which, with what
 * comment and reason, and how it ended — then the event as the service has it now (one GET
 * through the client of deps.ts, as `show` does). The logs are read whole before the GET: a file
 * that cannot be read is exit 2 and nothing is asked of the service. A line that breaks its log's
 * hash chain (action-log/line-trust.ts) stops the story before it is told, exit 1, each such line
 * named, unless --include-unverified: then the actions it tells are marked unverified. When the
 * event cannot be read now (the service down, a 404, another service), the story from the logs
 * is still told, then why "now" is missing, and the exit code is the failure's. Every string
 * from a log or the service passes terminalSafe (or the JSON escaping) before the terminal.
 */

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

export async function run(options: HistoryOptions, deps: HistoryDeps): Promise<void> {
  const { eventId, logs: files } = options;
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
  const output = outputOf(deps, options);
  for (const note of checks.notes()) output.note(note);
  if (checks.unverified > 0 && !options.includeUnverified) {
    output.note(checks.breakLines().join('\n'));
    const json = output.json ? ['--json'] : [];
    const flags = [...json, '--include-unverified', ...deps.serviceFlags];
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
  const here = await deps.serviceUrl();
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
    body = (await (await deps.client()).getEvent(eventId)).body;
  } catch (error) {
    failure = error;
  }
  if (output.json) {
    output.printJson({ id: eventId, actions, now: body });
    if (failure !== null) throw failure;
    return;
  }
  output.print(storyText(eventId, files, actions, failure === null ? { body } : { notRead: here }));
  if (failure !== null) throw failure;
}
