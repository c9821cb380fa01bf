// The insert ceiling for scripts/bench-sandbox.mjs: a bare Fastify 5 app whose POST /event does
// the one thing no sandbox can skip, the durable insert, and nothing else — through the
// sandbox's own store code: openDatabase (libsql, WAL, synchronous=NORMAL, the checkpointer
// thread) and EventStore.insert with its group commit, answering 201 only once committed().
// No auth, schemas, normalising, hashing, velocity reads or serialisation of a decision.
//
// The row is the one the sandbox stores for the bench's first event (computed at start-up by
// the sandbox's own EventService on an in-memory database), with the id, user email and IP of
// each request's body, so the primary key and the two velocity indexes get the same keys as in
// the sandbox's run.
//
//   node scripts/bench/insert-ceiling.mjs <database file>
//
// The store's TypeScript is bundled with esbuild into node_modules/.cache (where libsql
// resolves). Prints `insert ceiling listening on http://127.0.0.1:PORT` once ready; stops on
// SIGTERM/SIGINT, committing and closing the database like the sandbox.
import { build } from 'esbuild';
import Fastify from 'fastify';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createEventGenerator } from './event-payloads.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dbPath = process.argv[2];
if (!dbPath) {
  console.error('usage: insert-ceiling.mjs <database file>');
  process.exit(2);
}

const bundle = `${ROOT}node_modules/.cache/fraudctl-bench/sandbox-store.mjs`;
await build({
  stdin: {
    contents: [
      "export { openDatabase } from './src/sandbox/store/database.ts';",
      "export { EventStore } from './src/sandbox/store/event-store.ts';",
      "export { EventService } from './src/sandbox/event-service.ts';",
      "export { loadSandboxConfig } from './src/sandbox/config/sandbox-config.ts';",
    ].join('\n'),
    resolveDir: ROOT,
    loader: 'ts',
  },
  outfile: bundle,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  logLevel: 'warning',
});
const { openDatabase, EventStore, EventService, loadSandboxConfig } = await import(pathToFileURL(bundle).href);

/** What the sandbox stores for the bench's first event: its real summary, decision and assessment. */
async function templateRow() {
  const { config, merchants } = loadSandboxConfig(undefined, {});
  const merchantId = merchants[0].id;
  const scratch = openDatabase(':memory:');
  try {
    const store = new EventStore(scratch.db);
    const payload = JSON.parse(createEventGenerator({ idPrefix: 'template' })().body);
    new EventService(store, config).submit(merchantId, payload);
    store.flush();
    const { state, comments, summary } = store.findSummary(merchantId, payload.id);
    const { decision, assessment } = store.findAssessment(merchantId, payload.id);
    const { payloadHash } = store.findForReplay(merchantId, payload.id);
    delete summary.state;
    delete summary.comments;
    return { merchantId, payloadHash, eventTs: Date.now(), state, comments, summary, decision, assessment };
  } finally {
    await scratch.close();
  }
}

const template = await templateRow();
const database = openDatabase(dbPath);
const store = new EventStore(database.db);
const app = Fastify({ logger: false });

app.post('/event', async (request, reply) => {
  const { id, userEmail, userIp } = request.body;
  store.insert({ ...template, id, userEmail, userIp, eventTs: Date.now() });
  await store.committed();
  reply.code(201);
  return { id };
});

const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`insert ceiling listening on ${url}\n`);

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    await app.close();
    store.flush();
    await database.close();
    process.exit(0);
  });
}
