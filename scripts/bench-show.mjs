// `fraudctl show --from FILE` (many ids) against autocannon issuing the same GETs at the same
// concurrency, on the same sandbox, in one run. Prints figures; never asserts timings.
//
//   1. Starts `fraudctl sandbox serve` (a child process, SQLite file in a temp dir) and stores
//      BENCH_IDS (default 5,000) varied events with autocannon (scripts/bench/event-payloads.mjs),
//      ids bench-show-<run>-<n>, written one per line to ids.txt.
//   2. A warm-up: autocannon GETs every event once (not counted).
//   3. Two comparisons at C connections (BENCH_CONNECTIONS, default 8: show's default
//      --concurrency), each autocannon → fraudctl → autocannon, the baseline being the mean of
//      the two autocannon runs (drift of the sandbox between runs cancels):
//      - the table (`fraudctl show --from ids.txt --concurrency C > rows.txt`): two GETs per id,
//        GET /event/{id} then GET /event/{id}/risk-assessment (the decision), so autocannon
//        sends exactly those 2 × BENCH_IDS requests;
//      - JSON Lines (`… --json`): one GET per id, so autocannon sends BENCH_IDS GET /event/{id}.
//      fraudctl is timed as a whole process, wall clock (start-up, reading ids.txt and writing
//      every row included), with its peak RSS (VmHWM from /proc, polled every 100 ms); its rows
//      are checked (one per id, in order, every one found). autocannon is timed from its start
//      to its last answer. Rates are ids per second; the ratio to autocannon is information.
//      After each comparison, a bare script does the same GETs through undici's Agent (what
//      fraudctl's client is built on) with as many workers as connections: the floor for any
//      undici client. Target: fraudctl / bare undici >= 0.75.
//   4. fraudctl's start-up on this machine, for reading the figures: the median wall time of
//      five `fraudctl show <one id> --json`; the summary also gives each rate with that time
//      taken off (a run of a few seconds pays it once).
//
// Client, server and autocannon share the machine's CPUs: compare the ratio rather than the
// absolute figures across machines, and rerun when the printed load average shows other work.
// A step that fails is reported with its stderr, the other steps still run, and the script
// exits 1 at the end.
import autocannon from 'autocannon';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  fmtInt,
  fmtMb,
  installCleanup,
  isolatedEnv as sandboxedEnv,
  runTimed,
  startListening,
  stopChild,
} from './bench/processes.mjs';
import { failedSteps, step } from './bench/steps.mjs';
import { positiveIntFromEnv } from './bench/settings.mjs';
import { fmtRatio, markdownMode, table, verdict, writeSection } from './bench/markdown.mjs';

// --markdown: progress to stderr, and the figures as a section of docs/performance.md on stdout.
const MARKDOWN = markdownMode();
import { createEventGenerator } from './bench/event-payloads.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'fraudctl.js');
const SANDBOX_KEY = 'sandbox-demo-key';
const START_TIMEOUT_MS = 15_000;
const TARGET_RATIO = 0.75; // fraudctl / the bare undici script
/** A run slower than this many ids per second is taken for stuck and killed. */
const SLOWEST_IDS_PER_SECOND = 25;

function readSettings() {
  const positiveInt = positiveIntFromEnv;
  const ids = positiveInt('BENCH_IDS', 5_000);
  return { ids, connections: positiveInt('BENCH_CONNECTIONS', 8, Math.min(256, ids)) };
}

// ---------------------------------------------------------------------------------------------
// Processes and the temp dir (scripts/bench/processes.mjs): whatever way this process ends, no
// child outlives it and the temp dir goes.

let tempDir;
const isolatedEnv = (extra = {}) => sandboxedEnv(tempDir, extra);

const startSandbox = (dbPath) =>
  startListening('the sandbox', [BIN, 'sandbox', 'serve', '--port', '0', '--db', dbPath], {
    cwd: ROOT,
    env: isolatedEnv(),
    timeoutMs: START_TIMEOUT_MS,
  });

const stopSandbox = ({ child }) => stopChild(child);

/** Runs `node bin/fraudctl.js <args>` with stdout to `outFile`, timing it wall clock and polling its peak RSS and CPU time. */
function runFraudctl(args, options) {
  return runNode([BIN, ...args], options);
}

/** Runs `node <args>` in the temp dir with stdout to `outFile` (scripts/bench/processes.mjs: wall clock, peak RSS, CPU time). */
const runNode = (args, options) => runTimed(args, { cwd: tempDir, ...options });

// ---------------------------------------------------------------------------------------------
// autocannon: a list of requests, each sent exactly once.

