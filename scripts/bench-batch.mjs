// Batch submission (`fraudctl submit FILE --concurrency C`) against its ceiling, and its memory
// on a very large input. Prints figures; never asserts timings.
//
//   1. Generates BENCH_EVENTS (default 20,000) varied, valid events per part, the same mix for
//      every part (scripts/bench/event-payloads.mjs): half from returning buyers (emails from a
//      pool of 300 and IPs from 200, so the sandbox's velocity rules run and fire), half from new
//      ones (so APPROVE stays possible and the mix is the same in every run), with ids new to
//      every part and run:
//      bench-cli-<run>-<n> (written to events.jsonl), bench-ac-<run>-<n> (two autocannon runs).
//   2. Starts `fraudctl sandbox serve` (a child process, SQLite file in a temp dir).
//   3. A warm-up of the sandbox (BENCH_WARMUP_EVENTS, default 5,000, ids bench-warm-<run>-<n>,
//      not counted: a cold sandbox is much slower for its first few thousand events), then
//      autocannon → fraudctl submit → autocannon, all at C connections (BENCH_CONNECTIONS,
//      default 16): autocannon sends every payload of its list exactly once (`amount`), so it does
//      the same work as fraudctl with no client overhead to speak of; it is timed from its start
//      to its last answer (its own duration is rounded up to whole seconds). The baseline is the mean
//      of the two autocannon runs, so drift of the sandbox between runs (a growing database)
//      cancels. fraudctl is timed as a whole process, wall clock (start-up, reading the file,
//      writing results.jsonl included); the summary's own eventsPerSecond is shown beside it.
//      Target: fraudctl / autocannon >= 0.80.
//   4. Retry-After (skipped with BENCH_SKIP_CHAOS=1): two more sandboxes, each
//      with a fresh database and the same warm-up, one fault-free and one with
//      `--chaos 503=0.1,retry-after=1` (10% of requests answered 503 with Retry-After: 1), and
//      `fraudctl submit` of BENCH_EVENTS new events (the same mix) at C connections on each, timed
//      as in 3. The chaos ratio is the chaos run's events/s over the fault-free run's. Target:
//      >= 0.50. A line needs 4 throttled answers in a row to fail (about 2 in 20,000): such lines
//      are counted, not a failure of the step.
//   5. One million events (BENCH_MILLION_COUNT; skipped with BENCH_SKIP_MILLION=1), generated on
//      the fly into `fraudctl submit -` (stdin, with backpressure) against a stub service (this
//      script in a child process: node:http, 201 and a fixed decision for every POST /event),
//      with the peak RSS of the fraudctl process from /proc/<pid>/status (VmHWM, polled every
//      100 ms). Target: peak RSS < 150 MB, however large the input.
//
// Client, servers and generator share the machine's CPUs: compare the ratio rather than the
// absolute figures across machines, and rerun when the printed load average shows other work.
// A step that fails (a server that does not start, fraudctl exiting non-zero, non-2xx answers)
// is reported with its stderr, the other steps still run, and the script exits 1 at the end.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  fmtInt,
  fmtMb,
  installCleanup,
  isolatedEnv as sandboxedEnv,
  readCpuSeconds,
  readPeakRssKb,
  startListening,
  stopChild,
  track,
} from './bench/processes.mjs';
import { positiveIntFromEnv } from './bench/settings.mjs';
import { createEventGenerator } from './bench/event-payloads.mjs';
import { markdownMode, table, verdict, writeSection } from './bench/markdown.mjs';

// --markdown: progress to stderr, and the figures as a section of docs/performance.md on stdout.
const MARKDOWN = markdownMode();

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'fraudctl.js');
const SELF = fileURLToPath(import.meta.url);
const SANDBOX_KEY = 'sandbox-demo-key';
const STUB_KEY = 'bench-stub-key';
const START_TIMEOUT_MS = 15_000;
const TARGET_RATIO = 0.8;
const CHAOS_SPEC = '503=0.1,retry-after=1';
const TARGET_CHAOS_RATIO = 0.5;
const TARGET_RSS_MB = 150;
const EMAIL_POOL_SIZE = 300;
const IP_POOL_SIZE = 200;
const REPEAT_SHARE = 0.5;
/** A run slower than this many events per second is taken for stuck and killed. */
const SLOWEST_EVENTS_PER_SECOND = 200;

