// bench:evaluate — `fraudctl evaluate` over 1,000,000 results lines and their outcomes, offline,
// against a baseline measured in the same run: a bare Node script that reads the same two files
// line by line and tallies the decision × outcome matrix (the least any evaluation must do).
// Targets: within 3× the baseline's time, under 300 MB peak. Then the replay (--rules, the
// default configuration, payloads from --events): the sandbox's own engine over the same events,
// against a bare Node script that reads and parses both files. Target: within 60 s.
//   npm run bench:evaluate [-- --events N] [-- --no-replay]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { installCleanup, track } from './bench/processes.mjs';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, 'no-replay': { type: 'boolean', default: false } },
});
const EVENTS = Number(values.events);
const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'fraudctl.js');
const dir = installCleanup('fraudctl-bench-evaluate-');

/** A seeded generator: the same files at every run. */
let seed = 7;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
const RULES = [
  'high_amount',
  'very_high_amount',
  'country_mismatch',
  'new_account',
  'disposable_email',
  'risky_category',
  'many_items',
  'email_velocity',
];

async function writeLines(file, count, line) {
  const out = createWriteStream(file);
  for (let i = 0; i < count; i++) if (!out.write(line(i))) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

const results = path.join(dir, 'results.jsonl');
const outcomes = path.join(dir, 'outcomes.csv');
const started = performance.now();
const fraudIds = new Set();
const amounts = new Float64Array(EVENTS + 1);
const dates = new Array(EVENTS + 1);
await writeLines(results, EVENTS + 1, (i) => {
  if (i === 0) {
    const header = { fraudctl: 'results', version: 1, command: 'submit', service: 'http://127.0.0.1:1', options: {} };
    return `${JSON.stringify({ ...header, closed: true })}\n`;
  }
  const rules = RULES.filter(() => random() < 0.12);
  const score = Math.min(100, rules.length * 22);
  const actionType = score >= 70 ? 'DECLINE' : score >= 30 ? 'REVIEW' : 'APPROVE';
  const fraud = random() < 0.01 + rules.length * 0.05;
  if (fraud) fraudIds.add(i);
  const amount = Math.round(random() * 200000) / 100;
  const date = new Date(Date.parse('2026-06-01T00:00:00Z') + Math.floor(random() * 90 * 86_400_000))
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  amounts[i] = amount;
  dates[i] = date;
  const line = { line: i, id: `bench-${i}`, outcome: 'DECIDED', status: 201, actionType, totalRiskScore: score };
  const rest = { errorType: null, errorCodes: [], attempts: 1, latencyMs: 4, column: 1, idAssigned: false };
  const facts = { ruleIds: rules, eventDate: date, amount, currency: 'EUR', amountInBaseCurrency: amount };
  return `${JSON.stringify({ ...line, ...rest, alreadyExisted: false, stateNow: null, ...facts })}\n`;
});
// The outcomes: every event with its label, the largest such file can be.
await writeLines(outcomes, EVENTS + 1, (i) =>
  i === 0 ? 'id,label\n' : `bench-${i},${fraudIds.has(i) ? 'fraud' : 'legit'}\n`,
);
// The payloads submit would have read: a customer base in which addresses recur (velocity).
const events = path.join(dir, 'events.jsonl');
const COUNTRIES = ['DE', 'FR', 'AT', 'NL', 'ES', 'IT'];
const CATEGORIES = ['home', 'clothing', 'electronics', 'giftcards', 'books'];
if (!values['no-replay'])
  await writeLines(events, EVENTS, (n) => {
    const i = n + 1;
    const customer = Math.floor(random() * EVENTS * 0.2);
    const items = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, k) => ({
      itemId: `sku-${customer % 997}-${k}`,
      itemQuantity: 1 + Math.floor(random() * 2),
      itemPrice: Math.round((amounts[i] / 3) * 100) / 100,
      itemCategory: CATEGORIES[Math.floor(random() * CATEGORIES.length)],
    }));
    const payload = {
      id: `bench-${i}`,
      eventDate: dates[i],
      amount: amounts[i],
      currency: 'EUR',
      userEmail: `customer${customer}@${random() < 0.03 ? 'mailinator.com' : 'example.com'}`,
      userIp: `10.${(customer >> 16) & 255}.${(customer >> 8) & 255}.${customer & 255}`,
      userCreated: new Date(Date.parse('2025-01-01T00:00:00Z') + Math.floor(random() * 500) * 86_400_000)
        .toISOString()
        .slice(0, 10),
      billingCountry: COUNTRIES[customer % COUNTRIES.length],
      shippingCountry: random() < 0.1 ? COUNTRIES[Math.floor(random() * COUNTRIES.length)] : COUNTRIES[customer % 6],
      items,
    };
    return `${JSON.stringify(payload)}\n`;
  });
