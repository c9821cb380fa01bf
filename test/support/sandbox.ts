import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { Agent, request } from 'undici';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/serve.js';
import { defaultSandboxConfig, type SandboxConfig } from '../../src/sandbox/config/sandbox-config.js';

/*
 * A real sandbox on an ephemeral loopback port, and a small HTTP client for tests.
 * Every test file gets its own sandbox (and database), so files can run in parallel.
 */

export const DEMO_KEY = 'sandbox-demo-key';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface TestSandbox {
  url: string;
  sandbox: RunningSandbox;
  call(
    method: string,
    path: string,
    options?: {
      key?: string | null;
      body?: unknown;
      rawBody?: string;
      contentType?: string | null;
      headers?: Record<string, string>;
    },
  ): Promise<Reply>;
  close(): Promise<void>;
}

const agent = new Agent({ keepAliveTimeout: 1000, connections: 64 });

export async function send(
  url: string,
  method: string,
  path: string,
  options: Parameters<TestSandbox['call']>[2] = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? DEMO_KEY : options.key;
  if (key !== null) headers['x-client-api-key'] = key;
  let body: string | null = null;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== null && options.contentType !== null)
    headers['content-type'] = options.contentType ?? 'application/json';
  const res = await request(url + path, { method: method as 'GET', headers, body, dispatcher: agent });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** Writes a sandbox config (the defaults with `overrides` applied) to a temp file. */
export function writeConfig(overrides: Partial<SandboxConfig>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fraudctl-config-'));
  const file = join(dir, 'sandbox.json');
  writeFileSync(file, JSON.stringify({ ...defaultSandboxConfig(), ...overrides }));
  return file;
}

export async function startTestSandbox(options: Partial<SandboxOptions> = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ port: 0, dbPath: ':memory:', env: {}, ...options });
  return {
    url: sandbox.url,
    sandbox,
    call: (method, path, callOptions) => send(sandbox.url, method, path, callOptions),
    close: () => sandbox.close(),
  };
}

export function tempDir(prefix = 'fraudctl-test-'): { dir: string; remove(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => removeTempDir(dir) };
}

/** Retried by rmSync on EBUSY, EPERM and the like (up to 5 times, 100 ms apart, then longer): a virus scanner on Windows. */
const REMOVE = { recursive: true, force: true, maxRetries: 5 } as const;

/**
 * Removes a test's temp directory, sandbox databases included. On Windows an open file cannot be
 * deleted (EBUSY, EPERM), and a database this process closed may still be open: libsql lets go
 * of its file only once the statements prepared on it are collected (tursodatabase/libsql-js#228;
 * the sandbox gives them up at close, EventStore.release). Then garbage is collected and the
 * removal tried again; a file still held after that fails the clean-up, naming itself.
 */
export async function removeTempDir(dir: string): Promise<void> {
  try {
    rmSync(dir, REMOVE);
  } catch (error) {
    if (!['EBUSY', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    const { collectGarbage } = await import('./collect-garbage.js');
    await collectGarbage();
    rmSync(dir, REMOVE);
  }
}

/** State changes a sandbox recorded in its database file (`--db`), per event id asked for (0 for none): what "changed exactly once" is counted with. */
export function stateChangesIn(dbPath: string, ids: readonly string[]): Map<string, number> {
  const conn = new Database(dbPath, { readonly: true });
  try {
    const counts = new Map(ids.map((id) => [id, 0]));
    for (const [id, n] of conn
      .prepare('SELECT event_id, count(*) FROM state_changes GROUP BY event_id')
      .raw()
      .all() as [string, number][]) {
      if (counts.has(id)) counts.set(id, n);
    }
    return counts;
  } finally {
    conn.close();
  }
}
