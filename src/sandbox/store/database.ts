import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'libsql';
import { startCheckpointer } from './checkpointer.js';

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
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
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

export function openDatabase(path: string, options: OpenOptions = {}): OpenDatabase {
  const inMemory = path === ':memory:';
  if (!inMemory) preparePrivateFiles(path, options);
  const db = new Database(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  // An older version's -wal/-shm may have been 0644; new ones take the database file's 0600.
  if (!inMemory) tightenSidecars(path);
  migrate(db);
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
    close: async () => {
      await checkpointer.stop();
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

function migrate(db: SqliteDatabase): void {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number };
  const current = row.user_version;
  if (current > SCHEMA_VERSION) {
    throw new Error(`database schema version ${current} is newer than this fraudctl understands (${SCHEMA_VERSION}); upgrade fraudctl`);
  }
  for (let v = current; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    })();
  }
}
