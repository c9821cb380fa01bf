import { chmodSync, closeSync, existsSync, openSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'libsql';
import { SandboxError, type DatabaseFault } from '../sandbox-error.js';
import { startCheckpointer } from './checkpointer.js';
import { MakeDirectoryError, makeDirectory } from './make-directory.js';

/*
 * The sandbox's SQLite file (libsql: better-sqlite3's API with prebuilt binaries). WAL, so
 * readers never wait for the writer; synchronous=NORMAL, so a commit survives a crash or kill
 * of the process (not a power cut: this is a sandbox).
 *
 * Checkpoints run on a worker thread (checkpointer.ts), not inside a request's commit.
 *
 * Migrations are hand-written and tracked with PRAGMA user_version: SQLite's own counter is
 * all a single-file, single-writer schema needs, where a migration library would add a
 * metadata table and a dependency for the same effect.
 */

export type SqliteDatabase = InstanceType<typeof Database>;

const MIGRATIONS: readonly string[] = [
  // 1: events and their state history
  `CREATE TABLE events (
     merchant_id   TEXT    NOT NULL,
     id            TEXT    NOT NULL,
     payload_hash  TEXT    NOT NULL,
     event_ts      INTEGER NOT NULL,
     user_email    TEXT,
     user_ip       TEXT,
     state         TEXT    NOT NULL,
     comments      TEXT,
     summary_json  TEXT    NOT NULL,
     decision_json TEXT    NOT NULL,
     assessment_json TEXT  NOT NULL,
     received_at   TEXT    NOT NULL,
     updated_at    TEXT    NOT NULL,
     PRIMARY KEY (merchant_id, id)
   );
   CREATE INDEX events_email_velocity ON events (merchant_id, user_email, event_ts) WHERE user_email IS NOT NULL;
   CREATE INDEX events_ip_velocity ON events (merchant_id, user_ip, event_ts) WHERE user_ip IS NOT NULL;
   CREATE TABLE state_changes (
     seq         INTEGER PRIMARY KEY,
     merchant_id TEXT NOT NULL,
     event_id    TEXT NOT NULL,
     from_state  TEXT NOT NULL,
     to_state    TEXT NOT NULL,
     comments    TEXT,
     changed_at  TEXT NOT NULL
   );
   CREATE INDEX state_changes_event ON state_changes (merchant_id, event_id, seq);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export interface OpenDatabase {
  db: SqliteDatabase;
  /** Checkpoints what is left in the WAL and closes. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * The directory is fraudctl's own (the XDG data directory): make it 0700 even when it exists
   * already (older versions created it 0755). A directory given with --db is the user's: only
   * directories this creates get 0700, an existing one keeps its mode.
   */
  ownsDirectory?: boolean;
}

const PRIVATE_FILE = 0o600;
const PRIVATE_DIR = 0o700;
const onWindows = process.platform === 'win32';

/**
 * The events hold names, emails, addresses and IPs, so the database is the owner's alone:
 * 0600 files. SQLite creates -wal and -shm with the mode of the database file, so creating
 * that file 0600 before SQLite opens it covers all three; files made by an older version (0644)
 * are tightened. No umask: it is process-wide, and the CLI embeds the sandbox.
 */
function preparePrivateFiles(path: string, options: OpenOptions): void {
  const dir = dirname(path);
  makeDirectory(dir, PRIVATE_DIR);
  if (onWindows) return; // modes mean little there; the profile directory is private already
  if (options.ownsDirectory) chmodSync(dir, PRIVATE_DIR);
  if (existsSync(path)) chmodSync(path, PRIVATE_FILE);
  else closeSync(openSync(path, 'a', PRIVATE_FILE));
  tightenSidecars(path);
}

function tightenSidecars(path: string): void {
  if (onWindows) return;
  for (const suffix of ['-wal', '-shm']) {
    try {
      chmodSync(path + suffix, PRIVATE_FILE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

function openOrThrow(path: string, options: OpenOptions): OpenDatabase {
  const inMemory = path === ':memory:';
  if (!inMemory) preparePrivateFiles(path, options);
  const db = new Database(path);
  try {
    setUp(db, path, inMemory);
  } catch (e) {
    db.close();
    throw e;
  }
  if (inMemory) {
    return {
      db,
      close: async () => {
        db.close();
      },
    };
  }
  db.exec('PRAGMA wal_autocheckpoint = 0');
  const checkpointer = startCheckpointer(path);
  return {
    db,
    // The connection is closed even when the checkpoint fails (a full disk: what it could not
    // copy stays in the WAL, replayed at the next opening): an open file on Windows cannot be
    // moved or deleted, by the user or a test's clean-up, until the process ends.
    close: async () => {
      try {
        await checkpointer.stop();
        db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
    },
  };
}

function setUp(db: SqliteDatabase, path: string, inMemory: boolean): void {
  db.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;',
  );
  // An older version's -wal/-shm may have been 0644; new ones take the database file's 0600.
  if (!inMemory) tightenSidecars(path);
  migrate(db);
}

class NewerSchemaError extends Error {
  constructor(readonly version: number) {
    super(`schema version ${version}, newer than this fraudctl's ${SCHEMA_VERSION}`);
  }
}

