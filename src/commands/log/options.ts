/*
 * What `log verify` is asked, as one typed value: command.ts makes it from argv (the hash
 * checked), run.ts does it.
 */

export interface LogVerifyOptions {
  /** The --log files, one log in order (oldest first, as after a rotation). */
  files: string[];
  /** --expect: the last line's hash an earlier verify printed, in lower case; null when not given. */
  expect: string | null;
  json: boolean;
  noColor: boolean;
}