/** Sends every request of `list` once (`{ method, path, body? }`) over `connections` connections; timed to the last answer. */
async function autocannonRun(url, list, connections) {
  let next = 0;
  let extra = 0;
  const statuses = new Map();
  let firstFailure;
  let lastAnswerAt = null;
  const started = performance.now();
  const result = await autocannon({
    url,
    connections,
    amount: list.length,
    timeout: 30,
    requests: [
      {
        setupRequest: (request) => {
          const item = list[next++];
          if (item === undefined) extra++;
          const { method, path: p, body } = item ?? list[list.length - 1];
          return {
            ...request,
            method,
            path: p,
            headers: { 'x-client-api-key': SANDBOX_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
            ...(body ? { body } : {}),
          };
        },
        onResponse: (status, body) => {
          lastAnswerAt = performance.now();
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status < 200 || status >= 300) firstFailure ??= { status, body };
        },
      },
    ],
  });
  const seconds = ((lastAnswerAt ?? performance.now()) - started) / 1000;
  const problems = [];
  if (result.non2xx > 0)
    problems.push(
      `${result.non2xx} non-2xx answers (first: HTTP ${firstFailure?.status} ${String(firstFailure?.body).slice(0, 300)})`,
    );
  if (result.errors + result.timeouts > 0)
    problems.push(`${result.errors + result.timeouts} connection errors/timeouts`);
  if (extra > 0) problems.push(`autocannon asked for ${extra} requests more than the list holds`);
  return {
    seconds,
    requests: list.length,
    p50: result.latency.p50,
    p99: result.latency.p99,
    problem: problems.join('; ') || undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// The floor for a client built on undici: a bare script that reads the ids, makes the same GETs
// through undici's Agent and request API (what fraudctl's client uses) with as many workers as
// connections, parses each answer and writes a line per id. No retries, deadlines, sanitising,
// ordering or error handling: what any undici client pays, and no more.

function bareUndiciScript(url, connections, json) {
  const lib = (p) => JSON.stringify(require.resolve(`undici/lib/${p}`));
  return `const Agent = require(${lib('dispatcher/agent.js')});
Object.assign(require(${lib('dispatcher/dispatcher.js')}).prototype, require(${lib('api/index.js')}));
const ids = require('node:fs').readFileSync(process.argv[2], 'utf8').split('\\n').filter(Boolean);
const agent = new Agent({ connections: ${connections} });
const headers = { 'x-client-api-key': ${JSON.stringify(SANDBOX_KEY)}, accept: 'application/json' };
const get = async (path) => JSON.parse(await (await agent.request({ origin: ${JSON.stringify(new URL(url).origin)}, path, method: 'GET', headers })).body.text());
let next = 0;
async function worker() {
  while (next < ids.length) {
    const id = ids[next++];
    const path = '/event/' + encodeURIComponent(id);
    const [event, assessment] = await Promise.all([get(path), ${json ? 'undefined' : "get(path + '/risk-assessment')"}]);
    process.stdout.write(JSON.stringify(event) + (assessment ? ' ' + assessment.actionType : '') + '\\n');
  }
}
Promise.all(Array.from({ length: ${connections} }, worker)).then(() => agent.close());
`;
}

// ---------------------------------------------------------------------------------------------
// The steps.

/** One comparison: autocannon, fraudctl, autocannon, on the same GETs. */
async function compare(label, sandbox, settings, ids, idFile, { json }) {
  const gets = ids.flatMap((id) =>
    json
      ? [{ method: 'GET', path: `/event/${id}` }]
      : [
          { method: 'GET', path: `/event/${id}` },
          { method: 'GET', path: `/event/${id}/risk-assessment` },
        ],
  );
  const c = settings.connections;
  const ac = async (n) => {
    const r = await step(`${label}: autocannon #${n}, ${fmtInt(gets.length)} GETs, ${c} connections`, () =>
      autocannonRun(sandbox.url, gets, c),
    );
    if (r)
      console.log(
        `  ${fmtInt(ids.length / r.seconds)} ids/s (${fmtInt(r.requests / r.seconds)} req/s), p50 ${r.p50} ms, p99 ${r.p99} ms`,
      );
    return r ? ids.length / r.seconds : null;
  };
  const before = await ac(1);
  const args = [
    'show',
    '--from',
    idFile,
    '--concurrency',
    String(c),
    ...(json ? ['--json'] : []),
    '--base-url',
    sandbox.url,
  ];
  const cli = await step(`${label}: fraudctl ${args.join(' ')}`, async () => {
    const outFile = path.join(tempDir, json ? 'rows.jsonl' : 'rows.txt');
    const result = await runFraudctl(args, {
      env: isolatedEnv({ FRAUDCTL_API_KEY: SANDBOX_KEY }),
      outFile,
      timeoutMs: Math.max(60_000, (ids.length / SLOWEST_IDS_PER_SECOND) * 1000),
    });
    const lines = readFileSync(outFile, 'utf8').trimEnd().split('\n');
    // The table: a header line, then one row per id (the count line goes to stderr).
    const rows = json ? lines : lines.slice(1);
    const shownIds = rows.map((l) => (json ? JSON.parse(l).id : l.split(' ')[0]));
    const problems = [];
    if (result.timedOut) problems.push(`killed after ${result.seconds.toFixed(0)} s`);
    else if (result.code !== 0)
      problems.push(`fraudctl exited ${result.signal ?? `with code ${result.code}`}\n${result.stderr.trim()}`);
    if (shownIds.length !== ids.length || shownIds.some((id, i) => id !== ids[i]))
      problems.push(`${shownIds.length} rows, not the ${ids.length} ids in order`);
    const idsPerSecond = ids.length / result.seconds;
    console.log(
      `  exit ${result.code}, ${result.seconds.toFixed(2)} s wall: ${fmtInt(idsPerSecond)} ids/s, peak RSS ${fmtMb(result.peakKb)}, CPU ${result.cpuSeconds?.toFixed(1) ?? 'n/a'} s`,
    );
    return {
      idsPerSecond,
      peakKb: result.peakKb,
      cpuSeconds: result.cpuSeconds,
      problem: problems.join('; ') || undefined,
    };
  });
  const after = await ac(2);
  const bare = await step(`${label}: a bare undici script making the same GETs, ${c} workers`, async () => {
    const script = path.join(tempDir, 'bare-undici.cjs');
    writeFileSync(script, bareUndiciScript(sandbox.url, c, json));
    const outFile = path.join(tempDir, 'bare.txt');
    const result = await runNode([script, idFile], {
      env: isolatedEnv(),
      outFile,
      timeoutMs: Math.max(60_000, (ids.length / SLOWEST_IDS_PER_SECOND) * 1000),
    });
    const lines = readFileSync(outFile, 'utf8').trimEnd().split('\n').length;
    if (result.code !== 0 || lines !== ids.length)
      return {
        problem: `exit ${result.signal ?? result.code}, ${lines} lines for ${ids.length} ids\n${result.stderr.trim()}`,
      };
    console.log(
      `  ${result.seconds.toFixed(2)} s wall: ${fmtInt(ids.length / result.seconds)} ids/s, CPU ${result.cpuSeconds?.toFixed(1) ?? 'n/a'} s`,
    );
    return { idsPerSecond: ids.length / result.seconds, cpuSeconds: result.cpuSeconds };
  });
  const baselines = [before, after].filter((r) => r !== null);
  const baseline = baselines.length ? baselines.reduce((a, b) => a + b, 0) / baselines.length : null;
  const ratio = cli && baseline ? cli.idsPerSecond / baseline : null;
  return {
    label,
    cli: cli?.idsPerSecond ?? null,
    seconds: cli ? ids.length / cli.idsPerSecond : null,
    peakKb: cli?.peakKb ?? null,
    cliCpu: cli?.cpuSeconds ?? null,
    baseline,
    ratio,
    bare: bare?.idsPerSecond ?? null,
    bareCpu: bare?.cpuSeconds ?? null,
  };
}

/** The median wall time of five `fraudctl show <id> --json`: what one process costs before its first request, and the request. */
async function startupSeconds(sandbox, id) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const result = await runFraudctl(['show', id, '--json', '--base-url', sandbox.url], {
      env: isolatedEnv({ FRAUDCTL_API_KEY: SANDBOX_KEY }),
      outFile: path.join(tempDir, 'one.json'),
      timeoutMs: 30_000,
    });
    if (result.code !== 0) return { problem: `fraudctl show ${id} exited ${result.code}: ${result.stderr.trim()}` };
    times.push(result.seconds);
  }
  times.sort((a, b) => a - b);
  console.log(`  ${times.map((t) => t.toFixed(3)).join(', ')} s; median ${times[2].toFixed(3)} s`);
  return { seconds: times[2] };
}

