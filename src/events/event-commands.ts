import type { ApiClient, ApiResponse } from '../api/api-client.js';
import type { Session } from '../session.js';

/*
 * The work behind show: one call to the service, then either the service's JSON (--json) or the
 * rendered tables. (submit is a room of its own: src/commands/submit/.)
 */

type Renderer = 'renderDecision' | 'renderEventSummary';

async function callAndShow(
  session: Session,
  call: (client: ApiClient) => Promise<ApiResponse>,
  renderer: Renderer,
): Promise<void> {
  const { body } = await call(await session.client());
  const output = await session.output();
  if (output.json) return output.printJson(body);
  const tables = await import('../render/event-tables.js');
  output.print(tables[renderer](body, output.style));
}

export const showEvent = (session: Session, eventId: string) =>
  callAndShow(session, (client) => client.getEvent(eventId), 'renderEventSummary');
