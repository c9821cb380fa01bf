import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { CliError, ExitCode } from '../errors/cli-error.js';
import { fileErrorCause } from './file-errors.js';
import { writeFully } from './write-fully.js';

/*
 * A new version of a file a run keeps, made at --resume (the results file, --rejects): whole or
 * not at all. It is written beside the file (`FILE.resume-PID.tmp`, mode 0600) in writes of up to
 * 256 KiB (not a line a write: the rename makes it whole, and a million lines take a fraction of
 * the time), fsynced, then renamed over it. The temp file is removed whenever the rename does not
 * happen, and a write that fails (a full disk) is said naming the file, the cause, and that the
 * file is unchanged.
 */

const FLUSH_BYTES = 256 * 1024;

/**
 * Rewrites `path` with what `fill` writes through `write`. `fill` returns false to keep the file
 * as it was (nothing is renamed). Returns whether the file was replaced.
 */
export async function rewriteForResume(
  path: string,
  fill: (write: (text: string) => void) => Promise<boolean>,
): Promise<boolean> {
  const temp = `${path}.resume-${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  let pending: string[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pending.length > 0) writeFully(fd, pending.join(''));
    pending = [];
    pendingBytes = 0;
  };
  let replaced = false;
  try {
    const keep = await fill((text) => {
      pending.push(text);
      pendingBytes += text.length;
      if (pendingBytes >= FLUSH_BYTES) flush();
    });
    if (keep) {
      flush();
      fsyncSync(fd);
    }
    closeSync(fd);
    if (keep) {
      renameSync(temp, path);
      replaced = true;
    }
    return replaced;
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // closed before the failure (the rename failed)
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && !(error instanceof CliError)) {
      throw new CliError(
        `cannot prepare ${path} for --resume: ${fileErrorCause(error)} writing ${temp}; ${path} is unchanged`,
        ExitCode.FAILURE,
        'free space on its disk, then run the same command again',
      );
    }
    throw error;
  } finally {
    if (!replaced) rmSync(temp, { force: true });
  }
}
