import { dirname } from 'node:path';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { fileErrorCause, fileErrorHint, fileWriteFailure } from '../files/file-errors.js';
import { listFilesCommand, moveFileCommand } from '../render/shell-command.js';
import { terminalSafe } from '../render/terminal-text.js';
import { SandboxError } from '../sandbox/sandbox-error.js';

/*
 * The sandbox's errors in fraudctl's words: a bad input is a usage error (exit 2) as the sandbox
 * said it; a database file that cannot be used is named (terminal-safe) with its cause in the
 * words every local file gets (src/files/file-errors.ts) and a hint that is a command for the
 * user's shell. Any other error passes unchanged.
 */

export function cliErrorOf<E>(error: E): E | CliError {
  if (!(error instanceof SandboxError)) return error;
  const facts = error.facts;
  if (facts.kind === 'input') return new UsageError(error.message, facts.hint);

  const { path, ownsDirectory } = facts;
  const shown = `the sandbox database ${terminalSafe(path)}`;
  const dir = dirname(path);
  // The default database's directory holds only it and its -wal and -shm: moved away whole, the
  // sandbox starts afresh. A file given with --db is the user's to move, with its sidecars.
  const startAfresh = ownsDirectory
    ? `the sandbox starts empty once it is put aside: ${moveFileCommand(dir, `${dir}.old`)}`
    : 'give another file with --db, or move this one away together with its -wal and -shm files';
  const movedBy = ownsDirectory ? 'XDG_DATA_HOME' : '--db';
  const checkBoth = `check the file and its directory: ${listFilesCommand([dir, path])}`;
  const fail = (message: string, hint: string) => new CliError(message, ExitCode.FAILURE, hint);
  switch (facts.fault) {
    case 'newer-schema':
      return fail(
        `${shown} was made by a newer fraudctl (schema version ${facts.version}, ` +
          `newer than this fraudctl's ${facts.supported}): it was not changed`,
        `use that fraudctl with it; ${startAfresh}`,
      );
    case 'cannot-make-directory': {
      const at = facts.failedAt === dir ? '' : ` (at ${terminalSafe(facts.failedAt)})`;
      return fail(
        `cannot create the directory of ${shown}${at}: ${fileErrorCause(facts.cause)}`,
        fileErrorHint(facts.cause, facts.existingParent, movedBy),
      );
    }
    case 'damaged':
      return fail(`${shown} is damaged, or not a SQLite database (${facts.code})`, startAfresh);
    case 'disk-full':
      return fail(
        `cannot write ${shown}: ${fileErrorCause({ code: 'ENOSPC' }, facts.code)}`,
        fileErrorHint({ code: 'ENOSPC' }, dir),
      );
    case 'read-only':
      return fail(`cannot write ${shown}: it or its directory is read-only (${facts.code})`, checkBoth);
    case 'cannot-open':
      return fail(`cannot use ${shown}: it cannot be opened (${facts.code})`, checkBoth);
    case 'io-error':
      return fail(`cannot use ${shown}: an input/output error (${facts.code})`, checkBoth);
    case 'file-error': {
      // Opened to be read and written: what cannot be opened so cannot be written, in every file's words.
      const option = ownsDirectory ? {} : { option: '--db' };
      const { message, hint } = fileWriteFailure(path, facts.cause, 'sandbox database', {
        movedBy,
        at: dir,
        ...option,
      });
      return fail(message, hint);
    }
  }
}
