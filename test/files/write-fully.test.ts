import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFully } from '../../src/files/write-fully.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';

describe('writeFully', () => {
  let disk: SmallDisk | undefined;
  afterAll(() => disk?.remove());

  it('writes every byte of a string and of a buffer', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'fraudctl-write-')), 'f');
    const fd = openSync(path, 'w');
    expect(writeFully(fd, 'héllo\n')).toBe(7);
    expect(writeFully(fd, Buffer.from('world'))).toBe(5);
    closeSync(fd);
    expect(readFileSync(path, 'utf8')).toBe('héllo\nworld');
  });

  it.skipIf(!smallDisk.available)(
    `fails with ENOSPC on a full disk instead of a short write${smallDisk.skipReason}`,
    () => {
      disk = smallDisk.mount(64 * 1024);
      const fd = openSync(join(disk.path, 'big'), 'w');
      try {
        // A short write on a nearly full disk (13 KB went as 4 KB); here far more than fits.
        expect(() => writeFully(fd, Buffer.alloc(256 * 1024, 0x61))).toThrow(
          expect.objectContaining({ code: 'ENOSPC' }),
        );
      } finally {
        closeSync(fd);
      }
    },
  );
});
