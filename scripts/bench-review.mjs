// fraudctl review: the time from the key that sends a decision to the next event's screen,
// with the next event prefetched (as shipped) and without (prefetch 0), on the sandbox.
// Prints figures; never asserts timings. Target: median under 50 ms with the prefetch.
//
// Measured in-process, not through a terminal: the queue's own loop (src/review-queue) is
// bundled from the sources with esbuild and run against `fraudctl sandbox serve` (a separate
// process, a SQLite file, as an analyst's machine would talk to a service) with a scripted key
// source and a screen that records when each frame is drawn. A pty (tmux capture-pane) can
// only see a frame by polling, which adds its polling interval to every sample; here the clock
// starts when the Enter key is handed to the loop and stops when the loop has drawn the next
// event's first frame, so the figure is the queue's own latency (re-read + PATCH + drawing,
// plus the two GETs when nothing was prefetched). Writing the frame to a real terminal adds
// the terminal's own time, well under a millisecond for 2 KB.
//
// Each sample: the analyst "reads" for BENCH_READ_MS (default 40 ms: the prefetch and the claim
// finish meanwhile, as they do for a person), presses `a`, then Enter on an empty comment.
//
// Then the same against a sandbox that waits BENCH_LATENCY_MS (default 20) before every request
// (--chaos latency=N): a service across a network, where each round trip the prefetch saves counts.
//
//   BENCH_EVENTS (default 150) events per run and mode; BENCH_RUNS (default 3).
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { markdownMode, table, verdict, writeSection } from './bench/markdown.mjs';

// --markdown: progress to stderr, and the figures as a section of docs/performance.md on stdout.
const MARKDOWN = markdownMode();
const TARGET_MEDIAN_MS = 50;
/** Every run's figures, for --markdown: { service, run, with: { median, p95, n }, without: { … } }. */
const measured = [];

const root = fileURLToPath(new URL('..', import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 150);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const READ_MS = Number(process.env.BENCH_READ_MS ?? 40);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const KEY = 'sandbox-demo-key';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fraudctl-bench-review-'));
const bundle = path.join(tmp, 'queue.mjs');
await build({
  stdin: {
    contents: `
      export { runQueueLoop } from './src/review-queue/queue-loop.ts';
      export { runEffect } from './src/review-queue/queue-effects.ts';
      export { initialModel } from './src/review-queue/queue-model.ts';
      export { ApiClient } from './src/api/api-client.ts';
      export { createStyle } from './src/render/colours.ts';
      export { failureMessages } from './src/failures/failure-messages.ts';
      export { failureWords } from './src/failures/failure-words.ts';`,
    resolveDir: root,
    loader: 'ts',
  },
  outfile: bundle,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
});
const { runQueueLoop, runEffect, initialModel, ApiClient, createStyle, failureMessages, failureWords } = await import(
  pathToFileURL(bundle).href
);

function startSandbox(name, extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'bin/fraudctl.js'),
        'sandbox',
        'serve',
        '--port',
        '0',
        '--db',
        path.join(tmp, `${name}.db`),
        ...extra,
      ],
      { env: { PATH: process.env.PATH } },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m)
        resolve({ url: m[1], stop: () => new Promise((done) => (child.kill('SIGTERM'), child.on('close', done))) });
    });
    child.on('close', (code) => reject(new Error(`sandbox ended (${code}): ${out}`)));
  });
}

