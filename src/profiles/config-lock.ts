import { dirname } from 'node:path';
import { CliError, ExitCode } from '../errors/cli-error.js';
import { acquireLock, holderWords, LockBusyError } from '../files/exclusive-lock.js';
import { fileWriteFailure } from '../files/file-errors.js';
import { terminalSafe } from '../render/terminal-text.js';
import { removeFileCommand } from '../render/shell-command.js';

/*
 * A lock around each read-modify-write of the config file, so that two fraudctl processes
 * changing it at once (`config set` in two terminals, `login` in a script) both keep their
 * change instead of the last write winning. The lock is the one every file fraudctl keeps to
 * one writer uses (src/files/exclusive-lock.ts): `config.json.lock`, created with O_EXCL,
 * taken from a holder only when that holder is gone — at once, without waiting — and never
 * because it has held the lock long (a slow fsync). A live holder is waited for up to
 * DEFAULT_WAIT_MS (the work under the lock is a read, a write and an fsync: milliseconds).
 */

const DEFAULT_WAIT_MS = 10_000;

/** Runs `work` holding the lock `path`, waiting up to `waitMs` for another holder that is alive. */
export function withFileLock<T>(path: string, work: () => T, waitMs = DEFAULT_WAIT_MS): T {
  let lock;
  try {
    lock = acquireLock(path, { waitMs });
  } catch (e) {
    if (e instanceof LockBusyError) {
      const hint =
        e.kind === 'elsewhere' || e.kind === 'unreadable'
          ? `try again; if no fraudctl runs there any more: ${removeFileCommand(path)}`
          : `try again once it has finished (it has held the lock for more than ${waitMs / 1000} s)`;
      const who = e.kind === 'unreadable' ? `a lock file this user cannot read` : holderWords(e.holder);
      throw new CliError(
        `the config file is locked by another fraudctl (${who}): nothing was changed`,
        ExitCode.FAILURE,
        hint,
      );
    }
    // `path` is the lock, made beside the file it keeps to one writer (exclusive-lock.ts: lockPathOf).
    const file = path.replace(/[.]lock$/, '');
    const { message, hint } = fileWriteFailure(file, e, 'config file', {
      doing: `cannot create its lock ${terminalSafe(path)}`,
      at: dirname(path),
      movedBy: 'XDG_CONFIG_HOME',
    });
    throw new CliError(`${message}; nothing was changed`, ExitCode.FAILURE, hint);
  }
  try {
    return work();
  } finally {
    lock.release();
  }
}
