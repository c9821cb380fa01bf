/*
 * What `alerts` is asked, as one typed value: command.ts makes it from argv, run.ts does it.
 */

export interface AlertsOptions {
  /** The event whose risk assessment is shown (checked: not empty, no control characters). */
  eventId: string;
  /** The service's body as JSON (--json) instead of the tables. */
  json: boolean;
  noColor: boolean;
}
