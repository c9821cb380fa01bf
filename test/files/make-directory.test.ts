import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MakeDirectoryError, makeDirectory } from '../../src/files/make-directory.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * makeDirectory names the real cause and the level that failed: Node's recursive mkdir
 * says ENOENT on a read-only file system.
 */

const root = mkdtempSync(join(tmpdir(), 'fraudctl-mkdir-'));
let disk: SmallDisk | undefined;
afterAll(() => {
  disk?.remove();
  rmSync(root, { recursive: true, force: true });
});

function failure(fn: () => unknown): MakeDirectoryError {
  try {
    fn();
  } catch (e) {
    if (e instanceof MakeDirectoryError) return e;
    throw e;
  }
  throw new Error('expected makeDirectory to fail');
}

describe('makeDirectory', () => {
  it('makes the missing levels, the last one with exactly the mode asked for, and says whether it made it', () => {
    notOnWindows(ON_WINDOWS.modes);
    const dir = join(root, 'a', 'b', 'c');
    expect(makeDirectory(dir, 0o700)).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'a')).isDirectory()).toBe(true);
    expect(makeDirectory(dir, 0o700)).toBe(false);
  });

  it('leaves the mode of a directory that was there', () => {
    notOnWindows(ON_WINDOWS.modes);
    const dir = join(root, 'open');
    mkdirSync(dir, { mode: 0o755 });
    expect(makeDirectory(dir, 0o700)).toBe(false);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
  });

  it('a file in the way: ENOTDIR at that file', () => {
    writeFileSync(join(root, 'plain'), '');
    const error = failure(() => makeDirectory(join(root, 'plain', 'x', 'y'), 0o700));
    expect(error.code).toBe('ENOTDIR');
    expect(error.failedAt).toBe(join(root, 'plain'));
  });

  it.skipIf(!smallDisk.available)(
    `a read-only file system: EROFS at the first level to make, not ENOENT${smallDisk.skipReason}`,
    () => {
      disk = smallDisk.mount(64 * 1024);
      disk.readOnly();
      // What Node's own recursive mkdir says here, which named neither cause nor level:
      expect(() => mkdirSync(join(disk!.path, 'x', 'y'), { recursive: true })).toThrow(
        expect.objectContaining({ code: 'ENOENT' }),
      );
      const error = failure(() => makeDirectory(join(disk!.path, 'x', 'y'), 0o700));
      expect(error.code).toBe('EROFS');
      expect(error.failedAt).toBe(join(disk.path, 'x'));
      expect(error.existingParent).toBe(disk.path);
    },
  );
});
