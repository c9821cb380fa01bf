// Throughput and latency of the sandbox (`fraudctl sandbox serve`, real SQLite file in WAL mode)
// against two ceilings, all three servers started as child processes on this machine:
//   insert ceiling  scripts/bench/insert-ceiling.mjs: a bare Fastify 5 route doing only the
//                   durable insert, through the sandbox's own store (same libsql settings, same
//                   group commit, answered after the commit): what one stored event costs at least;
//   bare Fastify    scripts/bench/minimal-fastify.mjs: parses the same JSON and answers a small
//                   object, with no auth, schemas, scoring or storage: the framework alone.
// autocannon drives them from this process with 32 connections for BENCH_SECONDS (default 10)
// per run, after BENCH_WARMUP_SECONDS (default 3) of each kind of request to each server, not
// counted, in BENCH_ROUNDS rounds (default 3); each round runs the servers one after another,
// in a turning order, so a ratio compares runs made under the same conditions:
//   POST /event      unique ids, varied amounts/currencies/countries/items, emails from a pool of
//                    2000 and IPs from a pool of 500, so the SQLite velocity rules run and fire;
//   GET /event/:id   cycling through the ids the sandbox stored (sandbox and bare Fastify only).
//
// Reading the output: each ratio is sandbox req/s over a ceiling's req/s in the same round, and
// the figure given is the median over the rounds (the rounds' own figures follow it); p50/p99 are
// autocannon's latency percentiles, in whole ms, medians over the rounds.
// The targets: sandbox POST >= 0.60 of the insert ceiling, and sandbox POST p99 < 25 ms. Client
// and servers share the machine's CPUs, so compare ratios rather than absolute figures across
// machines, and rerun when the printed load average shows other work competing for them.
//
// Exits 0 whether or not the targets are met (a measurement, not a test); exits 1 when a server
// fails to start or any response is non-2xx (the first such body is printed) or errors out.
// BENCH_SANDBOX_NODE_ARGS adds node flags to the sandbox child, e.g. to profile it:
//   BENCH_SANDBOX_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/sandbox-prof" node scripts/bench-sandbox.mjs
import autocannon from 'autocannon';
import Database from 'libsql';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createEventGenerator } from './bench/event-payloads.mjs';
import { markdownMode, table, verdict, writeSection } from './bench/markdown.mjs';
import { stopChild } from './bench/processes.mjs';

