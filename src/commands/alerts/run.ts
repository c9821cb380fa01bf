import { outputOf } from '../room-deps.js';
import type { AlertsDeps } from './deps.js';
import type { AlertsOptions } from './options.js';
import { renderAlerts } from './render.js';

/*
 * `alerts`: one GET of the event's risk assessment, then its rendering. A failure of the call
 * (not found, the service down) is thrown as it is: main says it and gives its exit code.
 */

export async function run(options: AlertsOptions, deps: AlertsDeps): Promise<void> {
  const { body } = await (await deps.client()).getRiskAssessment(options.eventId);
  await renderAlerts(body, outputOf(deps, options));
}
