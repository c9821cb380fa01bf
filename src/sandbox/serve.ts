import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import { inputError } from './sandbox-error.js';
import { loadSandboxConfig } from './config/sandbox-config.js';
import { EventService } from './event-service.js';
import { buildSandboxApp } from './http/app.js';
import { parseChaosSpec } from './http/chaos.js';
import type { HttpTimeouts } from './http/socket-replies.js';
import { openDatabase, servingDatabaseFault } from './store/database.js';
import { EventStore } from './store/event-store.js';

/*
 * Starting and stopping a sandbox: configuration, database, HTTP listener. Used by
 * `fraudctl sandbox serve` and the CLI's embedded default (both through src/sandbox-host/, which
 * words its errors), and by the tests. What cannot be used is a SandboxError (sandbox-error.ts).
 */

export interface SandboxOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** A file path, or ':memory:'. */
  dbPath: string;
  /** dbPath is in fraudctl's own data directory (the default): that directory is made 0700. */
  dbInOwnDirectory?: boolean;
  configFile?: string;
  chaos?: string;
  /** Limits on slow clients; the defaults suit real links, tests shorten them. */
  timeouts?: Partial<HttpTimeouts>;
  env?: NodeJS.ProcessEnv;
  /** An error no answer explains (a 500); one the database file caused comes as a SandboxError of kind 'database'. */
  onUnexpectedError?: (error: Error) => void;
}

export interface RunningSandbox {
  url: string;
  port: number;
  dbPath: string;
  configSource: string;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const loaded = loadSandboxConfig(options.configFile, options.env ?? {});
  if (!isLoopback(host) && loaded.merchants.some((m) => m.usesWellKnownKey)) {
    throw inputError(
      `refusing to listen on ${host}: a merchant uses the public default key, which anyone could use`,
      'set FRAUDCTL_SANDBOX_KEY to a secret of your own, or give merchants their own keys with --config',
    );
  }
  const chaos = options.chaos ? parseChaosSpec(options.chaos) : undefined;
  const dbOptions = { ownsDirectory: options.dbInOwnDirectory ?? false };
  const database = openDatabase(options.dbPath, dbOptions);
  const { onUnexpectedError } = options;
  try {
    const store = new EventStore(database.db);
    const service = new EventService(store, loaded.config);
    const app = await buildSandboxApp({
      service,
      merchants: loaded.merchants,
      ...(chaos ? { chaos } : {}),
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      // A damaged page or a full disk met while serving comes with the file behind it (a SandboxError).
      ...(onUnexpectedError
        ? {
            onUnexpectedError: (error: Error) =>
              onUnexpectedError(servingDatabaseFault(error, options.dbPath, dbOptions) ?? error),
          }
        : {}),
    });
    await app.listen({ host, port: options.port ?? 8787 });
    const { port } = app.server.address() as AddressInfo;
    const urlHost = isIP(host) === 6 ? `[${host}]` : host;
    return {
      url: `http://${urlHost}:${port}`,
      port,
      dbPath: options.dbPath,
      configSource: loaded.source,
      // The database is closed whatever failed before (a last commit on a full disk): on
      // Windows an open database file cannot be deleted or moved until the process ends.
      close: async () => {
        try {
          await app.close();
          store.flush();
        } finally {
          store.release();
          await database.close();
        }
      },
    };
  } catch (e) {
    await database.close();
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw inputError(
        `port ${options.port} on ${host} is in use`,
        'choose another with --port, or --port 0 for any free one',
      );
    }
    if ((e as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL' || (e as NodeJS.ErrnoException).code === 'ENOTFOUND') {
      throw inputError(`cannot listen on ${host}: no such local address`);
    }
    throw e;
  }
}
