/**
 * Exit codes of fraudctl. `main` is the only place that turns an error into one of these;
 * everything else throws a CliError (or lets a typed error travel up).
 */
export const ExitCode = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  REJECTED: 5,
  UNAVAILABLE: 6,
  INTERRUPTED: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure with a message meant for the user: one line, plus an optional hint on what to do. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.FAILURE,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wrong arguments, options or configuration given by the user: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.USAGE, hint);
    this.name = 'UsageError';
  }
}
