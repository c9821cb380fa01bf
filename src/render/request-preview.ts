import type { RequestPreview } from '../api/api-client.js';
import type { Style } from './colours.js';
import { jsonForTerminal, terminalSafe } from './terminal-text.js';

/** A request that --dry-run did not send: method and URL, headers (key redacted), body. */
export function renderDryRun(request: RequestPreview, style: Style): string {
  const lines = [
    style.dim('dry run: nothing was sent'),
    style.bold(`${request.method} ${terminalSafe(request.url)}`),
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${terminalSafe(value)}`),
  ];
  if (request.body !== undefined) lines.push('', jsonForTerminal(request.body, true));
  return lines.join('\n');
}
