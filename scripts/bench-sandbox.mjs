// Throughput and latency of the sandbox (`fraudctl sandbox serve`, real SQLite file in WAL mode)
// against a ceiling: a minimal Fastify 5 app (scripts/bench/minimal-fastify.mjs) that parses the
// same JSON and answers a small object, on the same machine, with no auth, schemas, scoring or
// storage. Both run as child processes; autocannon drives them from this process with
// 32 connections for BENCH_SECONDS (default 10) per run:
//   POST /event      unique ids, varied amounts/currencies/countries/items, emails from a pool of
//                    2000 and IPs from a pool of 500, so the SQLite velocity rules run and fire;
//   GET /event/:id   cycling through the ids the sandbox stored in the POST run.
//
// Reading the output: "ratio" is sandbox req/s divided by ceiling req/s (1.00 would mean the
// sandbox costs nothing beyond Fastify itself); p50/p99 are autocannon's latency percentiles,
// in whole ms.
// The targets are POST ratio >= 0.40 and sandbox POST p99 < 25 ms. Client and servers share the
// machine's CPUs, so compare ratios rather than absolute figures across machines, and rerun when
// the printed load average shows other work competing for them.
//
// Exits 0 whether or not the targets are met (a measurement, not a test); exits 1 when a server
// fails to start or any response is non-2xx (the first such body is printed) or errors out.
// BENCH_SANDBOX_NODE_ARGS adds node flags to the sandbox child, e.g. to profile it:
//   BENCH_SANDBOX_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/sandbox-prof" node scripts/bench-sandbox.mjs
import autocannon from 'autocannon';
import Database from 'libsql';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createEventGenerator } from './bench/event-payloads.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 32;
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SANDBOX_NODE_ARGS = (process.env.BENCH_SANDBOX_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const API_KEY = 'sandbox-demo-key';
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;
const TARGET_POST_RATIO = 0.4;
const TARGET_POST_P99_MS = 25;

const EMAIL_POOL_SIZE = 2000;
const IP_POOL_SIZE = 500;

if (!(DURATION_SECONDS > 0)) {
  console.error(`BENCH_SECONDS must be a positive number of seconds, not "${process.env.BENCH_SECONDS}"`);
  process.exit(2);
}

// Whatever way this process ends, no child server outlives it and the temporary database goes.
const children = new Set();
const tempDir = mkdtempSync(path.join(os.tmpdir(), 'fraudctl-bench-'));
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(tempDir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => process.exit(128 + os.constants.signals[signal]));
}

