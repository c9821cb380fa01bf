// `fraudctl set-state` for many events against a bare undici client doing the same GET + PATCH
// pairs at the same concurrency, on the same sandbox, in one run. Prints figures; never asserts
// timings.
//
//   1. Starts `fraudctl sandbox serve` (a child process, SQLite file in a temp dir) and stores
//      2 × BENCH_IDS (default 5,000) events awaiting review (autocannon), in two sets: one for
//      fraudctl, one for the bare client, so that both make the same changes to events in the
//      same states.
//   2. Two rounds: round 1 moves every event PENDING_REVIEW → ESCALATED (the bare client on its
//      set, then fraudctl on its set), round 2 ESCALATED → APPROVED (fraudctl first, then the
//      bare client). fraudctl runs `set-state --from ids.txt --state S --yes --out
//      results.jsonl --concurrency C` (C: BENCH_CONNECTIONS, default 8, set-state's default),
//      timed as a whole process, wall clock (start-up, reading the ids and writing a result line
//      per id included), with its peak RSS; its results are checked (one CHANGED line per id).
//      The bare client (undici's Agent and request API, what fraudctl's client is built on) has
//      C workers, each taking the next id: GET /event/{id}, parse it, PATCH /event/{id}/state,
//      parse the answer, write a line. No retries, deadlines, guards or results file: the floor
//      for any undici client. Rates are ids per second. Target: fraudctl / bare undici ≥ 0.8
//      (the mean of the two rounds each).
//   3. Memory: BENCH_MEMORY_IDS (default 100,000) more events, changed by one fraudctl run with
//      --out; its RSS is sampled every 100 ms and printed at each tenth of the run, with the
//      peak. Target: peak RSS < 150 MB, and flat (the last tenth no higher than the first
//      tenth's by more than a few MB). BENCH_MEMORY_IDS=0 skips it.
//
// Client, server and autocannon share the machine's CPUs: compare the ratio rather than the
// absolute figures across machines. A step that fails is reported with its stderr, the other
// steps still run, and the script exits 1 at the end.
import autocannon from 'autocannon';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
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

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'fraudctl.js');
const SANDBOX_KEY = 'sandbox-demo-key';
const START_TIMEOUT_MS = 15_000;
const TARGET_RATIO = 0.8;
const MEMORY_TARGET_MB = 150;
const SLOWEST_IDS_PER_SECOND = 25;

function readSettings() {
  const ids = positiveIntFromEnv('BENCH_IDS', 5_000);
  const memoryRaw = process.env.BENCH_MEMORY_IDS;
  const memoryIds = memoryRaw === '0' ? 0 : positiveIntFromEnv('BENCH_MEMORY_IDS', 100_000);
  return { ids, memoryIds, connections: positiveIntFromEnv('BENCH_CONNECTIONS', 8, 256) };
}

let tempDir;
const isolatedEnv = (extra = {}) => sandboxedEnv(tempDir, extra);

const startSandbox = (dbPath) =>
  startListening('the sandbox', [BIN, 'sandbox', 'serve', '--port', '0', '--db', dbPath], {
    cwd: ROOT,
    env: isolatedEnv(),
    timeoutMs: START_TIMEOUT_MS,
  });

/** Runs `node <args>` in the temp dir with stdout to `outFile` (scripts/bench/processes.mjs: wall clock, RSS samples, peak RSS, CPU time). */
const runNode = (args, options) => runTimed(args, { cwd: tempDir, ...options });

/** Stores one event awaiting review per id (POST /event through autocannon, 16 connections). */
async function store(url, ids) {
  let next = 0;
  let non2xx = 0;
  await autocannon({
    url,
    connections: 16,
    amount: ids.length,
    timeout: 30,
    requests: [
      {
        setupRequest: (request) => {
          const id = ids[Math.min(next++, ids.length - 1)];
          return {
            ...request,
            method: 'POST',
            path: '/event',
            headers: { 'x-client-api-key': SANDBOX_KEY, 'content-type': 'application/json' },
            body: JSON.stringify({ id, amount: 1500, currency: 'EUR' }),
          };
        },
        onResponse: (status) => {
          if (status < 200 || status >= 300) non2xx++;
        },
      },
    ],
  });
  return non2xx ? { problem: `${non2xx} events not stored` } : {};
}