function readSettings() {
  const positiveInt = positiveIntFromEnv;
  const events = positiveInt('BENCH_EVENTS', 20_000);
  return {
    events,
    connections: positiveInt('BENCH_CONNECTIONS', 16, Math.min(256, events)),
    millionCount: positiveInt('BENCH_MILLION_COUNT', 1_000_000),
    warmupEvents: process.env.BENCH_WARMUP_EVENTS === '0' ? 0 : positiveInt('BENCH_WARMUP_EVENTS', 5_000),
    skipMillion: process.env.BENCH_SKIP_MILLION === '1',
    skipChaos: process.env.BENCH_SKIP_CHAOS === '1',
  };
}

// ---------------------------------------------------------------------------------------------
// Processes and the temp dir (scripts/bench/processes.mjs): whatever way this process ends, no
// child outlives it and the temp dir goes.

let tempDir;
const isolatedEnv = (extra = {}) => sandboxedEnv(tempDir, extra);

/** Spawns `node <args>` and resolves once it prints `… listening on http://…` on stdout (scripts/bench/processes.mjs). */
const startServer = (name, args, env) => startListening(name, args, { cwd: ROOT, env, timeoutMs: START_TIMEOUT_MS });

const stopServer = ({ child }) => stopChild(child);

/**
 * Runs `node bin/fraudctl.js <args>`, timing it wall clock and polling its peak RSS every
 * 100 ms. `feed(stdin)`, when given, writes its input; otherwise stdin is empty.
 */
