import { UsageError } from '../../errors/cli-error.js';
import { parseDuration } from '../../render/ages.js';
import { SORT_KEYS, type SortKey } from '../../review-queue/queue-order.js';

/*
 * What `review` is asked to do, as one typed value: command.ts makes it from argv, run.ts does
 * it. The checks of --sort and --sla are here, with the words review has always said for a bad
 * value (commander's own for .choices() would name the flag differently).
 */

export interface ReviewOptions {
  /** The events to review as given on the command line (checked: not empty, no control characters). */
  ids: string[];
  /** `--from`: a list of ids or a submit --out results file; `-` for stdin. */
  from: string | null;
  /** With a results file: every decided line, not only REVIEW. */
  allDecisions: boolean;
  /** Move an event to IN_REVIEW while it is on screen (off with --no-claim). */
  claim: boolean;
  includeClaimed: boolean;
  includeDecided: boolean;
  /** `--log`: the action log appended to. */
  log: string | null;
  /** `--sort`: the order of the queue (the events are read first); null: the list's order. */
  sort: SortKey | null;
  /** `--sla`: how long an event may wait for a decision (ms); null: only its age is shown. */
  slaMs: number | null;
  /** `--all-ids`: the summary lists the ids not reached too (by default: how many, and from which on). */
  allIds: boolean;
  /** The global --no-input: nobody at the keyboard, so no queue. */
  noInput: boolean;
  noColor: boolean;
}

export function parseSort(value: string): SortKey {
  if (!(SORT_KEYS as readonly string[]).includes(value))
    throw new UsageError(`--sort ${JSON.stringify(value)} is not an order: use ${SORT_KEYS.join(', ')}`);
  return value as SortKey;
}

/** `--sla 4h`: whole days, hours, minutes (as evaluate --maturity takes them). */
export function parseSla(value: string): number {
  const ms = parseDuration(value);
  if (ms === null)
    throw new UsageError(
      `--sla ${JSON.stringify(value)} is not a duration: give whole days, hours or minutes, like 4h, 30m, 2d or 1d12h`,
    );
  return ms;
}
