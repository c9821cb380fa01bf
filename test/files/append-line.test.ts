import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileWriteError, LineAppender } from '../../src/files/append-line.js';
import { tempDir } from '../support/sandbox.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';
import { notUnderWine, UNDER_WINE } from '../support/prerequisites.js';

const tmp = tempDir('fraudctl-append-');
let disk: SmallDisk | undefined;
afterAll(async () => {
  disk?.remove();
  await tmp.remove();
});

describe('LineAppender', () => {
  it.skipIf(!smallDisk.available).each([0, 100])(
    `cuts a line the full disk took only part of back off, so the file holds whole lines only (looked at every %i ms)${smallDisk.skipReason}`,
    (every) => {
      disk?.remove();
      disk = smallDisk.mount(64 * 1024);
      // One page (4 KiB) free: the first line fills most of it, the second only partly fits.
      disk.fill(4096);
      const path = join(disk.path, 'lines');
      const fd = openSync(path, 'a');
      const lines = new LineAppender(fd, path, every);
      try {
        const first = `${'a'.repeat(3999)}\n`;
        lines.append(first);
        let thrown: unknown;
        try {
          lines.append(`${'b'.repeat(299)}\n`);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(FileWriteError);
        expect((thrown as FileWriteError).message).toBe(`cannot write ${path}: no space left on its disk (ENOSPC)`);
        expect(readFileSync(path, 'utf8')).toBe(first);
        // Room again: the next line lands right after the last whole one.
        disk.free();
        lines.append('c\n');
        expect(readFileSync(path, 'utf8')).toBe(`${first}c\n`);
      } finally {
        closeSync(fd);
      }
    },
  );

  it('refuses to write to a file deleted since it was opened', () => {
    notUnderWine(UNDER_WINE.deletedWhileOpen);
    const path = join(tmp.dir, 'deleted');
    writeFileSync(path, 'kept\n');
    const fd = openSync(path, 'a');
    try {
      rmSync(path);
      expect(() => new LineAppender(fd, path).append('lost\n')).toThrow(
        expect.objectContaining({ code: 'DELETED', message: `${path} was deleted while fraudctl was writing it` }),
      );
    } finally {
      closeSync(fd);
    }
  });

  // On Windows the link count is not trusted: a path that no longer names the open file is a deletion there.
  it.each([
    ['gone from its path', (path: string) => renameSync(path, `${path}.moved`)],
    ['another file at its path', (path: string) => (renameSync(path, `${path}.old`), writeFileSync(path, 'new\n'))],
  ])('on Windows, a file %s is refused as deleted; elsewhere the link count decides', (_what, change) => {
    for (const platform of ['win32', 'linux'] as const) {
      const path = join(tmp.dir, `looked-at-${platform}-${_what.length}`);
      writeFileSync(path, 'kept\n');
      const fd = openSync(path, 'a');
      try {
        change(path);
        const append = () => new LineAppender(fd, path, 0, platform).append('more\n');
        if (platform === 'win32') expect(append).toThrow(expect.objectContaining({ code: 'DELETED' }));
        else expect(append).not.toThrow();
      } finally {
        closeSync(fd);
      }
    }
  });
});
