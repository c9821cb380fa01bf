import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/serve.js';
import { cliEnv, runCli } from '../support/cli.js';
import { send, tempDir } from '../support/sandbox.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';
import { shellCommand } from '../../src/render/shell-command.js';

/*
 * The embedded sandbox's database as commands meet it: a damaged file, a full disk, a
 * read-only one. The error names the file and the real cause, never a bare "internal error",
 * "database or disk is full" or "ENOENT … mkdir".
 */

const tmp = tempDir('fraudctl-db-errors-');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
afterAll(() => tmp.remove());
const env = (dataHome: string) =>
  cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, 'config'), XDG_DATA_HOME: dataHome });

/** A database of a few events, then every page after the first overwritten: opens, fails when read. */
async function damagedDatabase(dataHome: string): Promise<string> {
  const path = join(dataHome, 'fraudctl', 'sandbox.db');
  const sandbox = await startSandbox({ port: 0, dbPath: path, dbInOwnDirectory: true, env: {} });
  for (let i = 0; i < 20; i++) {
    expect(
      (
        await send(sandbox.url, 'POST', '/event', {
          body: { id: `dmg-${i}`, amount: 1, currency: 'EUR', userName: 'Ada' },
        })
      ).status,
    ).toBe(201);
  }
  await sandbox.close();
  const size = statSync(path).size;
  expect(size).toBeGreaterThan(8192);
  const fd = openSync(path, 'r+');
  for (let at = 4096; at < size; at += 4096) writeSync(fd, Buffer.alloc(4096, 0x55), 0, 4096, at);
  closeSync(fd);
  return path;
}

describe('a damaged sandbox database', () => {
  it('a command: the file named with what to do, not "500 INTERNAL_ERROR"', async () => {
    const dataHome = join(tmp.dir, 'damaged');
    const path = await damagedDatabase(dataHome);
    const result = await runCli(['show', 'dmg-1'], { env: env(dataHome) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error: the sandbox database ${path} is damaged, or not a SQLite database (SQLITE_CORRUPT)\nthe sandbox starts empty once it is put aside: ${shellCommand(['mv', join(dataHome, 'fraudctl'), `${join(dataHome, 'fraudctl')}.old`])}\n`,
    );
    expect(result.stderr).not.toContain('INTERNAL_ERROR');
  });

  it('sandbox serve: the request fails with a 500, and the fault handed on names the file', async () => {
    const dataHome = join(tmp.dir, 'damaged-served');
    const path = await damagedDatabase(dataHome);
    const faults: Error[] = [];
    const sandbox = await startSandbox({
      port: 0,
      dbPath: path,
      dbInOwnDirectory: true,
      env: {},
      onUnexpectedError: (e) => faults.push(e),
    });
    try {
      expect((await send(sandbox.url, 'GET', '/event/dmg-1')).status).toBe(500);
    } finally {
      await sandbox.close().catch(() => undefined);
    }
    expect(faults.map((f) => f.message)).toEqual([
      `the sandbox database ${path} is damaged, or not a SQLite database (SQLITE_CORRUPT)`,
    ]);
  });
});

describe.skipIf(!smallDisk.available)(
  `the sandbox's data directory on a full or read-only disk${smallDisk.skipReason}`,
  () => {
    let disk: SmallDisk | undefined;
    afterEach(() => {
      disk?.remove();
      disk = undefined;
    });

    it('full: the database and "no space" named', async () => {
      disk = smallDisk.mount(64 * 1024);
      disk.fill();
      const result = await runCli(['show', 'x-1'], { env: env(disk.path) });
      expect(result.code).toBe(1);
      const dir = join(disk.path, 'fraudctl');
      expect(result.stderr).toBe(
        `error: cannot write the sandbox database ${join(dir, 'sandbox.db')}: no space left on its disk (SQLITE_FULL)\nfree some space and try again; df -h ${dir} shows how full the disk is\n`,
      );
    });

    it('full but for a few pages (8 levels): the full disk and df, not an I/O error, "cannot rollback" or ls -ld', async () => {
      const outcomes = new Set<string>();
      for (let leave = 8192; leave <= 64 * 1024; leave += 8192) {
        disk = smallDisk.mount(256 * 1024);
        disk.fill(leave);
        const result = await runCli(['show', 'x-1'], { env: env(disk.path) });
        const dir = join(disk.path, 'fraudctl');
        if (result.code === 3) {
          // Room enough to make the database: the event is just not there.
          expect(result.stderr, `${leave} bytes left`).toMatch(/^error: no event "x-1"/m);
          outcomes.add('opened');
        } else {
          const database = escape(join(dir, 'sandbox.db'));
          const full = new RegExp(
            `^error: cannot write the sandbox database ${database}: no space left on its disk \\((SQLITE_[A-Z_]+)\\)\n`,
          );
          expect(result.stderr, `${leave} bytes left`).toMatch(full);
          const hint = `free some space and try again; df -h ${dir} shows how full the disk is`;
          expect(result.stderr.split('\n')[1], `${leave} bytes left`).toBe(hint);
          outcomes.add(full.exec(result.stderr)![1]!);
        }
        disk.remove();
        disk = undefined;
      }
      // Both ways SQLite meets a full disk were met: a write (SQLITE_FULL), and the -shm file that cannot grow.
      expect([...outcomes].sort()).toEqual(expect.arrayContaining(['SQLITE_FULL', 'SQLITE_IOERR_SHMSIZE']));
    }, 60_000);

    it('read-only: the directory and EROFS named, not "ENOENT … mkdir"', async () => {
      disk = smallDisk.mount(64 * 1024);
      disk.readOnly();
      const result = await runCli(['show', 'x-1'], { env: env(disk.path) });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `error: cannot create the directory of the sandbox database ${join(disk.path, 'fraudctl', 'sandbox.db')}: its file system is mounted read-only (EROFS)\nset XDG_DATA_HOME to a directory on a writable disk\n`,
      );
    });
  },
);
