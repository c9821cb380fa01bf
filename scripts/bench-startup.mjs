// Start-up cost of fraudctl, against bare Node measured in the same run.
//
//   npm run bench:startup            (BENCH_RUNS=40 by default)
//
// Prints the median wall time of:
//   node -e 0                          the floor: starting Node itself
//   fraudctl --version                 target: at most 1.3 x the floor
//   fraudctl show <id> --json          against a sandbox already running; target: at most
//                                      1.3 x (floor + the request itself), where the request
//                                      is timed in-process on a fresh connection, as the CLI makes it
//   node -e <one GET with node:http>   for reference: the floor for any CLI written in Node
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const BIN = fileURLToPath(new URL('../bin/fraudctl.js', import.meta.url));
const KEY = 'sandbox-demo-key';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

function timeCommand(args, env) {
  const times = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (i >= 3) times.push(ms); // the first runs warm the disk cache
  }
  return median(times);
}

function requestOnce(url) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = http.get(url, { headers: { 'x-client-api-key': KEY }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
    });
    req.on('error', reject);
  });
}

function startSandbox(dbPath) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--db', dbPath], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'fraudctl-bench-'));
const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), NO_COLOR: '1' };
const { child, url } = await startSandbox(join(dir, 'bench.db'));
try {
  const submit = spawnSync(process.execPath, [BIN, 'submit', 'examples/review.json', '--base-url', url, '--json'], { env: { ...env, FRAUDCTL_API_KEY: KEY }, encoding: 'utf8' });
  if (submit.status !== 0) throw new Error(`submit failed: ${submit.stderr}`);
  const id = JSON.parse(submit.stdout).id;

  const node = timeCommand(['-e', '0'], env);
  const version = timeCommand([BIN, '--version'], env);
  const show = timeCommand([BIN, 'show', id, '--json', '--base-url', url], { ...env, FRAUDCTL_API_KEY: KEY });
  // For reference: the cheapest possible client, a fresh Node process doing one GET with node:http.
  const getScript = `require('node:http').get(${JSON.stringify(`${url}/event/${id}`)}, { headers: { 'x-client-api-key': '${KEY}' } }, (r) => r.resume())`;
  const bareGet = timeCommand(['-e', getScript], env);
  const requests = [];
  for (let i = 0; i < RUNS; i++) requests.push(await requestOnce(`${url}/event/${id}`));
  const request = median(requests);

  const row = (name, ms, baseline) => `${name.padEnd(34)}${ms.toFixed(1).padStart(8)} ms   ${baseline ? `${(ms / baseline).toFixed(2)} x baseline (${baseline.toFixed(1)} ms)` : ''}`;
  console.log(`node ${process.version}, ${RUNS} runs each, medians`);
  console.log(row('node -e 0', node));
  console.log(row('GET /event/{id} in-process', request));
  console.log(row('node -e <one GET with node:http>', bareGet, node + request));
  console.log(row('fraudctl --version', version, node));
  console.log(row('fraudctl show <id> --json', show, node + request));
  const ok = version / node <= 1.3 && show / (node + request) <= 1.3;
  console.log(`target (<= 1.30 x): ${ok ? 'met' : 'NOT met'}`);
} finally {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
