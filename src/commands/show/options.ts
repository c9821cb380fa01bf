import type { ListFormat } from '../../event-lists/show-list.js';

/*
 * What `show` is asked, as one typed value: command.ts makes it from argv (which of the three
 * forms, the flag combinations checked), run.ts does it.
 */

/** One event, in full. */
export interface ShowOneOptions {
  form: 'one';
  /** Checked: not empty, no control characters. */
  eventId: string;
  /** The service's body as JSON (--json) instead of the tables. */
  json: boolean;
  noColor: boolean;
}

/** One event watched (--watch) until a final state, or --until's. */
export interface ShowWatchOptions {
  form: 'watch';
  eventId: string;
  /** Seconds between checks (at least 1). */
  intervalSeconds: number;
  /** The state to stop at (as the contract spells it, or as typed with --force-state); null: any final state. */
  until: string | null;
  json: boolean;
  noColor: boolean;
}

/** Many ids (more than one, --from, or --csv): a row each. */
export interface ShowListOptions {
  form: 'list';
  /** The ids of the arguments, pasted lists split. */
  ids: string[];
  /** `--from`: a file, `-` for stdin; null: the arguments only. */
  from: string | null;
  format: ListFormat;
  /** Requests in flight at once. */
  concurrency: number;
  noColor: boolean;
}

export type ShowOptions = ShowOneOptions | ShowWatchOptions | ShowListOptions;
