import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/serve.js';
import { openDatabase } from '../../../src/sandbox/store/database.js';
import { collectGarbage } from '../../support/collect-garbage.js';
import { descriptorsOn } from '../../support/open-files.js';
import { send, tempDir } from '../../support/sandbox.js';
import { smallDisk, type SmallDisk } from '../../support/small-disk.js';

/*
 * On Windows an open file cannot be deleted or moved ("file busy"), so a closed sandbox
 * must let go of its database files: even when the last checkpoint fails, and whatever still
 * holds the sandbox object. libsql closes a connection only once the statements prepared on it
 * are collected (tursodatabase/libsql-js#228), so the count is taken after a garbage collection.
 * Counted in /proc/self/fd (Linux): the descriptors on the database and its -wal and -shm.
 */

const tmp = tempDir('fraudctl-close-');
afterAll(() => tmp.remove());
let disk: SmallDisk | null = null;
afterEach(() => {
  disk?.remove();
  disk = null;
});

const openOn = (path: string) => ['', '-wal', '-shm'].map((suffix) => descriptorsOn(path + suffix));

describe('closing a sandbox database', () => {
  it('a served sandbox, closed: none of its files is open once garbage is collected, though the sandbox object is still held, and its directory can be deleted at once', async () => {
    const dir = join(tmp.dir, 'served');
    const path = join(dir, 'sandbox.db');
    const sandbox = await startSandbox({ port: 0, dbPath: path, dbInOwnDirectory: true, env: {} });
    expect(
      (
        await send(sandbox.url, 'POST', '/event', {
          body: { id: 'held-1', amount: 10, currency: 'EUR', userEmail: 'a@example.com' },
        })
      ).status,
    ).toBe(201);
    expect((await send(sandbox.url, 'GET', '/event/held-1')).status).toBe(200);
    await sandbox.close();
    await collectGarbage();
    // Where /proc can tell (Linux): no descriptor left. Everywhere: deleted without a retry, which
    // Windows refuses (EBUSY) for a file still open.
    if (descriptorsOn(path) !== null) expect(openOn(path)).toEqual([0, 0, 0]);
    rmSync(dir, { recursive: true });
    expect(existsSync(dir)).toBe(false);
    expect(sandbox.dbPath).toBe(path); // held to the end
  });

  it.skipIf(!smallDisk.available)(
    `on a full disk: the checkpoint's error is thrown, every file is let go all the same, and nothing is lost${smallDisk.skipReason}`,
    async () => {
      disk = smallDisk.mount(4 << 20);
      const path = join(disk.path, 'sandbox.db');
      const db = openDatabase(path);
      // 1 MiB goes into the WAL; the checkpoint at close would grow the database by as much, and only 0.5 MiB is left.
      disk.fill(1536 << 10);
      db.db.exec(
        'CREATE TABLE kept(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) INSERT INTO kept SELECT randomblob(100000) FROM n',
      );
      // Each file open (the database once or twice: the checkpoint worker may hold it too), so the count after can fail.
      expect(openOn(path).map((n) => (n ?? 0) >= 1)).toEqual([true, true, true]);
      await expect(db.close()).rejects.toMatchObject({ code: 'SQLITE_FULL' });
      await collectGarbage();
      expect(openOn(path)).toEqual([0, 0, 0]);
      disk.free();
      const again = openDatabase(path);
      expect((again.db.prepare('SELECT count(*) AS n FROM kept').get() as { n: number }).n).toBe(10);
      await again.close();
      expect(db.db.open).toBe(false); // held to the end
    },
  );
});
