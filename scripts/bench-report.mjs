// `fraudctl report --log FILE` over one large action log (BENCH_REPORT_MB, default 1024 MB),
// against a bare read of the same file in the same run. Prints figures; never asserts them.
//
//   1. Starts `fraudctl sandbox serve` (a child process, SQLite file in a temp dir) and stores
//      BENCH_EVENTS (default 2,000) events.
//   2. Writes the log as review sessions write it: per decision a claim and an approve or
//      decline, each a `sending` line and its `ok` line, four analysts, a second apart, chained
//      and sealed as the writer does (line, prev, hash: src/action-log/log-chain.ts), the events
//      taken in turn (so the report reads BENCH_EVENTS events however large the log).
//   3. The baseline: a bare read of the file by `node` (a stream, its line feeds counted): what
//      reading the bytes costs on this machine.
//   4. `fraudctl report --log FILE --json`, timed as a whole process (start-up, the chain checked
//      line by line, the GETs); its figures are checked (every decision counted, every event read).
//   Both peaks are the process's own high-water mark at exit (process.resourceUsage().maxRSS,
//   written by test/support/peak-memory.mjs, preloaded), so no peak is missed between samples.
//
// BENCH_REPORT_BIN runs another build's bin/fraudctl.js for step 4 (a before and after). The
// target for a 1 GB log: peak RSS under 300 MB (docs/review.md says what a report costs).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmtInt, fmtMb, installCleanup, isolatedEnv, runTimed, startListening, stopChild } from './bench/processes.mjs';
import { pathToFileURL } from 'node:url';
import { positiveIntFromEnv } from './bench/settings.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = process.env.BENCH_REPORT_BIN ?? path.join(ROOT, 'bin', 'fraudctl.js');
const SANDBOX_KEY = 'sandbox-demo-key';
const MB = 1024 * 1024;
const TARGET_MB = 300;

const megabytes = positiveIntFromEnv('BENCH_REPORT_MB', 1024);
const events = positiveIntFromEnv('BENCH_EVENTS', 2_000);
const dir = installCleanup('fraudctl-bench-report-');
const sha = (text) => createHash('sha256').update(text).digest('hex');