async function main(settings) {
  tempDir = installCleanup('fraudctl-bench-show-');
  const runId = Date.now().toString(36);
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}), ${fmtInt(settings.ids)} ids, ${settings.connections} connections, run ${runId}`,
  );

  const next = createEventGenerator({ idPrefix: `bench-show-${runId}` });
  const events = Array.from({ length: settings.ids }, () => next());
  const ids = events.map((e) => e.id);
  const idFile = path.join(tempDir, 'ids.txt');
  writeFileSync(idFile, `${ids.join('\n')}\n`);

  const sandbox = await step('start fraudctl sandbox serve', async () => {
    const s = await startSandbox(path.join(tempDir, 'bench.db'));
    console.log(`  ${s.url}`);
    return s;
  });
  const results = [];
  let startup = null;
  try {
    if (sandbox) {
      const stored = await step(`store ${fmtInt(ids.length)} events (POST /event, autocannon)`, () =>
        autocannonRun(
          sandbox.url,
          events.map((e) => ({ method: 'POST', path: '/event', body: e.body })),
          16,
        ),
      );
      if (stored) {
        await step('warm-up: GET every event once (not counted)', () =>
          autocannonRun(
            sandbox.url,
            ids.map((id) => ({ method: 'GET', path: `/event/${id}` })),
            settings.connections,
          ),
        );
        results.push(await compare('table', sandbox, settings, ids, idFile, { json: false }));
        results.push(await compare('--json', sandbox, settings, ids, idFile, { json: true }));
        startup =
          (await step('fraudctl start-up: show <one id> --json, 5 times', () => startupSeconds(sandbox, ids[0])))
            ?.seconds ?? null;
      }
    }
  } finally {
    if (sandbox) await stopSandbox(sandbox);
  }

  console.log(
    `\nload average after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  if (startup !== null) console.log(`fraudctl start-up (show <one id> --json, median of 5): ${startup.toFixed(3)} s`);
  for (const r of results) {
    const toBare = r.bare !== null && r.cli !== null ? r.cli / r.bare : null;
    const verdict = toBare === null ? 'not measured' : toBare >= TARGET_RATIO ? 'met' : 'NOT met';
    const warm =
      startup !== null && r.seconds !== null && r.baseline !== null && r.seconds > startup
        ? settings.ids / (r.seconds - startup)
        : null;
    console.log(
      `${r.label.padEnd(7)} fraudctl ${fmtInt(r.cli)} ids/s · autocannon ${fmtInt(r.baseline)} ids/s (mean of 2) · ratio ${r.ratio?.toFixed(2) ?? '–'}` +
        `${warm !== null ? ` · without start-up ${fmtInt(warm)} ids/s, ratio ${(warm / r.baseline).toFixed(2)}` : ''} · peak RSS ${fmtMb(r.peakKb)}`,
    );
    if (r.bare !== null && r.cli !== null && r.baseline !== null) {
      console.log(
        `${''.padEnd(7)} bare undici script ${fmtInt(r.bare)} ids/s: fraudctl / bare undici ${(r.cli / r.bare).toFixed(2)} (target ≥ ${TARGET_RATIO.toFixed(2)}: ${verdict}), bare undici / autocannon ${(r.bare / r.baseline).toFixed(2)}`,
      );
    }
  }
  const code = failedSteps('bench-show');
  if (MARKDOWN && code === 0) writeMarkdown(settings, results, startup);
  return code;
}

