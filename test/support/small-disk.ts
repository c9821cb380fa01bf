import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onWindows, requireAll, WINDOWS_SKIP } from './prerequisites.js';

/*
 * A small disk of a test's own: a tmpfs of a given size mounted on a temp directory, to fill up
 * for real (ENOSPC from the kernel, short writes and all). Mounting needs root (CI runs as root
 * here) and mount(8) from util-linux; where either is missing the tests that need one are skipped
 * with this reason in their title (`it.skipIf(!smallDisk.available)(`…${smallDisk.skipReason}`)`),
 * except under FRAUDCTL_REQUIRE_ALL_TESTS=1, where they run and fail (prerequisites.ts). On
 * Windows there is no tmpfs: skipped there, saying so, whatever the variable says.
 */

export interface SmallDisk {
  /** The mounted directory. */
  readonly path: string;
  /** Fills the disk to `leaveBytes` free (a file named `filler`). */
  fill(leaveBytes?: number): void;
  /** Frees what fill() took. */
  free(): void;
  /** Remounts it read-only (EROFS for every write from then on). */
  readOnly(): void;
  /** Unmounts it and removes the directory. */
  remove(): void;
}

function probe(): string | null {
  if (process.platform !== 'linux') return 'tmpfs mounts need Linux';
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const dir = mkdtempSync(join(tmpdir(), 'fraudctl-disk-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return null;
  } catch {
    return 'mount -t tmpfs failed (program mount, package util-linux, and the right to mount)';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const reason = probe();

export const smallDisk = {
  available: reason === null || (requireAll && !onWindows),
  /** ' (skipped: needs …)' (' (skipped: not on Windows: …)' there) for a test's title, or ''. */
  skipReason:
    reason === null
      ? ''
      : onWindows
        ? ` (skipped: ${WINDOWS_SKIP}a small disk of its own is a tmpfs mount, Linux only)`
        : ` (skipped: needs a small disk: ${reason})`,
  mount(bytes: number): SmallDisk {
    const path = mkdtempSync(join(tmpdir(), 'fraudctl-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', path]);
    const filler = join(path, 'filler');
    return {
      path,
      fill(leaveBytes = 0) {
        // dd stops at ENOSPC; then give back what the test asked for.
        try {
          execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4096'], { stdio: 'ignore' });
        } catch {
          /* ENOSPC: the disk is full, as asked */
        }
        if (leaveBytes > 0) execFileSync('truncate', ['-s', `-${leaveBytes}`, filler]);
      },
      free() {
        rmSync(filler, { force: true });
      },
      readOnly() {
        execFileSync('mount', ['-o', 'remount,ro', path]);
      },
      remove() {
        try {
          execFileSync('umount', ['-l', path], { stdio: 'ignore' });
        } finally {
          rmSync(path, { recursive: true, force: true });
        }
      },
    };
  },
};
