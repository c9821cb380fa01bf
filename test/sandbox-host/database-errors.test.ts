import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../../src/errors/cli-error.js';
import { SandboxError } from '../../src/sandbox/sandbox-error.js';
import { openDatabase, SCHEMA_VERSION } from '../../src/sandbox/store/database.js';
import { cliErrorOf } from '../../src/sandbox-host/sandbox-errors.js';
import { tempDir } from '../support/sandbox.js';
import { shellCommand } from '../../src/render/shell-command.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * A sandbox database that cannot be used is named in the error, with what to do: damaged or not
 * a database, made by a newer fraudctl. The sandbox gives the facts (a SandboxError); fraudctl
 * says them (cliErrorOf), with a hint whose command works as written.
 */

const tmp = tempDir('fraudctl-db-open-');
afterAll(() => tmp.remove());

/** The sandbox's error, and fraudctl's words for it. */
function failure(fn: () => unknown): CliError & { facts: SandboxError['facts'] } {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof SandboxError)) throw e;
    const said = cliErrorOf(e);
    if (!(said instanceof CliError)) throw e;
    expect(said.exitCode).toBe(ExitCode.FAILURE);
    return Object.assign(said, { facts: e.facts });
  }
  throw new Error('expected the database to be refused');
}

describe('opening a sandbox database that cannot be used', () => {
  it('not a database: named, with a hint that puts it aside so the next open starts empty', async () => {
    const dir = join(tmp.dir, 'junk', 'fraudctl');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'sandbox.db');
    writeFileSync(
      path,
      'these are not the bytes of a SQLite database, but they are long enough to look like a header to nobody',
    );
    const error = failure(() => openDatabase(path, { ownsDirectory: true }));
    const facts = { kind: 'database', fault: 'damaged', code: 'SQLITE_NOTADB', path, ownsDirectory: true };
    expect(error.facts).toEqual(facts);
    expect(error.message).toBe(`the sandbox database ${path} is damaged, or not a SQLite database (SQLITE_NOTADB)`);
    expect(error.hint).toBe(
      `the sandbox starts empty once it is put aside: ${shellCommand(['mv', dir, `${dir}.old`])}`,
    );
    // The message and hint are checked above on every platform; the hint is run by sh.
    notOnWindows(ON_WINDOWS.sh);
    execFileSync('sh', ['-c', error.hint!.slice(error.hint!.indexOf('mv '))]);
    const fresh = openDatabase(path, { ownsDirectory: true });
    await fresh.close();
    expect(readFileSync(join(`${dir}.old`, 'sandbox.db'), 'utf8')).toMatch(/^these are not the bytes/);
  });

  it("a file given with --db: the hint speaks of --db, not of a directory that is the user's", () => {
    const path = join(tmp.dir, 'mine.db');
    writeFileSync(path, 'x'.repeat(200));
    const error = failure(() => openDatabase(path, { ownsDirectory: false }));
    expect(error.message).toBe(`the sandbox database ${path} is damaged, or not a SQLite database (SQLITE_NOTADB)`);
    expect(error.hint).toBe('give another file with --db, or move this one away together with its -wal and -shm files');
  });

  it('made by a newer fraudctl: named with both schema versions, and left unchanged', () => {
    const dir = join(tmp.dir, 'newer', 'fraudctl');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'sandbox.db');
    const db = new Database(path);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 8}`);
    db.close();
    const error = failure(() => openDatabase(path, { ownsDirectory: true }));
    const facts = { kind: 'database', fault: 'newer-schema', version: SCHEMA_VERSION + 8, supported: SCHEMA_VERSION };
    expect(error.facts).toMatchObject(facts);
    expect(error.message).toBe(
      `the sandbox database ${path} was made by a newer fraudctl (schema version ${SCHEMA_VERSION + 8}, newer than this fraudctl's ${SCHEMA_VERSION}): it was not changed`,
    );
    expect(error.hint).toBe(
      `use that fraudctl with it; the sandbox starts empty once it is put aside: ${shellCommand(['mv', dir, `${dir}.old`])}`,
    );
    const again = new Database(path);
    expect((again.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(
      SCHEMA_VERSION + 8,
    );
    again.close();
  });
});

describe('a database file the system refuses (its errno), in the words every written file gets', () => {
  const said = (code: string, ownsDirectory: boolean) =>
    cliErrorOf(
      new SandboxError('refused', {
        kind: 'database',
        path: '/data/sb.db',
        ownsDirectory,
        fault: 'file-error',
        cause: Object.assign(new Error(code), { code }),
      }),
    ) as CliError;

  it('--db a directory: "it is a directory", and give --db a file', () => {
    const error = said('EISDIR', false);
    expect([error.message, error.hint]).toEqual([
      'cannot write the sandbox database /data/sb.db: it is a directory',
      'give --db a file, not a directory',
    ]);
  });

  it('the default database on a read-only disk: EROFS, and the variable that moves it', () => {
    const error = said('EROFS', true);
    expect([error.message, error.hint]).toEqual([
      'cannot write the sandbox database /data/sb.db: its file system is mounted read-only (EROFS)',
      'set XDG_DATA_HOME to a directory on a writable disk',
    ]);
    expect(error.exitCode).toBe(ExitCode.FAILURE);
  });
});
