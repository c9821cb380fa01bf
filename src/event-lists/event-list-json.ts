import type { EventRow } from './event-row.js';
import { jsonForTerminal } from '../render/terminal-text.js';

/*
 * Many events as JSON Lines (`show --from … --json`): a line per id. Apart from the table
 * (event-list.ts) so that --json loads none of its width tables
 * (docs/decisions/json-lines-without-width-tables.md).
 */

/** `{"id":…}` line: the service's body as it came, or the row's error in the service's error shape. */
export function listJsonLine(row: EventRow): string {
  if (row.kind === 'found') return jsonForTerminal(row.summary, false);
  const { status, errorType, errorCodes, requestId } = row.error;
  return jsonForTerminal({ id: row.id, error: { status, errorType, errorCodes, requestId } }, false);
}
