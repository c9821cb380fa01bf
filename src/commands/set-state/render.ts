import type { ApiClient } from '../../api/api-client.js';
import { stateIn } from '../../contract/states.js';
import type { Output } from '../../render/output.js';
import { sym } from '../../render/symbols.js';
import { terminalSafe } from '../../render/terminal-text.js';
import type { Comment, OneChangeOutcome } from '../../state-changes/set-state.js';
import type { OneEventOptions } from './options.js';

/*
 * What one event's change came to: the service's body (--json), the updated summary's tables
 * (--verbose), or one line of what changed; after --dry-run, the request it would send, then the
 * refusal the real run would meet. (Many events print a line per id as each is settled, from
 * the pool: src/state-changes/change-lines.ts and change-summary.ts.)
 */

export async function renderOneChange(
  outcome: OneChangeOutcome,
  options: Pick<OneEventOptions, 'verbose'>,
  output: Output,
  deps: { client(): Promise<Pick<ApiClient, 'getEvent'>> },
): Promise<void> {
  if (outcome.kind === 'dry-run') {
    if (output.json) output.printJson(outcome.request);
    else {
      const { renderDryRun } = await import('./render-dry-run.js');
      output.print(renderDryRun(outcome.request, output.style));
    }
    if (outcome.failure !== null) throw outcome.failure;
    return;
  }
  if (output.json) {
    if (outcome.body !== undefined) output.printJson(outcome.body);
    return;
  }
  if (options.verbose) {
    // A service may answer 204 with no body: show the summary as it now stands.
    const summary = outcome.body ?? (await (await deps.client()).getEvent(outcome.eventId)).body;
    const { renderEventSummary } = await import('../../render/event-tables.js');
    return output.print(renderEventSummary(summary, output.style));
  }
  output.print(changedLine(outcome.eventId, outcome.state, outcome.before, outcome.body, outcome.comment));
}

/** One line of what changed (`ord-1002  IN_REVIEW → ESCALATED  comment recorded`), from the state read just before. */
export function changedLine(
  eventId: string,
  state: string | undefined,
  before: string | null,
  reply: unknown,
  comment: Comment | undefined,
): string {
  const after = stateIn(reply) ?? state ?? before;
  const was = before ?? '?';
  const move =
    state === undefined || after === was
      ? `${terminalSafe(after ?? was)}${state !== undefined ? ' (unchanged)' : ''}`
      : `${terminalSafe(was)} ${sym.arrow} ${terminalSafe(after ?? state)}`;
  const recorded =
    comment === undefined
      ? ''
      : comment.kept !== null
        ? '  comment added after the one it had'
        : comment.replaced !== null
          ? '  comment recorded (replacing the one it had)'
          : '  comment recorded';
  return `${terminalSafe(eventId)}  ${move}${recorded}`;
}