/** The bare client: C workers, each GET then PATCH for the next id, a line written per id. */
function bareUndiciScript(url, connections) {
  const lib = (p) => JSON.stringify(require.resolve(`undici/lib/${p}`));
  return `const Agent = require(${lib('dispatcher/agent.js')});
Object.assign(require(${lib('dispatcher/dispatcher.js')}).prototype, require(${lib('api/index.js')}));
const ids = require('node:fs').readFileSync(process.argv[2], 'utf8').split('\\n').filter(Boolean);
const state = process.argv[3];
const agent = new Agent({ connections: ${connections} });
const origin = ${JSON.stringify(new URL(url).origin)};
const headers = { 'x-client-api-key': ${JSON.stringify(SANDBOX_KEY)}, accept: 'application/json' };
const call = async (path, method, body) => {
  const res = await agent.request({ origin, path, method, headers: body ? { ...headers, 'content-type': 'application/json' } : headers, body });
  const parsed = JSON.parse(await res.body.text());
  if (res.statusCode >= 300) throw new Error(method + ' ' + path + ': ' + res.statusCode);
  return parsed;
};
let next = 0;
async function worker() {
  while (next < ids.length) {
    const id = ids[next++];
    const path = '/event/' + encodeURIComponent(id);
    const before = await call(path, 'GET');
    const after = await call(path + '/state', 'PATCH', JSON.stringify({ state }));
    process.stdout.write(JSON.stringify({ id, from: before.state, to: after.state }) + '\\n');
  }
}
Promise.all(Array.from({ length: ${connections} }, worker)).then(() => agent.close());
`;
}

/** fraudctl set-state on every id of `idFile`, checking one CHANGED result line per id. */
async function fraudctl(sandbox, settings, idFile, count, state, label) {
  const out = path.join(tempDir, `${label}-results.jsonl`);
  const args = [
    'set-state',
    '--from',
    idFile,
    '--state',
    state,
    '--yes',
    '--out',
    out,
    '--concurrency',
    String(settings.connections),
    '--base-url',
    sandbox.url,
  ];
  return step(`${label}: fraudctl ${args.join(' ').replace(tempDir, '$TMP').replace(tempDir, '$TMP')}`, async () => {
    // BENCH_CLI_NODE_OPTIONS: Node options for fraudctl's runs only (e.g. --max-semi-space-size=16, --trace-gc).
    const nodeOptions = process.env.BENCH_CLI_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_CLI_NODE_OPTIONS } : {};
    const result = await runNode([BIN, ...args], {
      env: isolatedEnv({ FRAUDCTL_API_KEY: SANDBOX_KEY, ...nodeOptions }),
      outFile: path.join(tempDir, `${label}-stdout.txt`),
      timeoutMs: Math.max(60_000, (count / SLOWEST_IDS_PER_SECOND) * 1000),
    });
    const problems = [];
    if (result.timedOut) problems.push(`killed after ${result.seconds.toFixed(0)} s`);
    else if (result.code !== 0)
      problems.push(
        `fraudctl exited ${result.signal ?? `with code ${result.code}`}\n${result.stderr.trim().split('\n').slice(-8).join('\n')}`,
      );
    let changed = 0;
    let lines = 0;
    for (const line of readFileSync(out, 'utf8').split('\n')) {
      if (line === '') continue;
      const value = JSON.parse(line);
      if (value.fraudctl === 'results') continue; // the header naming the run, not a result
      lines++;
      if (value.outcome === 'CHANGED') changed++;
    }
    if (lines !== count || changed !== count)
      problems.push(`${lines} result lines, ${changed} CHANGED, for ${count} ids`);
    const idsPerSecond = count / result.seconds;
    console.log(
      `  exit ${result.code}, ${result.seconds.toFixed(2)} s wall: ${fmtInt(idsPerSecond)} ids/s, peak RSS ${fmtMb(result.peakKb)}, CPU ${result.cpuSeconds?.toFixed(1) ?? 'n/a'} s`,
    );
    return {
      idsPerSecond,
      peakKb: result.peakKb,
      cpuSeconds: result.cpuSeconds,
      samples: result.samples,
      seconds: result.seconds,
      problem: problems.join('; ') || undefined,
    };
  });
}