function migrate(db: SqliteDatabase): void {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number };
  const current = row.user_version;
  if (current > SCHEMA_VERSION) {
    throw new NewerSchemaError(current);
  }
  for (let v = current; v < SCHEMA_VERSION; v++) {
    inTransaction(db, () => {
      db.exec(MIGRATIONS[v]!);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    });
  }
}

/**
 * `work` in a transaction. Not libsql's db.transaction(): on a full disk SQLite rolls the
 * transaction back itself (SQLITE_FULL), and the ROLLBACK libsql then runs fails with "cannot
 * rollback - no transaction is active", which is what the user was shown instead of the disk.
 */
function inTransaction(db: SqliteDatabase, work: () => void): void {
  db.exec('BEGIN');
  try {
    work();
    db.exec('COMMIT');
  } catch (e) {
    if (db.inTransaction) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // The first error is the one that says what happened.
      }
    }
    throw e;
  }
}

/**
 * Opens (creating when missing) the database at `path`. A database that cannot be used is a
 * SandboxError of kind 'database' naming the file and the cause: damaged or not a database, made
 * by a newer fraudctl, on a full or read-only disk, or in a directory that cannot be made.
 */
export function openDatabase(path: string, options: OpenOptions = {}): OpenDatabase {
  try {
    return openOrThrow(path, options);
  } catch (e) {
    throw databaseFault(e, path, options) ?? e;
  }
}

/** databaseFault for an error met while serving: only SQLite's own codes are the file's doing. */
export function servingDatabaseFault(error: unknown, path: string, options: OpenOptions = {}): SandboxError | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? databaseFault(error, path, options) : null;
}

/** Less free space than this under the database is a full disk, as far as SQLite can tell. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/** Whether the disk of `dir` has (next to) no space left; false when that cannot be told. */
function nearlyFull(dir: string): boolean {
  try {
    const disk = statfsSync(dir);
    return disk.bavail * disk.bsize < NEARLY_FULL_BYTES;
  } catch {
    return false;
  }
}

/** What an error of the database at `dir`'s file means for the file, or null when it is not the file's doing. */
function faultOf(error: unknown, dir: string): DatabaseFault | null {
  if (error instanceof NewerSchemaError) {
    return { fault: 'newer-schema', version: error.version, supported: SCHEMA_VERSION };
  }
  if (error instanceof MakeDirectoryError) {
    const { failedAt, existingParent } = error;
    return { fault: 'cannot-make-directory', failedAt, existingParent, cause: error.error };
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return { fault: 'damaged', code };
  // SQLite says SQLITE_FULL when a write finds the disk full, but an input/output error when
  // growing the -shm file fails (SQLITE_IOERR_SHMSIZE: ENOSPC, or a quota), or some other write
  // does: on a disk with next to no space left, that is the full disk.
  const ioError = code.startsWith('SQLITE_IOERR');
  if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR_SHMSIZE' || (ioError && nearlyFull(dir))) {
    return { fault: 'disk-full', code };
  }
  if (code.startsWith('SQLITE_READONLY')) return { fault: 'read-only', code };
  if (code === 'SQLITE_CANTOPEN') return { fault: 'cannot-open', code };
  if (code.startsWith('SQLITE_CANTOPEN') || ioError) return { fault: 'io-error', code };
  if (/^E[A-Z]+$/.test(code)) return { fault: 'file-error', cause: error as NodeJS.ErrnoException };
  return null;
}

/** The sandbox's own sentence for a fault of the file at `path` (a host may say it in its own words). */
function faultSentence(fault: DatabaseFault, path: string): string {
  const shown = `the sandbox database ${path}`;
  switch (fault.fault) {
    case 'newer-schema':
      return (
        `${shown} was made by a newer fraudctl (schema version ${fault.version}, ` +
        `newer than this fraudctl's ${fault.supported}): it was not changed`
      );
    case 'cannot-make-directory': {
      const at = fault.failedAt === dirname(path) ? '' : ` (at ${fault.failedAt})`;
      return `cannot create the directory of ${shown}${at}: ${fault.cause.code ?? fault.cause.message}`;
    }
    case 'damaged':
      return `${shown} is damaged, or not a SQLite database (${fault.code})`;
    case 'disk-full':
      return `cannot write ${shown}: no space left on its disk (${fault.code})`;
    case 'read-only':
      return `cannot write ${shown}: it or its directory is read-only (${fault.code})`;
    case 'cannot-open':
      return `cannot use ${shown}: it cannot be opened (${fault.code})`;
    case 'io-error':
      return `cannot use ${shown}: an input/output error (${fault.code})`;
    case 'file-error':
      return `cannot use ${shown}: ${fault.cause.code ?? fault.cause.message}`;
  }
}

/**
 * The fault for an error of the database at `path` that means the file itself cannot be used
 * (null for any other error): at opening, and while serving (a page found damaged, a disk that
 * fills up), so that a sandbox's 500 can be explained by the file behind it.
 */
export function databaseFault(error: unknown, path: string, options: OpenOptions = {}): SandboxError | null {
  const fault = faultOf(error, dirname(path));
  if (fault === null) return null;
  const facts = { kind: 'database' as const, path, ownsDirectory: options.ownsDirectory ?? false, ...fault };
  return new SandboxError(faultSentence(fault, path), facts);
}
