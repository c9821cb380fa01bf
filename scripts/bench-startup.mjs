// Start-up cost of fraudctl against the floor any Node CLI has, per Node version.
//
//   npm run bench:startup                                   (the running node)
//   FRAUDCTL_BENCH_NODES=/path/to/node22:/path/to/node26 npm run bench:startup
//   node scripts/bench-startup.mjs /path/to/node22 /path/to/node26
//
// For each Node binary, BENCH_RUNS (default 30) timed runs of each pair, after 3 warm-up runs,
// the two commands of a pair run one after the other (A B A B …) so that both see the same
// machine; times are wall clock from spawn to exit, medians:
//   fraudctl --version          against  node -e 0
//   fraudctl show <id> --json   against  a fresh `node get.mjs`: an ES module file that makes one
//                                        GET of the same URL with node:http and prints the body,
//                                        the floor for any CLI that makes a request
//                               and against  a fresh script doing the same GET with undici (the
//                                        Agent and request API fraudctl uses, nothing else), as
//                                        information: how much of the gap is undici's own cost
//   fraudctl show <id> --json   with the key in the credential store  against  the same command
//                               with the key in FRAUDCTL_API_KEY (same profile): what reading the
//                               key from the store costs (loading @napi-rs/keyring, one D-Bus
//                               session with the Secret Service); target: at most 15 ms more
// The ratio is the median of the pairs' ratios. Targets (on the newest supported Node): the first
// two at most 1.30. The store's pair gives the median of the pairs' differences, against a Secret
// Service of the script's own (GNOME Keyring on a private D-Bus session,
// test/support/secret-service.mjs; not measured, and said so, where that cannot start). The show
// runs go to a sandbox this script starts (`fraudctl sandbox serve`, on the running node), holding
// one event. Every process gets an environment of its own (temp HOME and
// XDG directories, so the compile cache starts empty and is warmed by the warm-up runs; nothing
// inherited but PATH).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSecretService } from '../test/support/secret-service.mjs';
import { markdownMode, table, verdict, writeSection } from './bench/markdown.mjs';

// --markdown: progress to stderr, and the figures as a section of docs/performance.md on stdout.
const MARKDOWN = markdownMode();

const require = createRequire(import.meta.url);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 3;
const TARGET = 1.3;
const STORE_TARGET_MS = 15;
const BIN = fileURLToPath(new URL('../bin/fraudctl.js', import.meta.url));
const KEY = 'sandbox-demo-key';

const nodes =
  process.argv.length > 2
    ? process.argv.slice(2)
    : (process.env.FRAUDCTL_BENCH_NODES?.split(':').filter(Boolean) ?? [process.execPath]);
if (!(Number.isInteger(RUNS) && RUNS > 0)) {
  console.error(`BENCH_RUNS must be a positive whole number, not "${process.env.BENCH_RUNS}"`);
  process.exit(2);
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function timeOnce(node, args, env) {
  const start = process.hrtime.bigint();
  const r = spawnSync(node, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0)
    throw new Error(`${node} ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr || r.error?.message}`);
  return ms;
}

/** A and B in turn, WARMUP + RUNS times each: medians of both, of the pairs' ratios and of their differences. */
function pair(node, a, b, env, envB = env) {
  const times = { a: [], b: [], ratio: [], difference: [] };
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const ta = timeOnce(node, a, env);
    const tb = timeOnce(node, b, envB);
    if (i < WARMUP) continue;
    times.a.push(ta);
    times.b.push(tb);
    times.ratio.push(ta / tb);
    times.difference.push(ta - tb);
  }
  return { a: median(times.a), b: median(times.b), ratio: median(times.ratio), difference: median(times.difference) };
}

/** A Secret Service of the script's own, with the bench's key stored by `fraudctl login` (profile "bench"); or why not. */
async function keyInStore(url) {
  let service;
  try {
    service = await startSecretService(join(dir, 'keyring'));
  } catch (error) {
    return { reason: error.message.split('\n')[0] };
  }
  const login = spawnSync(process.execPath, [BIN, 'login', '--profile', 'bench', '--base-url', url], {
    env: { ...service.env, NO_COLOR: '1' },
    input: KEY,
    encoding: 'utf8',
  });
  if (login.status !== 0 || !/saved in the Secret Service/.test(login.stderr)) {
    await service.stop();
    return { reason: `login did not store the key in the credential store: ${login.stderr.trim()}` };
  }
  return { service };
}