async function bare(sandbox, settings, idFile, count, state, label) {
  return step(
    `${label}: a bare undici script, GET + PATCH ${state} per id, ${settings.connections} workers`,
    async () => {
      const script = path.join(tempDir, 'bare-undici.cjs');
      writeFileSync(script, bareUndiciScript(sandbox.url, settings.connections));
      const outFile = path.join(tempDir, `${label}-bare.txt`);
      const result = await runNode([script, idFile, state], {
        env: isolatedEnv(),
        outFile,
        timeoutMs: Math.max(60_000, (count / SLOWEST_IDS_PER_SECOND) * 1000),
      });
      const lines = readFileSync(outFile, 'utf8')
        .trimEnd()
        .split('\n')
        .filter((l) => JSON.parse(l).to === state).length;
      if (result.code !== 0 || lines !== count)
        return {
          problem: `exit ${result.signal ?? result.code}, ${lines} changed for ${count} ids\n${result.stderr.trim()}`,
        };
      console.log(
        `  ${result.seconds.toFixed(2)} s wall: ${fmtInt(count / result.seconds)} ids/s, CPU ${result.cpuSeconds?.toFixed(1) ?? 'n/a'} s`,
      );
      return { idsPerSecond: count / result.seconds, cpuSeconds: result.cpuSeconds };
    },
  );
}

const mean = (values) => {
  const known = values.filter((v) => v !== null && v !== undefined);
  return known.length ? known.reduce((a, b) => a + b, 0) / known.length : null;
};

async function main(settings) {
  tempDir = installCleanup('fraudctl-bench-bulk-');
  const runId = Date.now().toString(36);
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(
        ' ',
      )}), ${fmtInt(settings.ids)} ids, ${settings.connections} connections, memory run ${fmtInt(settings.memoryIds)} ids, run ${runId}`,
  );
  const idsOf = (set, n) => Array.from({ length: n }, (_, i) => `bench-bulk-${runId}-${set}-${i + 1}`);
  const cliIds = idsOf('cli', settings.ids);
  const bareIds = idsOf('bare', settings.ids);
  const cliFile = path.join(tempDir, 'cli-ids.txt');
  const bareFile = path.join(tempDir, 'bare-ids.txt');
  writeFileSync(cliFile, `${cliIds.join('\n')}\n`);
  writeFileSync(bareFile, `${bareIds.join('\n')}\n`);

  const sandbox = await step('start fraudctl sandbox serve', async () => {
    const s = await startSandbox(path.join(tempDir, 'bench.db'));
    console.log(`  ${s.url}`);
    return s;
  });
  const rounds = [];
  let memory = null;
  try {
    if (
      sandbox &&
      (await step(`store 2 × ${fmtInt(settings.ids)} events awaiting review (POST /event, autocannon)`, () =>
        store(sandbox.url, [...cliIds, ...bareIds]),
      ))
    ) {
      // The order alternates, so that a sandbox warming up (or slowing down) favours neither.
      for (const [n, state] of [
        [1, 'ESCALATED'],
        [2, 'APPROVED'],
      ]) {
        let b;
        let f;
        if (n === 1) {
          b = await bare(sandbox, settings, bareFile, settings.ids, state, `round-${n}`);
          f = await fraudctl(sandbox, settings, cliFile, settings.ids, state, `round-${n}`);
        } else {
          f = await fraudctl(sandbox, settings, cliFile, settings.ids, state, `round-${n}`);
          b = await bare(sandbox, settings, bareFile, settings.ids, state, `round-${n}`);
        }
        rounds.push({
          state,
          first: n === 1 ? 'bare undici' : 'fraudctl',
          bare: b?.idsPerSecond ?? null,
          cli: f?.idsPerSecond ?? null,
          peakKb: f?.peakKb ?? null,
          cliCpu: f?.cpuSeconds ?? null,
          bareCpu: b?.cpuSeconds ?? null,
        });
      }
      if (settings.memoryIds > 0) {
        const memIds = idsOf('mem', settings.memoryIds);
        const memFile = path.join(tempDir, 'mem-ids.txt');
        writeFileSync(memFile, `${memIds.join('\n')}\n`);
        if (
          await step(`store ${fmtInt(settings.memoryIds)} events awaiting review`, () => store(sandbox.url, memIds))
        ) {
          memory = await fraudctl(sandbox, settings, memFile, settings.memoryIds, 'DECLINED', 'memory');
        }
      }
    }
  } finally {
    if (sandbox) await stopChild(sandbox.child);
  }

  console.log(
    `\nload average after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  rounds.forEach((r, i) =>
    console.log(
      `round ${i + 1}: fraudctl ${fmtInt(r.cli)} ids/s · bare undici ${fmtInt(r.bare)} ids/s · ratio ${r.cli && r.bare ? (r.cli / r.bare).toFixed(2) : '–'} · peak RSS ${fmtMb(r.peakKb)}`,
    ),
  );
  const cli = mean(rounds.map((r) => r.cli));
  const floor = mean(rounds.map((r) => r.bare));
  if (cli !== null && floor !== null) {
    const ratio = cli / floor;
    console.log(
      `fraudctl ${fmtInt(cli)} ids/s / bare undici ${fmtInt(floor)} ids/s (GET + PATCH per id, mean of 2 rounds) = ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO.toFixed(2)}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})`,
    );
  }
  let tenths = null;
  if (memory) {
    tenths = [];
    for (let t = 1; t <= 10; t++) {
      const until = (memory.seconds * 1000 * t) / 10;
      const inTenth = memory.samples.filter((s) => s.at <= until && s.at > (memory.seconds * 1000 * (t - 1)) / 10);
      tenths.push(inTenth.length ? Math.max(...inTenth.map((s) => s.kb)) : null);
    }
    const peakMb = memory.peakKb / 1024;
    console.log(
      `memory: ${fmtInt(settings.memoryIds)} ids in ${memory.seconds.toFixed(1)} s (${fmtInt(memory.idsPerSecond)} ids/s), RSS by tenth of the run: ${tenths.map((kb) => (kb === null ? '–' : (kb / 1024).toFixed(0))).join(' ')} MB; peak ${peakMb.toFixed(1)} MB (target < ${MEMORY_TARGET_MB} MB: ${peakMb < MEMORY_TARGET_MB ? 'met' : 'NOT met'})`,
    );
  }
  const code = failedSteps('bench-bulk');
  if (MARKDOWN && code === 0) writeMarkdown(settings, rounds, memory, tenths);
  return code;
}