let batch = 0;
/** Events that land in REVIEW; emails and IPs unique to each, so the sandbox's velocity rules stay quiet. */
async function reviewEvents(url, prefix, count) {
  const ids = [];
  batch++;
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${i}`;
    const res = await fetch(`${url}/event`, {
      method: 'POST',
      headers: { 'x-client-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        id,
        amount: 1500,
        currency: 'EUR',
        userName: `buyer${i}`,
        userEmail: `${prefix}-${i}@example.com`,
        userIp: `10.${batch}.${i >> 8}.${i & 255}`,
        items: [{ itemName: 'Laptop', itemQuantity: 1, itemPrice: 1500 }],
      }),
    });
    const body = await res.json();
    if (res.status !== 201 || body.state !== 'PENDING_REVIEW')
      throw new Error(`POST ${id}: ${res.status} ${JSON.stringify(body)}`);
    ids.push(id);
  }
  return ids;
}

/** One session over `ids`: approve each; the key → next-screen time of each decision. */
async function session(url, ids, prefetch) {
  const client = new ApiClient({
    baseUrl: url,
    apiKey: KEY,
    timeoutMs: 30_000,
    env: {},
    describe: failureMessages(failureWords()),
  });
  const style = createStyle(3);
  const samples = [];
  let onKey;
  let pressedAt = null;
  let waitingFor = null;
  let reading = null;
  const press = (text, name) => onKey(text, { name, sequence: text });
  const model = initialModel(
    ids.map((id) => ({ id })),
    { claim: true, includeClaimed: false, includeDecided: false, prefetch },
    { width: 80, height: 24 },
  );
  await runQueueLoop(model, {
    keys: { start: (cb) => ((onKey = cb), () => {}) },
    screen: { size: () => ({ width: 80, height: 24 }), draw: () => {}, onResize: () => () => {} },
    style,
    runEffect: (effect) => runEffect(effect, { client, log: null, style, now: Date.now }),
    onFrame(m) {
      const current = m.current;
      if (pressedAt !== null && current && current.id === waitingFor) {
        samples.push(performance.now() - pressedAt);
        pressedAt = null;
      }
      // Decide once the event is held and nothing is in the way (the analyst has read it).
      if (
        current &&
        current.claim === 'held' &&
        m.mode.name === 'keys' &&
        pressedAt === null &&
        reading !== current.id
      ) {
        reading = current.id;
        setTimeout(() => {
          press('a', 'a');
          const index = m.entries.findIndex((e) => e.id === current.id);
          waitingFor = m.entries[index + 1]?.id ?? null;
          pressedAt = waitingFor ? performance.now() : null;
          press('\r', 'return');
        }, READ_MS);
      }
    },
  });
  await client.close();
  return samples;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (ms) => `${ms.toFixed(1)} ms`;

async function measure(title, extra, runs, events) {
  const sandbox = await startSandbox(title.replace(/\W+/g, '-'), extra);
  try {
    // Warm-up: the sandbox's first requests and the client's first connection are not what an analyst lives with.
    await session(sandbox.url, await reviewEvents(sandbox.url, `warm-${batch}`, 20), 1);
    console.log(
      `${title} (load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}, ${os.cpus().length} CPUs)`,
    );
    for (let run = 1; run <= runs; run++) {
      const row = [];
      const figures = { service: title, run };
      for (const prefetch of [1, 0]) {
        const samples = (
          await session(
            sandbox.url,
            await reviewEvents(sandbox.url, `b${batch}-r${run}-p${prefetch}`, events),
            prefetch,
          )
        ).sort((a, b) => a - b);
        if (samples.length < events - 1)
          throw new Error(`run ${run}: only ${samples.length} of ${events - 1} decisions reached the next screen`);
        row.push(
          `${prefetch ? 'with prefetch' : 'without'}: median ${fmt(pct(samples, 50))} p95 ${fmt(pct(samples, 95))} (n=${samples.length})`,
        );
        figures[prefetch ? 'with' : 'without'] = { median: pct(samples, 50), p95: pct(samples, 95), n: samples.length };
      }
      measured.push(figures);
      console.log(`  run ${run}: ${row.join(' | ')}`);
    }
  } finally {
    await sandbox.stop();
  }
}

/** The section for docs/performance.md: each run with and without the prefetch (the baseline), and their ratio. */
function writeMarkdown() {
  const ms = (x) => x.toFixed(1);
  writeSection(
    '`npm run bench:review`',
    { BENCH_EVENTS: EVENTS, BENCH_RUNS: RUNS, BENCH_READ_MS: READ_MS, BENCH_LATENCY_MS: LATENCY_MS },
    [
      table(
        [
          'service',
          'run',
          'with prefetch: median / p95 ms',
          'without: median / p95 ms',
          'median with / without',
          `with prefetch: median < ${TARGET_MEDIAN_MS} ms`,
          'decisions',
        ],
        measured.map((m) => [
          m.service,
          m.run,
          `${ms(m.with.median)} / ${ms(m.with.p95)}`,
          `${ms(m.without.median)} / ${ms(m.without.p95)}`,
          (m.with.median / m.without.median).toFixed(2),
          m.service === 'sandbox on loopback' ? verdict(m.with.median < TARGET_MEDIAN_MS) : '(no target)',
          `${m.with.n} + ${m.without.n}`,
        ]),
        { align: ['left', 'right', 'right', 'right', 'right', 'left', 'right'] },
      ),
      `The target (a median under ${TARGET_MEDIAN_MS} ms with the prefetch) is for the sandbox on loopback; with ${LATENCY_MS} ms before every request it shows what the prefetch saves across a network.`,
    ],
  );
}

try {
  console.log(`fraudctl review: decision key → next screen (${EVENTS} events per run, read time ${READ_MS} ms)`);
  await measure('sandbox on loopback', [], RUNS, EVENTS);
  if (LATENCY_MS > 0)
    await measure(
      `sandbox with ${LATENCY_MS} ms before every request`,
      ['--chaos', `latency=${LATENCY_MS}`],
      RUNS,
      Math.min(EVENTS, 60),
    );
  if (MARKDOWN) writeMarkdown();
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
