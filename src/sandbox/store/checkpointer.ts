import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/*
 * WAL checkpoints, off the request path. SQLite's automatic checkpoint runs inside whichever
 * commit crosses the threshold and fsyncs there, stalling every request behind it for tens of
 * milliseconds. Instead the sandbox turns it off and a worker thread, on its own connection,
 * checkpoints what it can every quarter second (PASSIVE: it never blocks the writer).
 */

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.libsql);
const db = new Database(workerData.path);
db.exec('PRAGMA busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.exec('PRAGMA wal_checkpoint(PASSIVE)'); } catch { /* busy: next time */ }
}, workerData.everyMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, everyMs = 250): Checkpointer {
  const libsql = createRequire(import.meta.url).resolve('libsql');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, libsql, everyMs } });
  worker.unref();
  return {
    stop: async () => {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.ref(); // keep the process alive until the worker has closed its connection
      worker.postMessage('stop');
      await exited;
    },
  };
}
