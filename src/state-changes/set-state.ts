import { commentTooLong, MAX_COMMENT_LENGTH } from '../contract/limits.js';
import { KNOWN_STATES, TRANSITIONS, isKnownState } from '../contract/states.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import type { Session } from '../session.js';
import type { Prompter } from '../prompter/prompter.js';
import { matchState, stateFromTyped } from './state-names.js';
import { terminalSafe } from '../render/terminal-text.js';

/*
 * Manual review: change an event's state and/or add a comment. What is missing is asked at a
 * terminal (state from a list, comments as text, then a confirmation showing before → after);
 * without a terminal, or with --no-input, missing input is a usage error naming the flag.
 */

export interface SetStateOptions {
  state?: string;
  comments?: string;
  dryRun?: boolean;
  yes?: boolean;
  /** Send --state as typed, even when this build does not know it. */
  forceState?: boolean;
  /** Print the updated summary's tables instead of one line. */
  verbose?: boolean;
}

const OTHER = Symbol('other');
const KEEP = Symbol('keep');

async function askState(prompter: Prompter, current: string | null): Promise<string | undefined> {
  const allowed: readonly string[] = current && isKnownState(current) ? TRANSITIONS[current] : KNOWN_STATES;
  const ordered = [...KNOWN_STATES].sort((a, b) => Number(allowed.includes(b)) - Number(allowed.includes(a)));
  // The transitions the current state allows come first; the others stay selectable (a real
  // service's rules may differ) but say that the known rules do not allow them.
  const name = (s: string) => (s === current ? `${s} (current)` : current && !allowed.includes(s) ? `${s} · not allowed from ${current}` : s);
  const choices = [
    ...ordered.map((s) => ({
      name: name(s),
      value: s as string | typeof OTHER | typeof KEEP,
      ...(current && !allowed.includes(s) && s !== current ? { description: `the sandbox does not allow ${current} → ${s}; the service will likely refuse it` } : {}),
    })),
    { name: 'other…', value: OTHER as string | typeof OTHER | typeof KEEP, description: 'a state this list does not know' },
    ...(current ? [{ name: 'keep the state, only add a comment', value: KEEP as string | typeof OTHER | typeof KEEP }] : []),
  ];
  const picked = await prompter.select<string | typeof OTHER | typeof KEEP>('New state', choices, allowed[0]);
  if (picked === KEEP) return undefined;
  if (picked === OTHER) {
    const typed = (await prompter.input('State', { required: true })).trim();
    return matchState(typed).state ?? typed;
  }
  return picked;
}

function currentState(summary: unknown): string | null {
  const state = typeof summary === 'object' && summary !== null ? (summary as { state?: unknown }).state : undefined;
  return typeof state === 'string' ? state : null;
}

/** A comment over the contract's limit is refused before anything is sent (the service would answer 422 comments:TOO_LONG). */
export function refuseLongComment(comments: string): void {
  const problem = commentTooLong(comments);
  if (problem) throw new UsageError(`${problem}: nothing was sent`, `shorten it to ${MAX_COMMENT_LENGTH.toLocaleString('en-US')} characters or fewer`);
}

export async function setState(session: Session, eventId: string, options: SetStateOptions): Promise<void> {
  let { state, comments } = options;
  // An empty comment is never sent: the service replaces the event's comment with it, which would
  // erase a colleague's note.
  if (comments !== undefined && comments.trim() === '') {
    comments = undefined;
    if (state === undefined) throw new UsageError('nothing to change: the comment is empty and there is no --state', 'an empty comment is never sent, so that it cannot erase the comment the event has');
    session.context.stderr.write('note: the empty --comments is not sent (it would erase the comment the event has)\n');
  }
  if (state !== undefined) state = stateFromTyped(state, options.forceState === true, 'send');
  // Before anything is sent: the service would refuse it (422 comments:TOO_LONG).
  if (comments !== undefined) refuseLongComment(comments);
  const prompting = session.canPrompt;
  if (!prompting && state === undefined && comments === undefined) {
    throw new UsageError(
      'set-state needs --state (or --comments) when it cannot prompt',
      `pass e.g. --state APPROVED --comments "checked with the customer"; states: ${KNOWN_STATES.join(', ')}`,
    );
  }

  const client = options.dryRun ? undefined : await session.client();
  let current: string | null = null;
  const output = await session.output();
  // The state before the change: for the list of choices, and for the line that says what changed.
  if (client && (prompting || (!output.json && !options.verbose))) current = currentState((await client.getEvent(eventId)).body);
  if (prompting) {
    const prompter = await session.prompter();
    if (state === undefined) state = await askState(prompter, current);
    if (comments === undefined) comments = (await prompter.input('Comments (optional)')).trim() || undefined;
    if (comments !== undefined) refuseLongComment(comments);
  }
  if (state === undefined && comments === undefined) throw new UsageError('nothing to change: give a state or a comment', 'an empty comment is never sent, so that it cannot erase the event\'s comment');
  const change = { ...(state !== undefined ? { state } : {}), ...(comments !== undefined ? { comments } : {}) };

  if (options.dryRun) {
    const [{ previewRequest, eventPath }, settings] = await Promise.all([import('../api/api-client.js'), session.settings()]);
    // Not a preview of a request that would be refused: a stored key for another URL is not sent.
    if (settings.keyRefusal !== undefined) throw settings.keyRefusal;
    // A key in the credential store is not read for a dry run: the header is shown redacted all the same.
    const key = settings.apiKey ?? (settings.apiKeySource === 'credential-store' ? '[redacted]' : null);
    const request = previewRequest(settings.baseUrl, key, 'PATCH', eventPath(eventId, '/state'), change, settings.profile);
    if (output.json) return output.printJson(request);
    const { renderDryRun } = await import('../render/request-preview.js');
    return output.print(renderDryRun(request, output.style));
  }

  if (prompting && !options.yes) {
    const arrow = state !== undefined ? `${terminalSafe(current ?? '?')} → ${terminalSafe(state)}` : `keep ${terminalSafe(current ?? '?')}`;
    const note = comments !== undefined ? ` with comment "${terminalSafe(comments)}"` : '';
    const go = await (await session.prompter()).confirm(`Change ${terminalSafe(eventId)}: ${arrow}${note}?`, true);
    if (!go) throw new CliError('cancelled: nothing was changed', ExitCode.INTERRUPTED);
  }

  const reply = await client!.changeState(eventId, change);
  if (output.json) {
    if (reply.body !== undefined) output.printJson(reply.body);
    return;
  }
  if (options.verbose) {
    // A service may answer 204 with no body: show the summary as it now stands.
    const summary = reply.body ?? (await client!.getEvent(eventId)).body;
    const { renderEventSummary } = await import('../render/event-tables.js');
    return output.print(renderEventSummary(summary, output.style));
  }
  // One line: what changed (`ord-1002  IN_REVIEW → ESCALATED  comment recorded`).
  const after = currentState(reply.body) ?? state ?? current;
  const before = current ?? '?';
  const move = state === undefined || after === before ? `${terminalSafe(after ?? before)}${state !== undefined ? ' (unchanged)' : ''}` : `${terminalSafe(before)} → ${terminalSafe(after ?? state)}`;
  output.print(`${terminalSafe(eventId)}  ${move}${comments !== undefined ? '  comment recorded' : ''}`);
}
