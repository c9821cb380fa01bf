import type { RequestPreview } from '../../api/api-client.js';
import type { Style } from '../../render/colours.js';
import { jsonForTerminal, terminalSafe } from '../../render/terminal-text.js';

/**
 * A request that --dry-run did not send: the method and the URL (the path alone on the embedded
 * sandbox, which has no URL before it starts), where it would go, headers (key redacted), body.
 */
export function renderDryRun(request: RequestPreview, style: Style): string {
  const lines = [
    style.dim('dry run: nothing was sent'),
    style.bold(`${request.method} ${terminalSafe(request.url ?? request.path)}`),
    `to ${terminalSafe(request.to)}`,
    '',
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${terminalSafe(value)}`),
  ];
  if (request.body !== undefined) lines.push('', jsonForTerminal(request.body, true));
  return lines.join('\n');
}
