import type { ApiClient, ApiResponse } from '../api/api-client.js';
import type { Session } from '../session.js';
import { readEvent } from './event-input.js';

/*
 * The work behind submit, show and alerts: one call to the service each, then either the
 * service's JSON (--json) or the rendered tables.
 */

type Renderer = 'renderDecision' | 'renderEventSummary' | 'renderRiskAssessment';

async function callAndShow(session: Session, call: (client: ApiClient) => Promise<ApiResponse>, renderer: Renderer): Promise<void> {
  const { body } = await call(await session.client());
  const output = await session.output();
  if (output.json) return output.printJson(body);
  const tables = await import('../render/event-tables.js');
  output.print(tables[renderer](body, output.style));
}

export async function submitEvent(session: Session, source: string): Promise<void> {
  const payload = await readEvent(source, session.context);
  await callAndShow(session, (client) => client.submitEvent(payload), 'renderDecision');
}

export const showEvent = (session: Session, eventId: string) =>
  callAndShow(session, (client) => client.getEvent(eventId), 'renderEventSummary');

export const showAlerts = (session: Session, eventId: string) =>
  callAndShow(session, (client) => client.getRiskAssessment(eventId), 'renderRiskAssessment');