// --markdown: progress to stderr, and the figures as a section of docs/performance.md on stdout.
const MARKDOWN = markdownMode();

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 32;
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const SANDBOX_NODE_ARGS = (process.env.BENCH_SANDBOX_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const API_KEY = 'sandbox-demo-key';
const START_TIMEOUT_MS = 15_000;
const TARGET_INSERT_RATIO = 0.6;
const TARGET_POST_P99_MS = 25;

const EMAIL_POOL_SIZE = 2000;
const IP_POOL_SIZE = 500;

if (!(DURATION_SECONDS > 0)) {
  console.error(`BENCH_SECONDS must be a positive number of seconds, not "${process.env.BENCH_SECONDS}"`);
  process.exit(2);
}
if (!(WARMUP_SECONDS >= 0)) {
  console.error(`BENCH_WARMUP_SECONDS must be a number of seconds, not "${process.env.BENCH_WARMUP_SECONDS}"`);
  process.exit(2);
}
if (!(Number.isInteger(ROUNDS) && ROUNDS > 0)) {
  console.error(`BENCH_ROUNDS must be a positive whole number, not "${process.env.BENCH_ROUNDS}"`);
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

const stopServer = ({ child }) => stopChild(child);

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
async function measure(server, requests, seconds = DURATION_SECONDS) {
  console.log(`  ${requests.label} → ${server.name} (${seconds} s)…`);
  const succeededIds = [];
  let firstFailure;
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: seconds,
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
      .prepare(
        `SELECT json_extract(decision_json, '$.actionType') AS name, count(*) AS n FROM events GROUP BY name ORDER BY n DESC`,
      )
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
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function printTable(header, lines) {
  const widths = header.map((_, i) => Math.max(...[header, ...lines].map((cells) => cells[i].length)));
  for (const cells of [header, ...lines]) {
    console.log(cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('   '));
  }
}

/** One line per server: median req/s, p50 and p99 over the rounds, and each round's req/s. */
function serverLines(runsByServer) {
  return Object.values(runsByServer).map((runs) => [
    `${runs[0].label} → ${runs[0].server}`,
    fmtRate(median(runs.map((r) => r.requestsPerSecond))),
    `${fmtMs(median(runs.map((r) => r.p50)))} / ${fmtMs(median(runs.map((r) => r.p99)))}`,
    runs.map((r) => fmtRate(r.requestsPerSecond)).join(', '),
  ]);
}

/** sandbox / ceiling in each round; the median and the rounds' own figures. */
function ratio(sandboxRuns, ceilingRuns) {
  const perRound = sandboxRuns.map((run, i) => run.requestsPerSecond / ceilingRuns[i].requestsPerSecond);
  return { median: median(perRound), perRound };
}

function ratioLine(name, { median: m, perRound }, target) {
  const verdict = target === undefined ? '' : `   target >= ${target.toFixed(2)}: ${m >= target ? 'met' : 'NOT met'}`;
  return `${name.padEnd(40)}${m.toFixed(2)}   (rounds: ${perRound.map((r) => r.toFixed(2)).join(', ')})${verdict}`;
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

/** The section for docs/performance.md: every server's figures, then each ratio to a ceiling of the same rounds. */
function writeMarkdown(post, get, decisions) {
  const servers = [...serverLines(post), ...serverLines(get)];
  const postP99 = median(post.sandbox.map((r) => r.p99));
  const ratioRow = (name, a, b, target) => {
    const r = ratio(a, b);
    return [
      name,
      r.median.toFixed(2),
      r.perRound.map((x) => x.toFixed(2)).join(', '),
      target === undefined ? '' : `≥ ${target.toFixed(2)}: ${verdict(r.median >= target)}`,
    ];
  };
  writeSection(
    '`npm run bench:sandbox`',
    {
      BENCH_SECONDS: DURATION_SECONDS,
      BENCH_ROUNDS: ROUNDS,
      BENCH_WARMUP_SECONDS: WARMUP_SECONDS,
      connections: CONNECTIONS,
    },
    [
      table(['request → server', 'req/s (median)', 'p50 / p99 ms', 'req/s by round'], servers),
      table(
        ['ratio', 'median', 'by round', 'target'],
        [
          ratioRow('POST: sandbox / insert ceiling', post.sandbox, post.insertCeiling, TARGET_INSERT_RATIO),
          ratioRow('POST: sandbox / bare Fastify', post.sandbox, post.bare),
          ratioRow('POST: insert ceiling / bare Fastify', post.insertCeiling, post.bare),
          ratioRow('GET: sandbox / bare Fastify', get.sandbox, get.bare),
          [
            'POST: sandbox p99',
            `${fmtMs(postP99)} ms`,
            post.sandbox.map((r) => fmtMs(r.p99)).join(', '),
            `< ${TARGET_POST_P99_MS} ms: ${verdict(postP99 < TARGET_POST_P99_MS)}`,
          ],
        ],
        { align: ['left', 'right', 'right', 'left'] },
      ),
      `What the sandbox decided for the events it stored: ${decisions.map((l) => l.trim()).join('; ')}.`,
    ],
  );
}

const loadAverage = () => os.loadavg()[0].toFixed(2);

async function main() {
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (load average ${loadAverage()}), ` +
      `${CONNECTIONS} connections, ${DURATION_SECONDS} s per run, ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}`,
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
    const insertCeiling = await startServer('insert ceiling', [
      'scripts/bench/insert-ceiling.mjs',
      path.join(tempDir, 'insert-ceiling.db'),
    ]);
    servers.push(insertCeiling);
    const bare = await startServer('bare Fastify', ['scripts/bench/minimal-fastify.mjs']);
    servers.push(bare);
    console.log(`sandbox:        ${sandbox.url} (db ${dbPath})`);
    console.log(`insert ceiling: ${insertCeiling.url} (Fastify ${fastifyVersion()}, the sandbox's store)`);
    console.log(`bare Fastify:   ${bare.url}`);

    const runLabel = Date.now().toString(36);
    const nextEvent = createEventGenerator({
      idPrefix: `bench-${runLabel}`,
      emailPoolSize: EMAIL_POOL_SIZE,
      ipPoolSize: IP_POOL_SIZE,
    });
    const post = { sandbox: [], insertCeiling: [], bare: [] };
    const get = { sandbox: [], bare: [] };
    const storedIds = [];
    if (WARMUP_SECONDS > 0) {
      // Not counted: every server's JIT compiles its hot paths before the first measured run.
      console.log(`warm-up, ${WARMUP_SECONDS} s per server`);
      const warm = [];
      for (const server of [sandbox, insertCeiling, bare])
        warm.push(await measure(server, postEventRequests(nextEvent), WARMUP_SECONDS));
      const warmIds = warm[0].succeededIds;
      if (warmIds.length > 0)
        for (const server of [sandbox, bare])
          warm.push(await measure(server, getEventRequests(warmIds), WARMUP_SECONDS));
      if (!reportFailures(warm)) return 1;
    }
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1} of ${ROUNDS} (load average ${loadAverage()})`);
      const order = [
        ['sandbox', sandbox],
        ['insertCeiling', insertCeiling],
        ['bare', bare],
      ];
      for (let i = 0; i < round % order.length; i++) order.push(order.shift());
      for (const [key, server] of order) {
        const run = await measure(server, postEventRequests(nextEvent));
        post[key].push(run);
        if (key === 'sandbox') storedIds.push(...run.succeededIds);
      }
      if (storedIds.length === 0) {
        reportFailures(post.sandbox);
        console.error('bench-sandbox: the sandbox stored no events, so there is nothing to GET');
        return 1;
      }
      const getOrder =
        round % 2
          ? [
              ['bare', bare],
              ['sandbox', sandbox],
            ]
          : [
              ['sandbox', sandbox],
              ['bare', bare],
            ];
      for (const [key, server] of getOrder) get[key].push(await measure(server, getEventRequests(storedIds)));
    }

    console.log();
    printTable(['', 'req/s', 'p50 / p99 ms', 'rounds, req/s'], [...serverLines(post), ...serverLines(get)]);
    console.log();
    const postP99 = median(post.sandbox.map((r) => r.p99));
    console.log(
      ratioLine('POST: sandbox / insert ceiling', ratio(post.sandbox, post.insertCeiling), TARGET_INSERT_RATIO),
    );
    console.log(ratioLine('POST: sandbox / bare Fastify', ratio(post.sandbox, post.bare)));
    console.log(ratioLine('POST: insert ceiling / bare Fastify', ratio(post.insertCeiling, post.bare)));
    console.log(ratioLine('GET:  sandbox / bare Fastify', ratio(get.sandbox, get.bare)));
    console.log(
      `${'POST: sandbox p99'.padEnd(40)}${fmtMs(postP99)} ms (rounds: ${post.sandbox.map((r) => fmtMs(r.p99)).join(', ')})` +
        `   target < ${TARGET_POST_P99_MS} ms at ${CONNECTIONS} connections: ${postP99 < TARGET_POST_P99_MS ? 'met' : 'NOT met'}`,
    );
    console.log(`load average at the end: ${loadAverage()}`);
    console.log();
    const decisions = summariseStoredDecisions(dbPath);
    for (const line of decisions) console.log(line);
    const clean = reportFailures([...Object.values(post).flat(), ...Object.values(get).flat()]);
    if (MARKDOWN && clean) writeMarkdown(post, get, decisions);
    return clean ? 0 : 1;
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