async function storeEvents(url) {
  const post = (i) =>
    fetch(`${url}/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client-api-key': SANDBOX_KEY },
      body: JSON.stringify({
        id: `bench-report-${i}`,
        amount: 1500,
        currency: 'EUR',
        eventDate: '2026-11-20T08:00:00Z',
      }),
    }).then((r) => {
      if (r.status !== 201) throw new Error(`POST /event: ${r.status}`);
      return r.arrayBuffer();
    });
  for (let i = 0; i < events; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, events - i) }, (_, k) => post(i + k)));
}

/** The log, `megabytes` long; how many lines and decisions it holds. */
async function writeLog(file, service) {
  const out = createWriteStream(file);
  const analysts = ['Ann Lee', 'Bob Ray', 'Cy Park', 'Dee Moss'];
  let prev = '0'.repeat(64);
  let line = 0;
  let bytes = 0;
  let decisions = 0;
  let at = Date.parse('2026-11-20T09:00:00Z');
  const write = async (fields) => {
    line++;
    const json = JSON.stringify({ time: new Date((at += 1000)).toISOString(), ...fields, line, prev });
    const sealed = `${json.slice(0, -1)},"hash":"${sha(json)}"}`;
    prev = sha(sealed);
    bytes += Buffer.byteLength(sealed) + 1;
    if (!out.write(`${sealed}\n`)) await once(out, 'drain');
  };
  while (bytes < megabytes * MB) {
    const analyst = analysts[decisions % analysts.length];
    const context = {
      analyst,
      host: 'desk-1',
      profile: 'prod',
      service,
      version: '0.1.0',
      session: `session-${analyst}`,
    };
    const eventId = `bench-report-${decisions % events}`;
    const [action, to] = decisions % 3 === 0 ? ['decline', 'DECLINED'] : ['approve', 'APPROVED'];
    for (const [act, from, state] of [
      ['claim', 'PENDING_REVIEW', 'IN_REVIEW'],
      [action, 'IN_REVIEW', to],
    ]) {
      for (const outcome of ['sending', 'ok']) {
        await write({
          ...context,
          eventId,
          action: act,
          from,
          to: state,
          comments: act === 'claim' ? null : 'checked the card holder and the address',
          requestId: outcome === 'ok' ? `req-${line}` : null,
          outcome,
          status: outcome === 'ok' ? 200 : null,
          reason: null,
        });
      }
    }
    decisions++;
  }
  out.end();
  await once(out, 'finish');
  return { lines: line, decisions };
}

const BARE_READ = `
let lines = 0;
for await (const chunk of (await import('node:fs')).createReadStream(process.argv[1], { highWaterMark: 64 * 1024 })) {
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
}
console.log(lines);
`;

const sandbox = await startListening(
  'the sandbox',
  [BIN, 'sandbox', 'serve', '--port', '0', '--db', path.join(dir, 'sandbox.db')],
  { cwd: ROOT, env: isolatedEnv(path.join(dir, 'sb')) },
);
let failed = false;
try {
  process.stderr.write(`storing ${fmtInt(events)} events…\n`);
  await storeEvents(sandbox.url);
  const log = path.join(dir, 'team.log');
  process.stderr.write(`writing a ${fmtInt(megabytes)} MB log…\n`);
  const written = await writeLog(log, sandbox.url);
  const size = statSync(log).size;
  const preload = pathToFileURL(path.join(ROOT, 'test/support/peak-memory.mjs')).href;
  const env = (name) =>
    isolatedEnv(path.join(dir, 'cli'), {
      FRAUDCTL_BASE_URL: sandbox.url,
      FRAUDCTL_API_KEY: SANDBOX_KEY,
      NODE_OPTIONS: `--import ${preload}`,
      FRAUDCTL_TEST_PEAK_FILE: path.join(dir, `${name}.peak`),
    });
  const peakKb = (name) => Number(readFileSync(path.join(dir, `${name}.peak`), 'utf8'));
  const timeoutMs = 30 * 60_000;
  process.stderr.write('a bare read of the file…\n');
  const bare = await runTimed(['--input-type=module', '-e', BARE_READ, log], {
    env: env('bare'),
    cwd: ROOT,
    outFile: path.join(dir, 'bare.txt'),
    timeoutMs,
  });
  bare.peakKb = peakKb('bare');
  process.stderr.write('fraudctl report…\n');
  const report = await runTimed([BIN, 'report', '--log', log, '--json'], {
    env: env('report'),
    cwd: ROOT,
    outFile: path.join(dir, 'report.json'),
    timeoutMs,
  });
  report.peakKb = peakKb('report');
  let check = 'ok';
  if (report.code !== 0) check = `exit ${report.code}: ${report.stderr.trim().split('\n').at(-1)}`;
  else {
    const r = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8'));
    const counted = r.analysts.reduce((sum, a) => sum + a.decisions, 0);
    if (counted !== written.decisions || r.eventsRead !== Math.min(events, written.decisions))
      check = `counted ${counted} of ${written.decisions} decisions, read ${r.eventsRead} events`;
  }
  if (check !== 'ok') failed = true;
  const peakMb = (report.peakKb ?? 0) / 1024;
  console.log(
    `fraudctl report over one log (${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version})`,
  );
  console.log(
    `  log: ${fmtMb(size / 1024)}, ${fmtInt(written.lines)} lines, ` +
      `${fmtInt(written.decisions)} decisions, ${fmtInt(events)} events`,
  );
  console.log(`  bare read (node, line feeds counted): ${bare.seconds.toFixed(1)} s, peak RSS ${fmtMb(bare.peakKb)}`);
  console.log(
    `  fraudctl report --json:               ${report.seconds.toFixed(1)} s, peak RSS ${fmtMb(report.peakKb)} ` +
      `(${(report.seconds / bare.seconds).toFixed(1)} × the bare read's time)`,
  );
  console.log(
    `  check: ${check}; peak RSS ${peakMb.toFixed(0)} MB against a target of ${TARGET_MB} MB for 1 GB: ` +
      (peakMb < TARGET_MB ? 'met' : 'missed'),
  );
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await stopChild(sandbox.child);
}
process.exitCode = failed ? 1 : 0;
