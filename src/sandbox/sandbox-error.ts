/*
 * The sandbox's own errors: it is the service, not part of the CLI, so it knows nothing of exit
 * codes, shells or terminals. A host (`fraudctl sandbox serve`, the CLI's embedded sandbox, a
 * test) decides how each is said: src/sandbox-host/sandbox-errors.ts for fraudctl.
 *
 * Two kinds. `input`: what the one starting it gave cannot be used (the config file, a rule, the
 * chaos spec, the host or port); the message says what, a hint what to do. `database`: the file
 * behind the sandbox cannot be used (damaged, full disk, read-only, made by a newer version): the
 * facts, for the host to put in its own words with commands for its shell.
 */

/** What the database fault was; `code` is SQLite's or the system's ("SQLITE_FULL", "EROFS"). */
export type DatabaseFault =
  | { fault: 'newer-schema'; version: number; supported: number }
  | { fault: 'cannot-make-directory'; failedAt: string; existingParent: string; cause: NodeJS.ErrnoException }
  | { fault: 'damaged'; code: string }
  | { fault: 'disk-full'; code: string }
  | { fault: 'read-only'; code: string }
  | { fault: 'cannot-open'; code: string }
  | { fault: 'io-error'; code: string }
  | { fault: 'file-error'; cause: NodeJS.ErrnoException };

export interface DatabaseFacts {
  /** The database file. */
  path: string;
  /** The file is in the host's own data directory (made by the sandbox), not one the user named. */
  ownsDirectory: boolean;
}

export type SandboxErrorFacts =
  { kind: 'input'; hint?: string } | ({ kind: 'database' } & DatabaseFacts & DatabaseFault);

export class SandboxError extends Error {
  constructor(
    message: string,
    readonly facts: SandboxErrorFacts,
  ) {
    super(message);
    this.name = 'SandboxError';
  }

  get kind(): SandboxErrorFacts['kind'] {
    return this.facts.kind;
  }

  get hint(): string | undefined {
    return this.facts.kind === 'input' ? this.facts.hint : undefined;
  }
}

/** A bad input: the message says what is wrong, the hint (if any) what to do. */
export function inputError(message: string, hint?: string): SandboxError {
  return new SandboxError(message, hint === undefined ? { kind: 'input' } : { kind: 'input', hint });
}