function startSandbox(dbPath, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--db', dbPath], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const onExit = (code) => reject(new Error(`the sandbox exited (${code}) before listening: ${err}`));
    child.on('exit', onExit);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        child.off('exit', onExit);
        child.stdout.resume();
        resolve({ child, url: m[1] });
      }
    });
  });
}

const dir = mkdtempSync(join(os.tmpdir(), 'fraudctl-bench-'));
const sandboxEnv = { PATH: process.env.PATH, HOME: join(dir, 'sandbox-home'), NO_COLOR: '1' };
const { child, url } = await startSandbox(join(dir, 'bench.db'), sandboxEnv);
const results = [];
let store = { reason: 'not started' };
try {
  const submitEnv = { ...sandboxEnv, FRAUDCTL_API_KEY: KEY };
  const submit = spawnSync(process.execPath, [BIN, 'submit', 'examples/review.json', '--base-url', url, '--json'], {
    env: submitEnv,
    encoding: 'utf8',
  });
  if (submit.status !== 0) throw new Error(`submit failed: ${submit.stderr}`);
  const id = JSON.parse(submit.stdout).id;
  const eventUrl = new URL(`/event/${encodeURIComponent(id)}`, url);
  const getScript = join(dir, 'get.mjs');
  writeFileSync(getScript, httpGet(eventUrl));
  const undiciScript = join(dir, 'undici-get.cjs');
  writeFileSync(undiciScript, undiciGet(eventUrl));
  store = await keyInStore(url);

  console.log(
    `${RUNS} runs of each command after ${WARMUP} warm-up runs, in pairs; medians. ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)}`,
  );
  for (const [n, node] of nodes.entries()) {
    const home = join(dir, `home-${n}`);
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      XDG_CACHE_HOME: join(home, 'cache'),
      NO_COLOR: '1',
      FRAUDCTL_API_KEY: KEY,
    };
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    const loadBefore = os.loadavg()[0];
    const versionPair = pair(node, [BIN, '--version'], ['-e', '0'], env);
    const showPair = pair(node, [BIN, 'show', id, '--json', '--base-url', url], [getScript], env);
    const undiciPair = pair(node, [BIN, 'show', id, '--json', '--base-url', url], [undiciScript], env);
    let storePair = null;
    if (store.service) {
      // Same profile, home and bus; only where the key comes from differs. The compile cache is this Node's.
      const storeEnv = { ...store.service.env, NO_COLOR: '1', XDG_CACHE_HOME: env.XDG_CACHE_HOME };
      const show = [BIN, 'show', id, '--json', '--profile', 'bench'];
      storePair = pair(node, show, show, storeEnv, { ...storeEnv, FRAUDCTL_API_KEY: KEY });
    }
    const result = { version, node, versionPair, showPair, undiciPair, storePair, load: [loadBefore, os.loadavg()[0]] };
    results.push(result);
    printVersion(result);
  }
  if (results.length > 1) printSummary(results);
  if (MARKDOWN) writeMarkdown(results);
} finally {
  await store.service?.stop();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}

/** One GET with node:http, the body printed as fraudctl prints it: an ES module, as fraudctl is. */
function httpGet(eventUrl) {
  return `import http from 'node:http';
http.get(${JSON.stringify(eventUrl.href)}, { headers: { 'x-client-api-key': ${JSON.stringify(KEY)} } }, (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => (body += chunk));
  res.on('end', () => process.stdout.write(\`\${body}\\n\`));
});
`;
}

/** One GET through undici's Agent and request API, as fraudctl's client makes it, in CommonJS. */
function undiciGet(eventUrl) {
  const lib = (path) => JSON.stringify(require.resolve(`undici/lib/${path}`));
  return `const Agent = require(${lib('dispatcher/agent.js')});
Object.assign(require(${lib('dispatcher/dispatcher.js')}).prototype, require(${lib('api/index.js')}));
const agent = new Agent();
agent
  .request({ origin: ${JSON.stringify(eventUrl.origin)}, path: ${JSON.stringify(eventUrl.pathname)}, method: 'GET', headers: { 'x-client-api-key': ${JSON.stringify(KEY)} } })
  .then(async (r) => { await r.body.text(); await agent.close(); });
`;
}

