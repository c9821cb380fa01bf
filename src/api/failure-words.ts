/*
 * What the client's failures say about commands, flags and settings (the option naming the
 * URL, the command that shows an event, the timeout option) — given to the client by the layer above it
 * (src/failures/failure-words.ts, built by the session from the profile, where each setting came
 * from and the run's flags), so that src/api/ names no command or flag. The client composes a
 * failure's message and hint when it raises it, because a failure is recorded in many places
 * (results files, rows, notes), not only printed by main.
 */
export interface FailureWords {
  /** The option naming the service URL ("check … : it should name the service"). */
  readonly urlOption: string;
  /** Where the URL in force is changed: "check the host name in …", "check …". */
  readonly urlSetting: string;
  /** The hint for an answer that is not the service's. */
  readonly notTheService: string;
  /** The hint for a refused key (401). */
  readonly keyRefused: string;
  /** The command that shows the stored event. */
  showEvent(eventId: string): string;
  /** Where the states and their transitions are listed. */
  readonly stateHelp: string;
  /** The option that sets the time a call may take. */
  readonly timeoutOption: string;
  /** What to do when a batch's retry budget is spent. */
  readonly budgetSpent: string;
  /** How to allow plain http:// to another host, when the path is trusted. */
  readonly allowInsecureHttp: string;
}
