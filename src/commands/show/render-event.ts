import type { Output } from '../../render/output.js';

/*
 * One event: the service's summary as it gave it (--json), or as tables grouped into sections
 * (src/render/event-tables.ts), whose code is loaded only when they are drawn.
 */

export async function renderEvent(summary: unknown, output: Output): Promise<void> {
  if (output.json) return output.printJson(summary);
  const { renderEventSummary } = await import('../../render/event-tables.js');
  output.print(renderEventSummary(summary, output.style));
}
