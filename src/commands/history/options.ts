/*
 * What `history` is asked, as one typed value: command.ts makes it from argv (the id checked),
 * run.ts does it.
 */

export interface HistoryOptions {
  eventId: string;
  /** The action logs to read (review --log, set-state --log), as given. */
  logs: string[];
  /** Tell the story from lines that break the chain too, marked. */
  includeUnverified: boolean;
  json: boolean;
  noColor: boolean;
}