/** The section for docs/performance.md: each round and their mean against the bare undici script of the same run, then the memory run. */
function writeMarkdown(settings, rounds, memory, tenths) {
  const cpu = (s) => (s === null || s === undefined ? '–' : s.toFixed(1));
  const cli = mean(rounds.map((r) => r.cli));
  const floor = mean(rounds.map((r) => r.bare));
  const ratio = cli !== null && floor !== null ? cli / floor : null;
  const blocks = [
    table(
      [
        'round',
        'fraudctl ids/s',
        'bare undici ids/s',
        `fraudctl / bare undici (target ≥ ${TARGET_RATIO.toFixed(2)})`,
        'CPU s: fraudctl / bare undici',
        'fraudctl peak RSS',
      ],
      [
        ...rounds.map((r, i) => [
          `${i + 1}: → ${r.state} (${r.first} first)`,
          fmtInt(r.cli),
          fmtInt(r.bare),
          fmtRatio(r.cli, r.bare),
          `${cpu(r.cliCpu)} / ${cpu(r.bareCpu)}`,
          fmtMb(r.peakKb),
        ]),
        [
          'mean of the rounds',
          fmtInt(cli),
          fmtInt(floor),
          ratio === null ? '–' : `**${ratio.toFixed(2)}** (${verdict(ratio >= TARGET_RATIO)})`,
          '',
          '',
        ],
      ],
    ),
  ];
  if (memory && tenths) {
    const peakMb = memory.peakKb / 1024;
    blocks.push(
      table(
        ['memory run', 'ids/s', `peak RSS (target < ${MEMORY_TARGET_MB} MB)`, 'RSS by tenth of the run, MB'],
        [
          [
            `${fmtInt(settings.memoryIds)} ids`,
            fmtInt(memory.idsPerSecond),
            `${peakMb.toFixed(1)} MB (${verdict(peakMb < MEMORY_TARGET_MB)})`,
            tenths.map((kb) => (kb === null ? '–' : (kb / 1024).toFixed(0))).join(' '),
          ],
        ],
      ),
    );
  }
  writeSection(
    '`npm run bench:bulk`',
    { BENCH_IDS: settings.ids, BENCH_CONNECTIONS: settings.connections, BENCH_MEMORY_IDS: settings.memoryIds },
    blocks,
  );
}

main(readSettings()).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`bench-bulk: ${error.stack ?? error.message}`);
    process.exitCode = 1;
  },
);
