import type { Session } from '../session.js';
import { readEvent } from './event-input.js';

/*
 * The work behind submit, show and alerts: one call to the service each, then either the
 * service's JSON (--json) or the rendered tables.
 */

export async function submitEvent(session: Session, source: string): Promise<void> {
  const payload = await readEvent(source, session.context);
  const client = await session.client();
  const { body } = await client.submitEvent(payload);
  const output = await session.output();
  if (output.json) return output.printJson(body);
  const { renderDecision } = await import('../render/event-tables.js');
  output.print(renderDecision(body, output.style));
}

export async function showEvent(session: Session, eventId: string): Promise<void> {
  const client = await session.client();
  const { body } = await client.getEvent(eventId);
  const output = await session.output();
  if (output.json) return output.printJson(body);
  const { renderEventSummary } = await import('../render/event-tables.js');
  output.print(renderEventSummary(body, output.style));
}

export async function showAlerts(session: Session, eventId: string): Promise<void> {
  const client = await session.client();
  const { body } = await client.getRiskAssessment(eventId);
  const output = await session.output();
  if (output.json) return output.printJson(body);
  const { renderRiskAssessment } = await import('../render/event-tables.js');
  output.print(renderRiskAssessment(body, output.style));
}