async function runFraudctl(args, { env, feed, timeoutMs }) {
  const started = performance.now();
  const child = track(spawn(process.execPath, [BIN, ...args], { cwd: tempDir, env, stdio: ['pipe', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
  });
  let peakKb = null;
  let cpuSeconds = null;
  const poll = () => {
    const kb = readPeakRssKb(child.pid);
    if (kb !== null) peakKb = Math.max(peakKb ?? 0, kb);
    cpuSeconds = readCpuSeconds(child.pid) ?? cpuSeconds;
  };
  const poller = setInterval(poll, 100);
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const closed = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  child.stdin.on('error', () => {}); // EPIPE when fraudctl stops reading early: its exit says why
  let feedError = null;
  const fed = feed ? feed(child.stdin).catch((error) => (feedError = error)) : (child.stdin.end(), Promise.resolve());
  try {
    const { code, signal } = await closed;
    await fed;
    return {
      code,
      signal,
      stdout,
      stderr,
      seconds: (performance.now() - started) / 1000,
      peakKb,
      cpuSeconds,
      timedOut,
      feedError,
    };
  } finally {
    clearInterval(poller);
    clearTimeout(killer);
  }
}

/** Writes `count` generated events as JSON Lines, in chunks, waiting for 'drain' when told to. */
async function writeEvents(stream, nextEvent, count, { end = true } = {}) {
  let broken = null;
  const onError = (error) => (broken = error);
  stream.on('error', onError);
  const CHUNK_LINES = 256;
  try {
    for (let written = 0; written < count && !broken;) {
      let chunk = '';
      for (let i = 0; i < CHUNK_LINES && written < count; i++, written++) chunk += `${nextEvent().body}\n`;
      if (!stream.write(chunk) && !broken) {
        await new Promise((resolve) => {
          const settle = () => {
            stream.off('drain', settle);
            stream.off('close', settle);
            stream.off('error', settle);
            resolve();
          };
          stream.on('drain', settle);
          stream.on('close', settle);
          stream.on('error', settle);
        });
      }
    }
    if (broken) throw new Error(`input stream broke: ${broken.message}`);
    // end's callback runs once everything is flushed (or with the error that stopped it).
    if (end) await new Promise((resolve) => stream.end(() => resolve()));
  } finally {
    stream.off('error', onError);
  }
}

/** The result lines of a results file: its lines but the header naming the run (`{"fraudctl":"results",…}`). */
async function countLines(file) {
  let lines = 0;
  let first = null;
  for await (const chunk of createReadStream(file)) {
    first ??= chunk.subarray(0, 32).toString('utf8');
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return first?.startsWith('{"fraudctl":"results"') ? lines - 1 : lines;
}

/** The summary printed by `--json` (the last JSON object on stdout), or null. */
function parseSummary(stdout) {
  const text = stdout.trim();
  for (let start = text.lastIndexOf('{'); start !== -1; start = text.lastIndexOf('{', start - 1)) {
    if (start !== 0 && text[start - 1] !== '\n') continue;
    try {
      const value = JSON.parse(text.slice(start));
      if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      // not the start of the summary: look further back
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// The stub service for the memory run, run by this file in a child process.

function runStubServer() {
  const decision = JSON.stringify({
    id: 'stub',
    actionType: 'APPROVE',
    totalRiskScore: 5,
    state: 'APPROVED',
    ruleMatches: [],
    listMatches: [],
  });
  const decisionHeaders = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(decision)),
    'x-request-id': 'stub',
  };
  let posts = 0;
  const server = createServer({ keepAlive: true }, (req, res) => {
    req.resume(); // the body is not looked at
    req.once('end', () => {
      if (req.method === 'POST' && req.url === '/event') {
        posts++;
        res.writeHead(201, decisionHeaders);
        res.end(decision);
      } else if (req.method === 'GET' && req.url === '/__stats') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ posts }));
      } else {
        const body = JSON.stringify({ requestId: 'stub', errorType: 'NOT_FOUND', errorCodes: ['ROUTE_NOT_FOUND'] });
        res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'stub' });
        res.end(body);
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`stub listening on http://127.0.0.1:${server.address().port}\n`);
  });
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      server.close(() => process.exit(0));
      server.closeAllConnections();
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The steps.

const steps = [];

/** Runs one step; a failure is printed with its details and recorded, and the run goes on. */
async function step(name, fn) {
  console.log(`\n▶ ${name}`);
  const started = performance.now();
  try {
    const value = await fn();
    const problem = value?.problem;
    steps.push({ name, ok: !problem, problem });
    if (problem && value?.run) value.run.failed = true;
    if (problem) console.error(`✗ ${name}: ${problem}`);
    else console.log(`  ok (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    return value;
  } catch (error) {
    steps.push({ name, ok: false, problem: error.message });
    console.error(`✗ ${name} FAILED: ${indent(error.message).trimStart()}`);
    return null;
  }
}

function skip(name, reason) {
  console.log(`\n▶ ${name}\n✗ skipped: ${reason}`);
  steps.push({ name, ok: false, problem: `skipped: ${reason}` });
  return null;
}

async function autocannonRun(label, url, bodies, connections, { throttled = false } = {}) {
  let next = 0;
  let extra = 0;
  const statuses = new Map();
  let firstFailure;
  // Timed to the last answer: autocannon itself notices that it is done only at its next
  // 1-second tick, so neither its duration nor the time it takes to resolve are usable.
  let lastAnswerAt = null;
  const started = performance.now();
  const result = await autocannon({
    url,
    connections,
    amount: bodies.length,
    timeout: 30,
    headers: { 'x-client-api-key': SANDBOX_KEY, 'content-type': 'application/json' },
    requests: [
      {
        method: 'POST',
        path: '/event',
        headers: { 'x-client-api-key': SANDBOX_KEY, 'content-type': 'application/json' },
        // Called once per request sent: the next payload of the list, each sent exactly once.
        setupRequest: (request) => {
          const body = bodies[next++];
          if (body === undefined) extra++;
          return { ...request, body: body ?? bodies[bodies.length - 1] };
        },
        onResponse: (status, body) => {
          lastAnswerAt = performance.now();
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if ((status < 200 || status >= 300) && !(throttled && status === 503)) firstFailure ??= { status, body };
        },
      },
    ],
  });
  const seconds = ((lastAnswerAt ?? performance.now()) - started) / 1000;
  const run = {
    label,
    events: bodies.length,
    seconds,
    eventsPerSecond: bodies.length / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])),
  };
  console.log(
    `  ${fmtInt(run.events)} events in ${seconds.toFixed(2)} s: ${fmtInt(run.eventsPerSecond)} events/s, ` +
      `p50 ${run.p50} ms, p99 ${run.p99} ms, statuses ${JSON.stringify(run.statuses)}, non-2xx ${run.non2xx}, errors/timeouts ${run.errors}`,
  );
  const problems = [];
  const unexpected = run.non2xx - (throttled ? (statuses.get(503) ?? 0) : 0);
  if (unexpected > 0)
    problems.push(
      `${unexpected} non-2xx answers (first: HTTP ${firstFailure?.status} ${String(firstFailure?.body).slice(0, 300)})`,
    );
  if (run.errors > 0) problems.push(`${run.errors} connection errors/timeouts`);
  if (extra > 0) problems.push(`autocannon asked for ${extra} payloads more than the list holds (replays)`);
  if (statuses.get(200)) problems.push(`${statuses.get(200)} answers were 200 (replays of known ids), not 201`);
  return { run, problem: problems.join('; ') || undefined };
}

async function fraudctlSandboxRun(
  sandbox,
  settings,
  inputFile,
  { label = `fraudctl submit --concurrency ${settings.connections}`, outName = 'results.jsonl', chaos = false } = {},
) {
  const out = path.join(tempDir, outName);
  const args = [
    'submit',
    inputFile,
    '--concurrency',
    String(settings.connections),
    '--quiet',
    '--json',
    '--out',
    out,
    '--base-url',
    sandbox.url,
  ];
  console.log(`  fraudctl ${args.join(' ')}`);
  const result = await runFraudctl(args, {
    env: isolatedEnv({ FRAUDCTL_API_KEY: SANDBOX_KEY }),
    timeoutMs: Math.max(120_000, (settings.events / SLOWEST_EVENTS_PER_SECOND) * 1000),
  });
  const summary = parseSummary(result.stdout);
  let resultLines = null;
  try {
    resultLines = await countLines(out);
  } catch {
    // no results file: reported below
  }
  const run = {
    label,
    events: settings.events,
    seconds: result.seconds,
    eventsPerSecond: settings.events / result.seconds,
    summaryEventsPerSecond: typeof summary?.eventsPerSecond === 'number' ? summary.eventsPerSecond : null,
    p50: summary?.latencyMs?.p50 ?? null,
    p99: summary?.latencyMs?.p99 ?? null,
    resultLines,
    decided: summary?.decided ?? null,
    peakKb: result.peakKb,
    cpuSeconds: result.cpuSeconds,
  };
  console.log(
    `  exit ${result.signal ?? result.code} after ${result.seconds.toFixed(2)} s wall: ${fmtInt(run.eventsPerSecond)} events/s` +
      ` (summary: ${run.summaryEventsPerSecond === null ? 'n/a' : `${fmtInt(run.summaryEventsPerSecond)} events/s`})` +
      `, ${outName} ${resultLines === null ? 'missing' : `${fmtInt(resultLines)} lines`}` +
      `, peak RSS ${fmtMb(result.peakKb)}, ${fmtCpu(result)}`,
  );
  if (summary) console.log(`  summary: ${JSON.stringify(summary)}`);
  if (chaos) {
    run.throttled = summary?.throttled ?? null;
    // Lines that got 503 four times in a row end FAILED (exit 1): the chaos doing its work, counted.
    const unavailable = summary?.errorTypes?.SERVICE_UNAVAILABLE ?? 0;
    run.unavailable = unavailable;
    const onlyUnavailable =
      summary &&
      summary.decided + unavailable === settings.events &&
      summary.failed === unavailable &&
      summary.failed + summary.decided === summary.lines;
    if (
      onlyUnavailable &&
      (result.code === 0 || (result.code === 1 && unavailable > 0)) &&
      resultLines === settings.events &&
      !result.timedOut
    )
      return { run };
  }
  return { run, problem: processProblems(result, { summary, resultLines, expected: settings.events }) };
}

/**
 * Fraudctl on a fault-free sandbox and on one answering 10% of requests
 * 503 with Retry-After: 1, each with a fresh database and the same warm-up. Returns both runs.
 */
async function chaosRuns(settings, runId, warmup) {
  const runs = {};
  for (const [name, chaos] of [
    ['fault-free', null],
    ['chaos', CHAOS_SPEC],
  ]) {
    const label = chaos ? `fraudctl submit, sandbox --chaos ${chaos}` : 'fraudctl submit, fault-free sandbox';
    const inputFile = path.join(tempDir, `events-${name}.jsonl`);
    const dbPath = path.join(tempDir, `bench-${name}.db`);
    const sandbox = await step(
      `start fraudctl sandbox serve${chaos ? ` --chaos ${chaos}` : ''} (fresh database)`,
      async () => {
        const next = createEventGenerator({
          idPrefix: `bench-${name}-${runId}`,
          emailPoolSize: EMAIL_POOL_SIZE,
          ipPoolSize: IP_POOL_SIZE,
          repeatShare: REPEAT_SHARE,
        });
        await writeEvents(createWriteStream(inputFile), next, settings.events);
        const server = await startServer(
          'sandbox',
          [BIN, 'sandbox', 'serve', '--port', '0', '--db', dbPath, ...(chaos ? ['--chaos', chaos] : [])],
          isolatedEnv(),
        );
        console.log(`  ${server.url} (db ${dbPath})`);
        return server;
      },
    );
    if (!sandbox) continue;
    // Both databases are new, so the same warm-up payloads are new events to each.
    try {
      if (warmup.length > 0) {
        await step(`warm-up: POST /event × ${fmtInt(warmup.length)} (not counted)`, () =>
          autocannonRun('warm-up', sandbox.url, warmup, Math.min(settings.connections, warmup.length), {
            throttled: chaos !== null,
          }),
        );
      }
      const run = (
        await step(`${label}: ${fmtInt(settings.events)} events --concurrency ${settings.connections}`, () =>
          fraudctlSandboxRun(sandbox, settings, inputFile, {
            label,
            outName: `results-${name}.jsonl`,
            chaos: chaos !== null,
          }),
        )
      )?.run;
      if (run && !run.failed) runs[name] = run;
    } finally {
      await stopServer(sandbox);
    }
  }
  return runs;
}

async function millionRun(settings, runId) {
  const stub = await startServer('stub service', [SELF, '--stub-server'], isolatedEnv());
  try {
    console.log(`  stub: ${stub.url}`);
    const out = path.join(tempDir, 'million.jsonl');
    const args = ['submit', '-', '--quiet', '--json', '--out', out, '--base-url', stub.url];
    console.log(`  <${fmtInt(settings.millionCount)} generated events> | fraudctl ${args.join(' ')}`);
    const nextEvent = createEventGenerator({
      idPrefix: `bench-mil-${runId}`,
      emailPoolSize: EMAIL_POOL_SIZE,
      ipPoolSize: IP_POOL_SIZE,
      repeatShare: REPEAT_SHARE,
    });
    const result = await runFraudctl(args, {
      env: isolatedEnv({ FRAUDCTL_API_KEY: STUB_KEY }),
      feed: (stdin) => writeEvents(stdin, nextEvent, settings.millionCount),
      timeoutMs: Math.max(120_000, (settings.millionCount / SLOWEST_EVENTS_PER_SECOND) * 1000),
    });
    const summary = parseSummary(result.stdout);
    let resultLines = null;
    try {
      resultLines = await countLines(out);
      rmSync(out, { force: true });
    } catch {
      // no results file: reported below
    }
    let posts = null;
    try {
      posts = (await (await fetch(`${stub.url}/__stats`)).json()).posts;
    } catch {
      // the stub's count is a cross-check only
    }
    const run = {
      label: `fraudctl submit - (stub), ${fmtInt(settings.millionCount)} events`,
      events: settings.millionCount,
      seconds: result.seconds,
      eventsPerSecond: settings.millionCount / result.seconds,
      summaryEventsPerSecond: typeof summary?.eventsPerSecond === 'number' ? summary.eventsPerSecond : null,
      p50: summary?.latencyMs?.p50 ?? null,
      p99: summary?.latencyMs?.p99 ?? null,
      resultLines,
      peakKb: result.peakKb,
      cpuSeconds: result.cpuSeconds,
      posts,
    };
    const peakMb = result.peakKb === null ? null : result.peakKb / 1024;
    console.log(
      `  exit ${result.signal ?? result.code} after ${result.seconds.toFixed(1)} s wall: ${fmtInt(run.eventsPerSecond)} events/s` +
        ` (summary: ${run.summaryEventsPerSecond === null ? 'n/a' : `${fmtInt(run.summaryEventsPerSecond)} events/s`})` +
        `, results ${resultLines === null ? 'missing' : `${fmtInt(resultLines)} lines`}, stub saw ${posts === null ? '?' : fmtInt(posts)} POSTs, ${fmtCpu(result)}`,
    );
    console.log(
      `  peak RSS ${fmtMb(result.peakKb)} (target < ${TARGET_RSS_MB} MB: ${peakMb === null ? 'not measured' : peakMb < TARGET_RSS_MB ? 'met' : 'NOT met'})`,
    );
    if (summary) console.log(`  summary: ${JSON.stringify(summary)}`);
    const problems = [processProblems(result, { summary, resultLines, expected: settings.millionCount })];
    // A broken pipe after fraudctl failed is a consequence, not news.
    if (result.feedError && result.code === 0) problems.push(`writing stdin: ${result.feedError.message}`);
    return { run, problem: problems.filter(Boolean).join('; ') || undefined };
  } finally {
    await stopServer(stub);
  }
}

/** What went wrong with a fraudctl run, with its stderr; undefined when nothing did. */
function processProblems(result, { summary, resultLines, expected }) {
  const problems = [];
  if (result.timedOut)
    problems.push(`killed after ${result.seconds.toFixed(0)} s (slower than ${SLOWEST_EVENTS_PER_SECOND} events/s)`);
  else if (result.code !== 0) problems.push(`fraudctl exited ${result.signal ?? `with code ${result.code}`}`);
  if (!summary) problems.push('no JSON summary on stdout');
  else if (summary.decided !== expected) problems.push(`summary says ${summary.decided} of ${expected} decided`);
  if (resultLines !== expected) problems.push(`results file has ${resultLines ?? 'no'} lines, expected ${expected}`);
  if (problems.length === 0) return undefined;
  const details = [
    result.stderr.trim() ? `stderr:\n${indent(tail(result.stderr, 30))}` : 'stderr: (empty)',
    !summary && result.stdout.trim() ? `stdout:\n${indent(tail(result.stdout, 10))}` : '',
  ].filter(Boolean);
  return `${problems.join('; ')}\n${details.join('\n')}`;
}

// ---------------------------------------------------------------------------------------------
// Output.

const fmtCpu = ({ cpuSeconds, seconds }) =>
  cpuSeconds === null
    ? 'CPU n/a'
    : `CPU ${cpuSeconds.toFixed(1)} s (${Math.round((100 * cpuSeconds) / seconds)}% of one core)`;
const fmtLatency = (run) => (run.p50 === null || run.p50 === undefined ? '–' : `${run.p50} / ${run.p99}`);
const indent = (text) => text.trimEnd().replace(/^/gm, '    ');
const tail = (text, lines) => text.trimEnd().split('\n').slice(-lines).join('\n');

function printTable(rows) {
  const header = ['run', 'events', 'wall s', 'events/s', 'p50/p99 ms', 'peak RSS', 'CPU s', 'note'];
  const cells = rows.map((r) => [
    r.label,
    fmtInt(r.events),
    r.seconds === undefined ? '–' : r.seconds.toFixed(2),
    r.failed ? '–' : fmtInt(r.eventsPerSecond),
    fmtLatency(r),
    r.peakKb === undefined ? '–' : fmtMb(r.peakKb),
    r.cpuSeconds === undefined || r.cpuSeconds === null ? '–' : r.cpuSeconds.toFixed(1),
    [r.failed ? 'FAILED' : '', r.note ?? ''].filter(Boolean).join(': '),
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...cells].map((c) => c[i].length)));
  for (const c of [header, ...cells]) {
    console.log(
      c
        .map((cell, i) => (i === 0 || i === c.length - 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
        .join('   ')
        .trimEnd(),
    );
  }
}

/** The section for docs/performance.md: every run, then each ratio to its baseline of the same run and the memory target. */
function writeMarkdown(settings, rows, { ratio, chaosRatio, million, millionMb }) {
  const ratioRows = [];
  if (ratio !== null)
    ratioRows.push([
      'fraudctl / autocannon (mean of the two runs around it)',
      `**${ratio.toFixed(2)}**`,
      `≥ ${TARGET_RATIO.toFixed(2)}: ${verdict(ratio >= TARGET_RATIO)}`,
    ]);
  if (chaosRatio !== null)
    ratioRows.push([
      `chaos ratio: fraudctl on \`--chaos ${CHAOS_SPEC}\` / fault-free`,
      `**${chaosRatio.toFixed(2)}**`,
      `≥ ${TARGET_CHAOS_RATIO.toFixed(2)}: ${verdict(chaosRatio >= TARGET_CHAOS_RATIO)}`,
    ]);
  if (million)
    ratioRows.push([
      `peak RSS of fraudctl over ${fmtInt(million.events)} events`,
      `**${fmtMb(million.peakKb)}**`,
      `< ${TARGET_RSS_MB} MB: ${verdict(millionMb === null ? null : millionMb < TARGET_RSS_MB)}`,
    ]);
  writeSection(
    '`npm run bench:batch`',
    {
      BENCH_EVENTS: settings.events,
      BENCH_CONNECTIONS: settings.connections,
      BENCH_WARMUP_EVENTS: settings.warmupEvents,
      BENCH_SKIP_CHAOS: settings.skipChaos ? 1 : 0,
      BENCH_SKIP_MILLION: settings.skipMillion ? 1 : 0,
      ...(settings.skipMillion ? {} : { BENCH_MILLION_COUNT: settings.millionCount }),
    },
    [
      table(
        ['run', 'events', 'wall s', 'events/s', 'p50 / p99 ms', 'peak RSS', 'CPU s', 'note'],
        rows.map((r) => [
          r.label,
          fmtInt(r.events),
          r.seconds === undefined ? '–' : r.seconds.toFixed(2),
          fmtInt(r.eventsPerSecond),
          fmtLatency(r),
          r.peakKb === undefined ? '–' : fmtMb(r.peakKb),
          r.cpuSeconds === undefined || r.cpuSeconds === null ? '–' : r.cpuSeconds.toFixed(1),
          r.note ?? '',
        ]),
        { align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'] },
      ),
      ratioRows.length ? table(['ratio', 'figure', 'target'], ratioRows, { align: ['left', 'right', 'left'] }) : '',
    ],
  );
}

async function main(settings) {
  tempDir = installCleanup('fraudctl-bench-batch-');
  const { events, connections } = settings;
  const runId = Date.now().toString(36);
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (load average ${os.loadavg()[0].toFixed(2)}), ` +
      `${fmtInt(events)} events per run, ${connections} connections, run ${runId}, temp dir ${tempDir}`,
  );

  const generator = (prefix) =>
    createEventGenerator({
      idPrefix: prefix,
      emailPoolSize: EMAIL_POOL_SIZE,
      ipPoolSize: IP_POOL_SIZE,
      repeatShare: REPEAT_SHARE,
    });
  const inputFile = path.join(tempDir, 'events.jsonl');
  const payloads = await step(
    `generate ${fmtInt(events)} events for each of fraudctl and two autocannon runs`,
    async () => {
      await writeEvents(createWriteStream(inputFile), generator(`bench-cli-${runId}`), events);
      // Both autocannon runs take ids from one generator, so the second's are new as well.
      const nextAc = generator(`bench-ac-${runId}`);
      const list = () => Array.from({ length: events }, () => nextAc().body);
      const nextWarm = generator(`bench-warm-${runId}`);
      return {
        first: list(),
        second: list(),
        warmup: Array.from({ length: settings.warmupEvents }, () => nextWarm().body),
      };
    },
  );

  const dbPath = path.join(tempDir, 'bench.db');
  const sandbox = await step('start fraudctl sandbox serve', async () => {
    const env = isolatedEnv();
    const server = await startServer('sandbox', [BIN, 'sandbox', 'serve', '--port', '0', '--db', dbPath], env);
    console.log(`  ${server.url} (db ${dbPath})`);
    return server;
  });

  const rows = [];
  let ac1 = null;
  let cli = null;
  let ac2 = null;
  try {
    if (sandbox && payloads) {
      if (payloads.warmup.length > 0) {
        const warmConnections = Math.min(connections, payloads.warmup.length);
        await step(`warm-up: POST /event × ${fmtInt(payloads.warmup.length)} (not counted)`, () =>
          autocannonRun('warm-up', sandbox.url, payloads.warmup, warmConnections),
        );
      }
      ac1 =
        (
          await step(`autocannon #1: POST /event × ${fmtInt(events)}, ${connections} connections`, () =>
            autocannonRun('autocannon #1 (sandbox)', sandbox.url, payloads.first, connections),
          )
        )?.run ?? null;
      cli =
        (
          await step(`fraudctl submit events.jsonl --concurrency ${connections}`, () =>
            fraudctlSandboxRun(sandbox, settings, inputFile),
          )
        )?.run ?? null;
      ac2 =
        (
          await step(`autocannon #2: POST /event × ${fmtInt(events)}, ${connections} connections`, () =>
            autocannonRun('autocannon #2 (sandbox)', sandbox.url, payloads.second, connections),
          )
        )?.run ?? null;
    } else {
      const reason = sandbox ? 'no events were generated' : 'the sandbox did not start';
      skip('autocannon #1', reason);
      skip('fraudctl submit against the sandbox', reason);
      skip('autocannon #2', reason);
    }
  } finally {
    if (sandbox) await stopServer(sandbox);
  }
  for (const run of [ac1, cli, ac2]) if (run) rows.push(run);
  if (cli) cli.note = `results ${fmtInt(cli.resultLines)} lines; summary ${fmtInt(cli.summaryEventsPerSecond)}/s`;

  // Figures come only from runs that did their work: a failed run's speed means nothing.
  const good = (run) => (run && !run.failed ? run : null);
  const baselines = [good(ac1), good(ac2)].filter(Boolean).map((r) => r.eventsPerSecond);
  const baseline = baselines.length ? baselines.reduce((a, b) => a + b, 0) / baselines.length : null;
  const cliOk = good(cli);
  const ratio = cliOk && baseline ? cliOk.eventsPerSecond / baseline : null;
  if (baseline !== null)
    rows.push({
      label: `autocannon mean (baseline, ${baselines.length} run${baselines.length > 1 ? 's' : ''})`,
      events,
      eventsPerSecond: baseline,
    });

  let chaos = null;
  if (settings.skipChaos) {
    console.log('\n▶ Retry-After runs: skipped (BENCH_SKIP_CHAOS=1)');
  } else if (payloads) {
    chaos = await chaosRuns(settings, runId, payloads.warmup);
    for (const run of [chaos['fault-free'], chaos.chaos]) if (run) rows.push(run);
    if (chaos.chaos)
      chaos.chaos.note = `throttled ${fmtInt(chaos.chaos.throttled)}; failed after 4 × 503: ${fmtInt(chaos.chaos.unavailable)}`;
  }
  const chaosRatio =
    chaos?.chaos && chaos['fault-free'] ? chaos.chaos.eventsPerSecond / chaos['fault-free'].eventsPerSecond : null;

  let million = null;
  if (settings.skipMillion) {
    console.log('\n▶ memory run: skipped (BENCH_SKIP_MILLION=1)');
  } else {
    const run =
      (
        await step(`memory run: ${fmtInt(settings.millionCount)} events on stdin → stub service`, () =>
          millionRun(settings, runId),
        )
      )?.run ?? null;
    if (run) {
      run.note = `results ${fmtInt(run.resultLines)} lines; stub saw ${fmtInt(run.posts)} POSTs`;
      rows.push(run);
    }
    million = good(run);
  }

  console.log();
  if (rows.length) printTable(rows);
  console.log();
  const verdict = (ok) => (ok ? 'met' : 'NOT met');
  if (ratio !== null) {
    console.log(
      `ratio fraudctl / autocannon: ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO.toFixed(2)}: ${verdict(ratio >= TARGET_RATIO)})`,
    );
  } else {
    console.log(`ratio fraudctl / autocannon: not measured (target ≥ ${TARGET_RATIO.toFixed(2)})`);
  }
  if (chaosRatio !== null) {
    console.log(
      `chaos ratio (--chaos ${CHAOS_SPEC} / fault-free), fraudctl events/s: ${chaosRatio.toFixed(2)} (target ≥ ${TARGET_CHAOS_RATIO.toFixed(2)}: ${verdict(chaosRatio >= TARGET_CHAOS_RATIO)})`,
    );
  } else if (!settings.skipChaos) {
    console.log(
      `chaos ratio (--chaos ${CHAOS_SPEC} / fault-free): not measured (target ≥ ${TARGET_CHAOS_RATIO.toFixed(2)})`,
    );
  }
  const millionMb = million?.peakKb != null ? million.peakKb / 1024 : null;
  if (million) {
    console.log(
      `peak RSS of fraudctl over ${fmtInt(million.events)} events: ${fmtMb(million.peakKb)} (target < ${TARGET_RSS_MB} MB${millionMb === null ? '' : `: ${verdict(millionMb < TARGET_RSS_MB)}`})`,
    );
  } else if (!settings.skipMillion) {
    console.log(
      `peak RSS of fraudctl over ${fmtInt(settings.millionCount)} events: not measured (target < ${TARGET_RSS_MB} MB)`,
    );
  }

  const figures = [];
  if (cliOk && baseline !== null) {
    figures.push(
      `fraudctl submit ${fmtInt(cliOk.eventsPerSecond)} events/s vs autocannon ${fmtInt(baseline)} events/s on the sandbox at ${connections} connections (ratio ${ratio.toFixed(2)})`,
    );
  } else if (baseline !== null) {
    figures.push(
      `autocannon ${fmtInt(baseline)} events/s on the sandbox at ${connections} connections (fraudctl not measured)`,
    );
  }
  if (chaosRatio !== null) {
    figures.push(
      `with 10% of answers 503 + Retry-After: 1, ${fmtInt(chaos.chaos.eventsPerSecond)} events/s vs ${fmtInt(chaos['fault-free'].eventsPerSecond)} fault-free (chaos ratio ${chaosRatio.toFixed(2)})`,
    );
  }
  if (million) {
    figures.push(
      `${fmtInt(million.events)} events from stdin to a stub at ${fmtInt(million.eventsPerSecond)} events/s, peak RSS ${fmtMb(million.peakKb)}`,
    );
  }
  console.log(`figures: ${figures.length ? figures.join('; ') : '(none measured)'}`);

  const failed = steps.filter((s) => !s.ok);
  if (MARKDOWN && failed.length === 0) writeMarkdown(settings, rows, { ratio, chaosRatio, million, millionMb });
  if (failed.length) {
    console.error(`\nbench-batch: ${failed.length} step(s) failed:`);
    for (const s of failed) console.error(`  - ${s.name}: ${s.problem.split('\n')[0]}`);
    return 1;
  }
  return 0;
}

// The entry point, last so that every module-level binding above is initialised.
if (process.argv[2] === '--stub-server') {
  runStubServer();
} else {
  const settings = readSettings();
  main(settings).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      console.error(`bench-batch: ${error.stack ?? error.message}`);
      process.exitCode = 1;
    },
  );
}