/** Spawns `node <args>` and resolves with the URL from its first stdout line (`… listening on http://…`). */
async function startServer(name, args, env = process.env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const fail = (reason) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      reject(new Error(`${name} ${reason}${stderr ? `\n${stderr.trimEnd()}` : ''}`));
    };
    const onExit = (code, signal) => fail(`exited (${signal ?? `code ${code}`}) before listening`);
    const timer = setTimeout(() => fail(`did not print its URL within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    child.once('exit', onExit);
    lines.once('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (!match) return fail(`printed "${line}" instead of its URL`);
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve(match[1]);
    });
  });
  return { name, child, url };
}

async function stopServer({ child }) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function postEventRequests(nextEvent) {
  return {
    label: 'POST /event',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    next: () => {
      const { id, body } = nextEvent();
      return { id, path: '/event', body };
    },
  };
}

function getEventRequests(ids) {
  let index = 0;
  return {
    label: 'GET /event/:id',
    method: 'GET',
    headers: {},
    next: () => {
      const id = ids[index++ % ids.length];
      return { id, path: `/event/${encodeURIComponent(id)}` };
    },
  };
}

/**
 * One autocannon run. Every request is built afresh by `requests.next()`; the ids of 2xx answers
 * are collected, and the first non-2xx answer is kept to show what went wrong.
 */
async function measure(server, requests) {
  process.stdout.write(`  ${requests.label} → ${server.name} (${DURATION_SECONDS} s)…\n`);
  const succeededIds = [];
  let firstFailure;
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    headers: { 'x-client-api-key': API_KEY },
    requests: [
      {
        method: requests.method,
        headers: requests.headers,
        setupRequest: (request, context) => {
          const { id, ...next } = requests.next();
          context.eventId = id;
          return { ...request, ...next };
        },
        onResponse: (status, body, context) => {
          if (status >= 200 && status < 300) succeededIds.push(context.eventId);
          else firstFailure ??= { status, body };
        },
      },
    ],
  });
  return {
    server: server.name,
    label: requests.label,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    succeededIds,
    firstFailure,
  };
}

/** What the sandbox decided for the events it stored: actions and how often each rule fired. */
function summariseStoredDecisions(dbPath) {
  const db = new Database(dbPath, { readonly: true });
  try {
    const actions = db
      .prepare(`SELECT json_extract(decision_json, '$.actionType') AS name, count(*) AS n FROM events GROUP BY name ORDER BY n DESC`)
      .all();
    const rules = db
      .prepare(
        `SELECT json_extract(m.value, '$.ruleId') AS name, count(*) AS n
           FROM events, json_each(events.decision_json, '$.ruleMatches') AS m GROUP BY name ORDER BY n DESC`,
      )
      .all();
    const total = actions.reduce((sum, a) => sum + a.n, 0);
    const list = (rows) => rows.map((r) => `${r.name} ${r.n} (${((100 * r.n) / total).toFixed(1)}%)`).join(', ');
    return [`stored events: ${total}`, `  actions: ${list(actions)}`, `  rule hits: ${list(rules)}`];
  } finally {
    db.close();
  }
}

const fastifyVersion = () => createRequire(import.meta.url)('fastify/package.json').version;
const fmtRate = (n) => Math.round(n).toLocaleString('en-US');
const fmtMs = (n) => String(Math.round(n)); // autocannon's latency histogram counts whole ms

function printTable(rows) {
  const header = ['', 'sandbox req/s', 'ceiling req/s', 'ratio', 'sandbox p50/p99 ms', 'ceiling p50/p99 ms'];
  const lines = rows.map(({ sandbox, ceiling }) => [
    sandbox.label,
    fmtRate(sandbox.requestsPerSecond),
    fmtRate(ceiling.requestsPerSecond),
    (sandbox.requestsPerSecond / ceiling.requestsPerSecond).toFixed(2),
    `${fmtMs(sandbox.p50)} / ${fmtMs(sandbox.p99)}`,
    `${fmtMs(ceiling.p50)} / ${fmtMs(ceiling.p99)}`,
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...lines].map((cells) => cells[i].length)));
  for (const cells of [header, ...lines]) {
    console.log(cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('   '));
  }
}

function printTargets(post) {
  const ratio = post.sandbox.requestsPerSecond / post.ceiling.requestsPerSecond;
  const verdict = (ok) => (ok ? 'met' : 'NOT met');
  console.log(`target: POST throughput >= ${TARGET_POST_RATIO.toFixed(2)} of ceiling: ${ratio.toFixed(2)}, ${verdict(ratio >= TARGET_POST_RATIO)}`);
  console.log(
    `target: sandbox POST p99 < ${TARGET_POST_P99_MS} ms at ${CONNECTIONS} connections: ${fmtMs(post.sandbox.p99)} ms, ${verdict(post.sandbox.p99 < TARGET_POST_P99_MS)}`,
  );
}

/** Prints every run with non-2xx answers or errors; true when there were none. */
function reportFailures(runs) {
  let clean = true;
  for (const run of runs) {
    if (run.non2xx === 0 && run.errors === 0) continue;
    clean = false;
    console.error(`${run.label} → ${run.server}: ${run.non2xx} non-2xx answers, ${run.errors} errors/timeouts`);
    if (run.firstFailure) console.error(`  first: HTTP ${run.firstFailure.status} ${run.firstFailure.body}`);
  }
  return clean;
}

async function main() {
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (load average ${os.loadavg()[0].toFixed(2)}), ` +
      `${CONNECTIONS} connections, ${DURATION_SECONDS} s per run`,
  );
  const dbPath = path.join(tempDir, 'sandbox.db');
  const sandboxEnv = { ...process.env };
  delete sandboxEnv.FRAUDCTL_SANDBOX_KEY; // so the demo key is the merchant's key
  const servers = [];
  try {
    const sandbox = await startServer(
      'sandbox',
      [...SANDBOX_NODE_ARGS, 'bin/fraudctl.js', 'sandbox', 'serve', '--port', '0', '--db', dbPath],
      sandboxEnv,
    );
    servers.push(sandbox);
    const ceiling = await startServer('ceiling', ['scripts/bench/minimal-fastify.mjs']);
    servers.push(ceiling);
    console.log(`sandbox: ${sandbox.url} (db ${dbPath})`);
    console.log(`ceiling: ${ceiling.url} (minimal Fastify ${fastifyVersion()})`);

    const runLabel = Date.now().toString(36);
    const nextEvent = createEventGenerator({ idPrefix: `bench-${runLabel}`, emailPoolSize: EMAIL_POOL_SIZE, ipPoolSize: IP_POOL_SIZE });
    const post = {
      sandbox: await measure(sandbox, postEventRequests(nextEvent)),
      ceiling: await measure(ceiling, postEventRequests(nextEvent)),
    };
    const storedIds = post.sandbox.succeededIds;
    if (storedIds.length === 0) {
      reportFailures([post.sandbox, post.ceiling]);
      console.error('bench-sandbox: the sandbox stored no events, so there is nothing to GET');
      return 1;
    }
    const get = {
      sandbox: await measure(sandbox, getEventRequests(storedIds)),
      ceiling: await measure(ceiling, getEventRequests(storedIds)),
    };

    console.log();
    printTable([post, get]);
    console.log();
    printTargets(post);
    console.log();
    for (const line of summariseStoredDecisions(dbPath)) console.log(line);
    return reportFailures([post.sandbox, post.ceiling, get.sandbox, get.ceiling]) ? 0 : 1;
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`bench-sandbox: ${error.message}`);
    process.exitCode = 1;
  },
);