function printVersion({ version, node, versionPair, showPair, undiciPair, storePair, load }) {
  const verdict = (ratio) =>
    `${ratio.toFixed(2)}   target <= ${TARGET.toFixed(2)}: ${ratio <= TARGET ? 'met' : 'NOT met'}`;
  const row = (name, ms, ratio = '') => `  ${name.padEnd(40)}${ms.toFixed(1).padStart(7)} ms   ${ratio}`;
  console.log();
  console.log(`node ${version} (${node}), load average ${load[0].toFixed(2)} → ${load[1].toFixed(2)}`);
  console.log(row('node -e 0', versionPair.b));
  console.log(row('fraudctl --version', versionPair.a, verdict(versionPair.ratio)));
  console.log(row('node get.mjs (one GET with node:http)', showPair.b));
  console.log(row('fraudctl show <id> --json', showPair.a, verdict(showPair.ratio)));
  console.log(row('one GET with undici (same Agent)', undiciPair.b));
  console.log(
    row(
      'fraudctl show <id> --json',
      undiciPair.a,
      `${undiciPair.ratio.toFixed(2)}   (the undici floor against node:http: ${(undiciPair.b / showPair.b).toFixed(2)})`,
    ),
  );
  if (!storePair) {
    console.log(`  the key in the credential store: not measured (${store.reason})`);
    return;
  }
  const difference = `+${storePair.difference.toFixed(1)} ms   target <= +${STORE_TARGET_MS} ms: ${storePair.difference <= STORE_TARGET_MS ? 'met' : 'NOT met'}`;
  console.log(row('show --json, key in FRAUDCTL_API_KEY', storePair.b));
  console.log(row('show --json, key in the credential store', storePair.a, difference));
}

/** The section for docs/performance.md: one row per Node binary, each ratio against its floor measured in the same pairs. */
function writeMarkdown(rows) {
  const ms = (x) => `${x.toFixed(1)} ms`;
  const target = (ratio) => `${ratio.toFixed(2)} (${verdict(ratio <= TARGET)})`;
  writeSection(
    '`npm run bench:startup`',
    { BENCH_RUNS: RUNS, 'warm-up runs': WARMUP, nodes: rows.map((r) => r.version).join(' ') },
    [
      table(
        [
          'Node',
          '`node -e 0`',
          '`fraudctl --version`',
          'ratio (target ≤ 1.30)',
          '`node get.mjs`',
          'undici GET',
          '`fraudctl show <id> --json`',
          'ratio to `get.mjs` (target ≤ 1.30)',
          'ratio to undici',
          'key in the store: more (target ≤ 15 ms)',
          'load average',
        ],
        rows.map(({ version, versionPair: v, showPair: s, undiciPair: u, storePair: k, load }) => [
          version,
          ms(v.b),
          ms(v.a),
          target(v.ratio),
          ms(s.b),
          ms(u.b),
          ms(s.a),
          target(s.ratio),
          u.ratio.toFixed(2),
          k
            ? `+${k.difference.toFixed(1)} ms (${verdict(k.difference <= STORE_TARGET_MS)})`
            : `not measured: ${store.reason}`,
          `${load[0].toFixed(2)} → ${load[1].toFixed(2)}`,
        ]),
      ),
      "Medians of the pairs; each ratio is the median of the pairs' ratios, the store's figure the median of their differences.",
    ],
  );
}

function printSummary(rows) {
  console.log();
  console.log(
    '| Node | `node -e 0` | `fraudctl --version` | ratio | `node:http` GET | undici GET | `fraudctl show <id> --json` | ratio to node:http | ratio to undici | key in the store: more |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const ms = (x) => `${Math.round(x)} ms`;
  for (const { version, versionPair: v, showPair: s, undiciPair: u, storePair: k } of rows) {
    const store = k ? `+${k.difference.toFixed(1)} ms` : 'not measured';
    console.log(
      `| ${version} | ${ms(v.b)} | ${ms(v.a)} | ${v.ratio.toFixed(2)} | ${ms(s.b)} | ${ms(u.b)} | ${ms(s.a)} | ${s.ratio.toFixed(2)} | ${u.ratio.toFixed(2)} | ${store} |`,
    );
  }
}
