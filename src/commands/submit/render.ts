import type { Output } from '../../render/output.js';
import { terminalSafe } from '../../render/terminal-text.js';

/*
 * One event's decision: the service's body (--json), or its tables (src/render/event-tables.ts,
 * loaded only when drawn). An event the service had already (a 200, not a 201) is said so, with
 * its state now in place of the one in its first decision; --json keeps the body and adds
 * `alreadyExisted: true` and `stateNow`.
 */

export interface Decision {
  body: unknown;
  /** The service had the event already: its state now (null: not known), read after the POST. */
  existed: { id: string; stateNow: string | null } | null;
}

export async function renderDecision({ body, existed }: Decision, output: Output): Promise<void> {
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  if (output.json)
    return output.printJson(existed ? { ...fields, alreadyExisted: true, stateNow: existed.stateNow } : body);
  if (existed)
    output.note(
      `event ${terminalSafe(existed.id)} already existed: the service answered 200 with its first decision; its state now is ${existed.stateNow === null ? 'unknown' : terminalSafe(existed.stateNow)}`,
    );
  const tables = await import('../../render/event-tables.js');
  output.print(
    tables.renderDecision(
      existed && existed.stateNow !== null ? { ...fields, state: existed.stateNow } : body,
      output.style,
    ),
  );
}
