import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/serve.js';
import { describeNotOnWindows, ON_WINDOWS } from '../../support/prerequisites.js';
import { send, tempDir } from '../../support/sandbox.js';

/*
 * The events hold names, emails, addresses and IPs: the database and its -wal and -shm files
 * are 0600, a directory fraudctl makes for them 0700.
 */

const tmp = tempDir();
afterAll(() => tmp.remove());
const mode = (path: string) => statSync(path).mode & 0o777;

async function storeOneEvent(dbPath: string, dbInOwnDirectory: boolean): Promise<Record<string, number>> {
  const sandbox = await startSandbox({ port: 0, dbPath, dbInOwnDirectory, env: {} });
  try {
    const res = await send(sandbox.url, 'POST', '/event', {
      body: { id: 'mode-1', amount: 1, currency: 'EUR', userName: 'Ada' },
    });
    expect(res.status).toBe(201);
    // Looked at while it runs: -wal and -shm exist only until close.
    return { db: mode(dbPath), wal: mode(`${dbPath}-wal`), shm: mode(`${dbPath}-shm`) };
  } finally {
    await sandbox.close();
  }
}

describeNotOnWindows(ON_WINDOWS.modes, 'database file modes', () => {
  it('creates the data directory 0700 and the database, -wal and -shm 0600', async () => {
    const dir = join(tmp.dir, 'fresh', 'fraudctl');
    expect(await storeOneEvent(join(dir, 'sandbox.db'), true)).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(tmp.dir, 'fresh'))).toBe(0o700);
  });

  it('tightens its own data directory and files that an older version left readable', async () => {
    const dir = join(tmp.dir, 'old', 'fraudctl');
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    const db = join(dir, 'sandbox.db');
    writeFileSync(db, '');
    chmodSync(db, 0o644);
    expect(await storeOneEvent(db, true)).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    expect(mode(dir)).toBe(0o700);
  });

  it('with --db in an existing shared directory: 0600 files, the directory left as the user set it', async () => {
    const dir = join(tmp.dir, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    expect(await storeOneEvent(join(dir, 'events.db'), false)).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    expect(mode(dir)).toBe(0o755);
  });

  it('with --db in a directory that does not exist yet: creates it 0700', async () => {
    const dir = join(tmp.dir, 'new-for-db', 'deeper');
    expect(await storeOneEvent(join(dir, 'events.db'), false)).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    expect(mode(dir)).toBe(0o700);
  });
});
