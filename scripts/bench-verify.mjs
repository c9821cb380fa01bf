// `fraudctl log verify` on the files that once made it slow, each against a bare Node read of the
// same file in the same run. Prints figures; never asserts timings.
//
//   1. Makes three logs in a temp dir, as the writer makes them (each line sealed and chained):
//      - a 20 MB line: three lines, the middle one a decision with a 20 MB comment;
//      - a 100 MB NUL run (what a power cut can leave), between chained lines, the line after it
//        chained from it as the writer chains past such a run;
//      - a 100k-line log (BENCH_LINES) of ordinary lines.
//   2. For each: `fraudctl log verify FILE` as a whole process, wall clock (start-up included),
//      with its peak RSS, and its verdict checked (intact; the NUL file: one break, the NUL run);
//      then the baseline, a bare `node` that reads the file in 64 KB chunks, finds its line feeds
//      and SHA-256s every byte once: the floor for any verifier in Node. The ratio is verify /
//      baseline: what verify's parsing and per-line hashing cost on top of reading the file.
//   3. fraudctl's start-up on this machine (`fraudctl --version`, median of five), to read the
//      figures by: a run of well under a second is mostly that.
//
// A verify that takes longer than BENCH_TIMEOUT_S (default 120) is killed and said as not done.
// A step that fails is reported, the other steps still run, and the script exits 1 at the end.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtMb, installCleanup, isolatedEnv, runTimed } from './bench/processes.mjs';
import { failedSteps, step } from './bench/steps.mjs';
import { positiveIntFromEnv } from './bench/settings.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'fraudctl.js');
const LINES = positiveIntFromEnv('BENCH_LINES', 100_000);
const TIMEOUT_MS = positiveIntFromEnv('BENCH_TIMEOUT_S', 120) * 1000;
const dir = installCleanup('fraudctl-bench-verify-');
const env = isolatedEnv(dir);
const GENESIS = '0'.repeat(64);

const sha256 = (data) => createHash('sha256').update(data).digest('hex');
/** The writer's seal (log-chain.ts sealLine): the line's own hash as its last member. */
const seal = (json) => `${json.slice(0, -1)},"hash":"${sha256(json)}"}`;

/** Appends chained, sealed lines to the file open as `fd`, from `state` ({ line, prev }). */
function appendLines(fd, state, count, fields = () => ({})) {
  let batch = '';
  for (let i = 0; i < count; i++) {
    const { line, prev } = state;
    const entry = { time: '2026-11-24T09:00:00.000Z', analyst: 'Ann Lee', eventId: `ord-${line}`, action: 'approve' };
    const text = seal(JSON.stringify({ ...entry, outcome: 'ok', ...fields(line), line, prev }));
    batch += `${text}\n`;
    state.prev = sha256(text);
    state.line++;
    if (batch.length > 1 << 20) {
      writeSync(fd, batch);
      batch = '';
    }
  }
  if (batch) writeSync(fd, batch);
}

function makeLongLine() {
  const file = path.join(dir, 'long-line.log');
  const fd = openSync(file, 'w');
  const state = { line: 1, prev: GENESIS };
  appendLines(fd, state, 1);
  appendLines(fd, state, 1, () => ({ comments: 'x'.repeat(20 * 1024 * 1024) }));
  appendLines(fd, state, 1);
  closeSync(fd);
  return { file, expect: (out) => out.includes('3 lines intact') };
}

function makeNulRun() {
  const file = path.join(dir, 'nul-run.log');
  const fd = openSync(file, 'w');
  const state = { line: 1, prev: GENESIS };
  appendLines(fd, state, 3);
  const nuls = Buffer.alloc(100 * 1024 * 1024);
  writeSync(fd, nuls);
  writeSync(fd, '\n');
  state.prev = sha256(nuls);
  state.line++;
  appendLines(fd, state, 3);
  closeSync(fd);
  return { file, expect: (out) => out.includes('NOT INTACT: line 4 is 104857600 NUL bytes (a crash or power cut)') };
}

function makeManyLines() {
  const file = path.join(dir, 'many-lines.log');
  const fd = openSync(file, 'w');
  const comments = (n) => ({ comments: n % 7 === 0 ? 'billing address is a mail drop' : null });
  appendLines(fd, { line: 1, prev: GENESIS }, LINES, comments);
  closeSync(fd);
  return { file, expect: (out) => out.includes(`${LINES} lines intact`) };
}

const BASELINE = `
const { createReadStream } = require('node:fs');
const { createHash } = require('node:crypto');
const hash = createHash('sha256');
let feeds = 0;
createReadStream(process.argv[1], { highWaterMark: 64 * 1024 })
  .on('data', (chunk) => {
    hash.update(chunk);
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) feeds++;
  })
  .on('end', () => console.log(feeds, hash.digest('hex')));
`;

const results = [];
async function measure(name, make) {
  return step(name, async () => {
    const { file, expect } = make();
    const outFile = path.join(dir, 'out.txt');
    const verify = await runTimed([BIN, 'log', 'verify', file], { env, cwd: dir, outFile, timeoutMs: TIMEOUT_MS });
    const out = readFileSync(outFile, 'utf8');
    const base = await runTimed(['-e', BASELINE, file], { env, cwd: dir, outFile, timeoutMs: TIMEOUT_MS });
    const row = { name, verify: verify.timedOut ? null : verify.seconds, peakKb: verify.peakKb };
    row.baseline = base.seconds;
    results.push(row);
    const took = row.verify === null ? `not done after ${TIMEOUT_MS / 1000} s` : `${row.verify.toFixed(2)} s`;
    const ratio = row.verify === null ? '–' : (row.verify / base.seconds).toFixed(2);
    const bare = `${base.seconds.toFixed(2)} s`;
    console.log(`  verify ${took}, peak RSS ${fmtMb(row.peakKb)}; bare read ${bare}; ratio ${ratio}`);
    if (verify.timedOut) return { problem: 'verify did not finish' };
    if (!expect(out)) return { problem: `unexpected verdict: ${out.slice(0, 300)}${verify.stderr.slice(0, 300)}` };
    return row;
  });
}

await measure('a 20 MB line', makeLongLine);
await measure('a 100 MB NUL run', makeNulRun);
await measure(`a ${LINES.toLocaleString('en-US')}-line log`, makeManyLines);
await step('start-up: fraudctl --version, median of five', async () => {
  const times = [];
  const outFile = path.join(dir, 'v.txt');
  for (let i = 0; i < 5; i++) {
    times.push((await runTimed([BIN, '--version'], { env, cwd: dir, outFile, timeoutMs: 30_000 })).seconds);
  }
  times.sort((a, b) => a - b);
  console.log(`  ${times[2].toFixed(2)} s`);
});

console.log('\nsummary (wall seconds; ratio = verify / bare read of the same file)');
for (const r of results) {
  const took = r.verify === null ? 'not done' : r.verify.toFixed(2).padStart(6);
  const ratio = r.verify === null ? '–' : (r.verify / r.baseline).toFixed(2);
  const bare = r.baseline.toFixed(2).padStart(6);
  console.log(`  ${r.name.padEnd(22)} verify ${took}  bare ${bare}  ratio ${ratio}  peak ${fmtMb(r.peakKb)}`);
}
process.exitCode = failedSteps('bench-verify');
