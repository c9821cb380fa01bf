import { KNOWN_STATES, TRANSITIONS, isKnownState } from '../contract/states.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import type { Session } from '../session.js';
import type { Prompter } from './prompter.js';

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
}

const OTHER = Symbol('other');
const KEEP = Symbol('keep');

async function askState(prompter: Prompter, current: string | null): Promise<string | undefined> {
  const allowed: readonly string[] = current && isKnownState(current) ? TRANSITIONS[current] : KNOWN_STATES;
  const ordered = [...KNOWN_STATES].sort((a, b) => Number(allowed.includes(b)) - Number(allowed.includes(a)));
  const choices = [
    ...ordered.map((s) => ({
      name: s === current ? `${s} (current)` : s,
      value: s as string | typeof OTHER | typeof KEEP,
      ...(current && !allowed.includes(s) && s !== current ? { description: `the sandbox does not allow ${current} → ${s}` } : {}),
    })),
    { name: 'other…', value: OTHER as string | typeof OTHER | typeof KEEP, description: 'a state this list does not know' },
    ...(current ? [{ name: 'keep the state, only add a comment', value: KEEP as string | typeof OTHER | typeof KEEP }] : []),
  ];
  const picked = await prompter.select<string | typeof OTHER | typeof KEEP>('New state', choices, allowed[0]);
  if (picked === KEEP) return undefined;
  if (picked === OTHER) return (await prompter.input('State', { required: true })).trim();
  return picked;
}

function currentState(summary: unknown): string | null {
  const state = typeof summary === 'object' && summary !== null ? (summary as { state?: unknown }).state : undefined;
  return typeof state === 'string' ? state : null;
}

export async function setState(session: Session, eventId: string, options: SetStateOptions): Promise<void> {
  let { state, comments } = options;
  const prompting = session.canPrompt;
  if (!prompting && state === undefined && comments === undefined) {
    throw new UsageError(
      'set-state needs --state (or --comments) when it cannot prompt',
      `pass e.g. --state APPROVED --comments "checked with the customer"; states: ${KNOWN_STATES.join(', ')}`,
    );
  }

  const client = options.dryRun ? undefined : await session.client();
  let current: string | null = null;
  if (prompting && client) current = currentState((await client.getEvent(eventId)).body);
  if (prompting) {
    const prompter = await session.prompter();
    if (state === undefined) state = await askState(prompter, current);
    if (comments === undefined) comments = (await prompter.input('Comments (optional)')).trim() || undefined;
  }
  if (state === undefined && comments === undefined) throw new UsageError('nothing to change: give a state or a comment');
  const change = { ...(state !== undefined ? { state } : {}), ...(comments !== undefined ? { comments } : {}) };

  const output = await session.output();
  if (options.dryRun) {
    const [{ previewRequest, eventPath }, settings] = await Promise.all([import('../api/api-client.js'), session.settings()]);
    const request = previewRequest(settings.baseUrl, settings.apiKey, 'PATCH', eventPath(eventId, '/state'), change);
    if (output.json) return output.printJson(request);
    const { renderDryRun } = await import('../render/request-preview.js');
    return output.print(renderDryRun(request, output.style));
  }

  if (prompting && !options.yes) {
    const { terminalSafe } = await import('../render/terminal-text.js');
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
  // A service may answer 204 with no body: show the summary as it now stands.
  const summary = reply.body ?? (await client!.getEvent(eventId)).body;
  const { renderEventSummary } = await import('../render/event-tables.js');
  output.print(renderEventSummary(summary, output.style));
}
