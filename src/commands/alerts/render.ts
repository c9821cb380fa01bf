import type { Output } from '../../render/output.js';

/*
 * The risk assessment as the service gave it (--json), or as tables: decision and score, alerts
 * by score, list matches (src/render/decision-tables.ts, which review shows too). The tables'
 * code is loaded only when they are drawn.
 */

export async function renderAlerts(assessment: unknown, output: Output): Promise<void> {
  if (output.json) return output.printJson(assessment);
  const { renderRiskAssessment } = await import('../../render/event-tables.js');
  output.print(renderRiskAssessment(assessment, output.style));
}
