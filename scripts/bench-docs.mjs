// Writes docs/performance.md from the benchmarks' own output: the hand-written text comes from
// scripts/bench/performance.template.md, and between each pair of markers
//   <!-- bench:NAME -->  …  <!-- /bench:NAME -->
// goes the section that `node scripts/bench-NAME.mjs --markdown` prints (its machine, parameters
// and table). A bench that fails keeps the section it had (the script then exits 1, naming it).
//
//   npm run bench:docs                          every bench, with the parameters below (about 10 minutes)
//   npm run bench:docs -- --only show,bulk      those benches; the other sections are kept as they are
//   npm run bench:docs -- --tiny                tiny sizes, to see that the generator works (figures mean nothing)
//   npm run bench:docs -- --out FILE            write FILE instead of docs/performance.md
//
// Each bench gets exactly the BENCH_* settings listed here (none inherited, since two benches
// read BENCH_RUNS differently); FRAUDCTL_BENCH_NODES still chooses bench:startup's Node binaries.
// Expects a built dist/ (`npm run bench:docs` builds first).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEMPLATE = path.join(ROOT, 'scripts/bench/performance.template.md');
const DEFAULT_OUT = path.join(ROOT, 'docs/performance.md');

/** The benches in the page's order, each with the settings of a full run (kept to about 10 minutes in all) and of a tiny one. */
const BENCHES = [
  {
    name: 'sandbox',
    full: { BENCH_SECONDS: 5, BENCH_ROUNDS: 3, BENCH_WARMUP_SECONDS: 2 },
    tiny: { BENCH_SECONDS: 1, BENCH_ROUNDS: 1, BENCH_WARMUP_SECONDS: 0 },
  },
  {
    name: 'batch',
    full: { BENCH_EVENTS: 10_000, BENCH_WARMUP_EVENTS: 2_000, BENCH_MILLION_COUNT: 200_000 },
    tiny: { BENCH_EVENTS: 200, BENCH_WARMUP_EVENTS: 50, BENCH_MILLION_COUNT: 1_000 },
  },
  { name: 'show', full: { BENCH_IDS: 5_000 }, tiny: { BENCH_IDS: 50 } },
  {
    name: 'bulk',
    full: { BENCH_IDS: 5_000, BENCH_MEMORY_IDS: 50_000 },
    tiny: { BENCH_IDS: 50, BENCH_MEMORY_IDS: 200 },
  },
  { name: 'startup', full: { BENCH_RUNS: 20 }, tiny: { BENCH_RUNS: 1 } },
  {
    name: 'review',
    full: { BENCH_RUNS: 2, BENCH_EVENTS: 100 },
    tiny: { BENCH_RUNS: 1, BENCH_EVENTS: 5, BENCH_LATENCY_MS: 5 },
  },
];
const NAMES = BENCHES.map((b) => b.name);

function usage(problem) {
  console.error(
    `bench-docs: ${problem}\nusage: node scripts/bench-docs.mjs [--only ${NAMES.join(',')}] [--tiny] [--out FILE]`,
  );
  process.exit(2);
}

function readArguments(argv) {
  const options = { only: NAMES, tiny: false, out: DEFAULT_OUT };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--tiny') options.tiny = true;
    else if (arg === '--only' || arg === '--out') {
      const value = argv[++i];
      if (!value) usage(`${arg} needs a value`);
      if (arg === '--out') options.out = path.resolve(value);
      else {
        options.only = value.split(',').filter(Boolean);
        const unknown = options.only.filter((n) => !NAMES.includes(n));
        if (unknown.length || options.only.length === 0)
          usage(`no bench named ${unknown.join(', ') || '(none)'}; they are ${NAMES.join(', ')}`);
      }
    } else usage(`unknown argument ${arg}`);
  }
  return options;
}

const open = (name) => `<!-- bench:${name} -->`;
const close = (name) => `<!-- /bench:${name} -->`;

/** The text between a section's markers in `text`, or null when the markers are not there (once each, in order). */
function sectionOf(text, name) {
  const start = text.indexOf(open(name));
  const end = text.indexOf(close(name));
  if (start === -1 || end < start || text.indexOf(open(name), start + 1) !== -1) return null;
  return text.slice(start + open(name).length, end).trim();
}

/** Runs one bench with --markdown: its section, or an Error saying why not. Its progress goes to our stderr. */
function runBench(bench, settings) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BENCH_')));
  for (const [k, v] of Object.entries(settings)) env[k] = String(v);
  const script = path.join(ROOT, 'scripts', `bench-${bench.name}.mjs`);
  const child = spawn(process.execPath, [script, '--markdown'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  return new Promise((resolve) => {
    child.once('error', (error) => resolve(error));
    child.once('close', (code, signal) => {
      const section = stdout.trim();
      if (code !== 0) resolve(new Error(`bench-${bench.name} exited ${signal ?? code}`));
      else if (!section.startsWith('### ') || !/^\|[-:|]+\|$/m.test(section))
        resolve(new Error(`bench-${bench.name} printed no section with a table`));
      else resolve(section);
    });
  });
}

async function main() {
  const options = readArguments(process.argv.slice(2));
  const template = readFileSync(TEMPLATE, 'utf8');
  const previous = existsSync(options.out) ? readFileSync(options.out, 'utf8') : '';
  for (const name of NAMES)
    if (sectionOf(template, name) === null) throw new Error(`${TEMPLATE} has no markers for ${name}`);

  const sections = {};
  const failed = [];
  for (const bench of BENCHES.filter((b) => options.only.includes(b.name))) {
    const settings = options.tiny ? bench.tiny : bench.full;
    console.error(
      `\n=== bench:${bench.name} (${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')})`,
    );
    const started = performance.now();
    const result = await runBench(bench, settings);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    if (result instanceof Error) {
      failed.push(`${bench.name}: ${result.message}`);
      console.error(
        `=== bench:${bench.name} FAILED after ${seconds} s: ${result.message}; its section is kept as it was`,
      );
    } else {
      sections[bench.name] = result;
      console.error(`=== bench:${bench.name} done in ${seconds} s`);
    }
  }

  let text = template;
  for (const name of NAMES) {
    const body =
      sections[name] ?? sectionOf(previous, name) ?? `_Not measured yet: \`npm run bench:docs -- --only ${name}\`._`;
    const start = text.indexOf(open(name)) + open(name).length;
    text = `${text.slice(0, start)}\n${body}\n${text.slice(text.indexOf(close(name)))}`;
  }
  // Whole or not at all: a temp file beside the page, renamed over it.
  const temp = `${options.out}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, options.out);
  console.error(`\nwrote ${options.out}: ${Object.keys(sections).join(', ') || 'no section'} measured`);
  if (failed.length) {
    console.error(`bench-docs: ${failed.length} bench(es) failed:\n${failed.map((f) => `  - ${f}`).join('\n')}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    console.error(`bench-docs: ${error.message}`);
    process.exitCode = 1;
  },
);
