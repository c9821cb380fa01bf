import type { OneChangeOptions } from '../../state-changes/set-state.js';
import type { BulkOptions } from '../../state-changes/run-bulk-change.js';

/*
 * What `set-state` is asked, as one typed value: one event (asked, confirmed, re-read, sent) or
 * many (the pool: a plan, a line per id). command.ts makes it from argv, deciding the form and
 * refusing the flag combinations; run.ts does it. Each form's fields are the work's own options
 * (src/state-changes/), so a flag is bound once.
 */

export interface OneEventOptions extends OneChangeOptions {
  form: 'one';
  /** The event (checked: not empty, no control characters). */
  eventId: string;
  /** The service's body as JSON (--json) instead of the line or the tables. */
  json: boolean;
  noColor: boolean;
}

export interface ManyEventsOptions extends BulkOptions {
  form: 'many';
}

export type SetStateOptions = OneEventOptions | ManyEventsOptions;