/** The section for docs/performance.md: per output form, fraudctl against autocannon and the bare undici script of the same run. */
function writeMarkdown(settings, results, startup) {
  const cpu = (s) => (s === null || s === undefined ? '–' : s.toFixed(1));
  writeSection('`npm run bench:show`', { BENCH_IDS: settings.ids, BENCH_CONNECTIONS: settings.connections }, [
    table(
      [
        'output',
        'fraudctl ids/s',
        'autocannon ids/s (mean of 2)',
        'fraudctl / autocannon',
        'bare undici ids/s',
        `fraudctl / bare undici (target ≥ ${TARGET_RATIO.toFixed(2)})`,
        'CPU s: fraudctl / bare undici',
        'fraudctl peak RSS',
      ],
      results.map((r) => {
        const toBare = r.cli !== null && r.bare !== null ? r.cli / r.bare : null;
        return [
          r.label === 'table' ? 'table (2 GETs per id)' : '`--json` (1 GET per id)',
          fmtInt(r.cli),
          fmtInt(r.baseline),
          fmtRatio(r.cli, r.baseline),
          fmtInt(r.bare),
          toBare === null ? '–' : `${toBare.toFixed(2)} (${verdict(toBare >= TARGET_RATIO)})`,
          `${cpu(r.cliCpu)} / ${cpu(r.bareCpu)}`,
          fmtMb(r.peakKb),
        ];
      }),
    ),
    startup === null
      ? ''
      : `fraudctl's start-up here (\`show <one id> --json\`, median of 5 processes): ${startup.toFixed(3)} s, paid once by each run above.`,
  ]);
}

main(readSettings()).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`bench-show: ${error.stack ?? error.message}`);
    process.exitCode = 1;
  },
);