process.stderr.write(
  `wrote ${EVENTS.toLocaleString('en-US')} results, outcomes${values['no-replay'] ? '' : ' and events'} in ` +
    `${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);

const baseline = path.join(dir, 'baseline.mjs');
writeFileSync(
  baseline,
  `import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
const [resultsFile, outcomesFile] = process.argv.slice(2);
const labels = new Map();
let first = true;
for await (const line of createInterface({ input: createReadStream(outcomesFile), crlfDelay: Infinity })) {
  if (first) { first = false; continue; }
  const comma = line.indexOf(',');
  labels.set(line.slice(0, comma), line.slice(comma + 1) === 'fraud');
}
const matrix = {};
for await (const line of createInterface({ input: createReadStream(resultsFile), crlfDelay: Infinity })) {
  const r = JSON.parse(line);
  if (r.fraudctl) continue;
  const cell = (matrix[r.actionType] ??= { fraud: 0, legit: 0, fraudAmount: 0, legitAmount: 0 });
  const fraud = labels.get(r.id) === true;
  cell[fraud ? 'fraud' : 'legit']++;
  cell[fraud ? 'fraudAmount' : 'legitAmount'] += r.amountInBaseCurrency;
}
process.stdout.write(JSON.stringify(matrix) + '\\n');
`,
);
const peak = path.join(dir, 'peak.mjs');
writeFileSync(
  peak,
  "import { writeFileSync } from 'node:fs';\n" +
    "process.on('exit', () => writeFileSync(process.env.BENCH_PEAK_FILE, String(process.resourceUsage().maxRSS)));\n",
);

/** Runs node with `args`, timed, its peak resident memory read by a preload; stdout kept. */
async function measure(name, args) {
  const peakFile = path.join(dir, `${name}.peak`);
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    BENCH_PEAK_FILE: peakFile,
    NODE_OPTIONS: `--import ${peak}`,
  };
  const t0 = performance.now();
  const child = track(spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] }));
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (s) => (stdout += s));
  const [code] = await once(child, 'exit');
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`${name} exited ${code}`);
  return { seconds, peakMb: Number(readFileSync(peakFile, 'utf8')) / 1024, stdout };
}

const base = await measure('baseline', [baseline, results, outcomes]);
const evaluate = await measure('evaluate', [BIN, 'evaluate', results, '--labels', outcomes, '--json']);
// The two agree on the matrix, or the comparison means nothing.
const expected = JSON.parse(base.stdout);
const report = JSON.parse(evaluate.stdout);
for (const [action, cell] of Object.entries(expected)) {
  const got = report.decisions[action];
  const legit = got.legit + got.unknown;
  if (got.fraud !== cell.fraud || legit !== cell.legit)
    throw new Error(
      `evaluate and the baseline disagree on ${action}: ${JSON.stringify(got)} against ${JSON.stringify(cell)}`,
    );
}
const ratio = evaluate.seconds / base.seconds;
const rows = [
  ['baseline (read both files, tally the matrix)', base.seconds, base.peakMb],
  ['fraudctl evaluate --json (every figure)', evaluate.seconds, evaluate.peakMb],
];
process.stdout.write(
  `\n${EVENTS.toLocaleString('en-US')} results lines and outcomes, offline, Node ${process.version}\n`,
);
for (const [what, s, mb] of rows)
  process.stdout.write(`  ${what.padEnd(48)} ${s.toFixed(2).padStart(7)} s ${mb.toFixed(0).padStart(6)} MB\n`);
const timeOk = ratio <= 3;
const memoryOk = evaluate.peakMb < 300;
process.stdout.write(`  ${timeOk ? 'ok  ' : 'FAIL'} ${ratio.toFixed(2)}× the baseline (target: within 3×)\n`);
process.stdout.write(`  ${memoryOk ? 'ok  ' : 'FAIL'} peak ${evaluate.peakMb.toFixed(0)} MB (target: under 300 MB)\n`);
if (!timeOk || !memoryOk) process.exitCode = 1;

if (!values['no-replay']) {
  const config = path.join(ROOT, 'src', 'sandbox', 'config', 'default-config.json');
  const replayBaseline = path.join(dir, 'replay-baseline.mjs');
  writeFileSync(
    replayBaseline,
    `import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
let n = 0;
for (const file of process.argv.slice(2))
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const value = JSON.parse(line);
    if (typeof value.id === 'string' || value.fraudctl) n++;
  }
process.stdout.write(String(n) + '\\n');
`,
  );
  const parsed = await measure('replay-baseline', [replayBaseline, results, events]);
  const replayed = await measure('replay', [
    BIN,
    'evaluate',
    results,
    '--labels',
    outcomes,
    '--rules',
    config,
    '--events',
    events,
    '--json',
  ]);
  const r = JSON.parse(replayed.stdout).replay;
  if (r.events !== EVENTS || r.unread !== 0)
    throw new Error(`the replay screened ${r.events} events (${r.unread} unread), not ${EVENTS}`);
  process.stdout.write(`\nreplay of ${EVENTS.toLocaleString('en-US')} events (--rules default config, --events)\n`);
  process.stdout.write(
    `  ${'baseline (read and JSON.parse both files)'.padEnd(48)} ${parsed.seconds.toFixed(2).padStart(7)} s ${parsed.peakMb.toFixed(0).padStart(6)} MB\n`,
  );
  process.stdout.write(
    `  ${'fraudctl evaluate --rules --events --json'.padEnd(48)} ${replayed.seconds.toFixed(2).padStart(7)} s ${replayed.peakMb.toFixed(0).padStart(6)} MB\n`,
  );
  process.stdout.write(`  ${r.changed.toLocaleString('en-US')} decisions change\n`);
  const replayOk = replayed.seconds <= 60;
  process.stdout.write(
    `  ${replayOk ? 'ok  ' : 'FAIL'} ${replayed.seconds.toFixed(1)} s, ${(replayed.seconds / parsed.seconds).toFixed(2)}× the baseline (target: within 60 s)\n`,
  );
  if (!replayOk) process.exitCode = 1;
}
