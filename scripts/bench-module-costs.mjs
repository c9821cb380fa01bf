// What loading one thing costs a fresh process, per Node version: the figures behind the
// start-up decisions in docs/decisions/ (what is loaded only where it is used, and how).
//
//   node scripts/bench-module-costs.mjs                         (the running node)
//   node scripts/bench-module-costs.mjs /path/to/node26 …       (each node given)
//
// For each case, RUNS (BENCH_RUNS, default 20) timed runs of `node -e CASE` alternating with
// `node -e 0` (the floor), after 2 warm-up runs; printed: the median of the pairs' differences,
// in ms (wall clock, spawn to exit). The machine is shared: figures move between runs.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const nodes = process.argv.length > 2 ? process.argv.slice(2) : [process.execPath];
const stringWidth = pathToFileURL(require.resolve('string-width')).href;
const keyring = require.resolve('@napi-rs/keyring');

const CASES = [
  ['string-width, imported (what the width tables load)', `await import(${JSON.stringify(stringWidth)})`],
  ['@napi-rs/keyring, required (CommonJS)', `require(${JSON.stringify(keyring)})`],
  ['@napi-rs/keyring, import()ed', `await import(${JSON.stringify(pathToFileURL(keyring).href)})`],
  ['node:crypto, loaded', `process.getBuiltinModule('node:crypto').randomBytes(4)`],
  ['an Intl.NumberFormat, made and used', `new Intl.NumberFormat('en-US').format(12345)`],
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const REQUIRE = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** Wall-clock ms of a fresh `node` running `code` as an ES module (`require` given to code that uses it). */
function timed(node, code) {
  const start = process.hrtime.bigint();
  const r = spawnSync(node, ['--input-type=module', '-e', code.includes('require') ? `${REQUIRE} ${code}` : code], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${node} -e ${code}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

for (const node of nodes) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`Node ${version}, ${RUNS} runs each, median ms more than the same process loading nothing:`);
  for (const [name, code] of CASES) {
    // The floor: the same process without the load (with createRequire where the case has it).
    const floor = code.includes('require') ? 'void require;' : '0';
    for (let i = 0; i < 2; i++) {
      timed(node, code);
      timed(node, floor);
    }
    const diffs = [];
    for (let i = 0; i < RUNS; i++) diffs.push(timed(node, code) - timed(node, floor));
    console.log(`  ${name.padEnd(52)} ${median(diffs).toFixed(1).padStart(6)} ms`);
  }
}
