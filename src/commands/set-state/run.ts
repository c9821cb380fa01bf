import { outputOf } from '../room-deps.js';
import type { SetStateDeps } from './deps.js';
import type { SetStateOptions } from './options.js';
import { renderOneChange } from './render.js';

/*
 * `set-state`: one event (state-changes/set-state.ts: read, asked, confirmed, read again, sent),
 * then what it came to printed here; or many (state-changes/run-bulk-change.ts: the ids on the
 * pool, a line per id as each is settled, the summary). Each form's work is loaded when it runs.
 */

export async function run(options: SetStateOptions, deps: SetStateDeps): Promise<void> {
  if (options.form === 'many') {
    const { bulkSetState } = await import('../../state-changes/run-bulk-change.js');
    return bulkSetState(options, deps);
  }
  const { setState } = await import('../../state-changes/set-state.js');
  const outcome = await setState(options.eventId, options, deps);
  await renderOneChange(outcome, options, outputOf(deps, options), deps);
}
