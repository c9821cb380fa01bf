import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLines } from '../support/batch-events.js';
import { makeTestPki, startTlsFront, type TlsServer } from '../support/certificates.js';
import { cliEnv, runCli, type CliResult } from '../support/cli.js';
import { startFakeProxy, startTinyproxy, type RunningProxy } from '../support/forward-proxy.js';
import { missing, need } from '../support/prerequisites.js';
import { DEMO_KEY, startTestSandbox, tempDir, type TestSandbox } from '../support/sandbox.js';

/*
 * Behind a corporate proxy (HTTPS_PROXY): the service over TLS with a private CA (the sandbox
 * behind a TLS front), reached through a real forward proxy (tinyproxy, CONNECT). Through it,
 * show, submit, a batch and doctor work. When the proxy is what fails (down, asking for
 * credentials, refusing the destination), the message names the proxy, never its password, at
 * once (not after the timeout), exit 6 or 1; a batch and a list of ids stop at once.
 *
 * Needs tinyproxy (CI installs it: .ci/run).
 */

const tmp = tempDir('fraudctl-proxy-');
const PASSWORD = 'pr0xy-s3cret';
let sb: TestSandbox;
let front: TlsServer;
let caFile: string;
let open: RunningProxy;
let auth: RunningProxy;
let port443Only: RunningProxy;
const fakes: Record<number, RunningProxy> = {};
// A proxy that is not there: port 1, privileged, where no test listens. (The port of a proxy
// closed here could be taken again by any listen(0) before the test uses it.)
const down = `http://alice:${PASSWORD}@127.0.0.1:1`;

beforeAll(async () => {
  const pki = await makeTestPki(tmp.dir);
  caFile = pki.caFile;
  sb = await startTestSandbox();
  front = await startTlsFront(pki.localhost, sb.url);
  // Where tinyproxy cannot run, the tests that use it are skipped (need('tinyproxy')); the fakes still run.
  const tiny = missing('tinyproxy') === null;
  const none = Promise.resolve(undefined as unknown as RunningProxy);
  const started = await Promise.allSettled([
    tiny ? startTinyproxy(tmp.dir, 'open') : none,
    tiny ? startTinyproxy(tmp.dir, 'auth', { basicAuth: { user: 'alice', password: PASSWORD } }) : none,
    tiny ? startTinyproxy(tmp.dir, 'port-443-only', { connectPorts: [443] }) : none,
    startFakeProxy(407, 'Proxy Authentication Required'),
    startFakeProxy(403, 'Forbidden'),
    startFakeProxy(502, 'Bad Gateway'),
  ]);
  const running = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    // None left running when one could not start.
    await Promise.all(running.map((p) => p?.close()));
    throw failed.reason;
  }
  [open, auth, port443Only, fakes[407], fakes[403], fakes[502]] = running as [
    RunningProxy,
    RunningProxy,
    RunningProxy,
    RunningProxy,
    RunningProxy,
    RunningProxy,
  ];
}, 30_000);
afterAll(async () => {
  await Promise.all([open, auth, port443Only, ...Object.values(fakes)].map((p) => p?.close()));
  await front?.close();
  await sb?.close();
  await tmp.remove();
});

/** The service over https (private CA trusted), through `proxy`. */
const env = (proxy: string, extra: Record<string, string> = {}) =>
  cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: join(tmp.dir, 'config'),
    XDG_DATA_HOME: join(tmp.dir, 'data'),
    FRAUDCTL_BASE_URL: front.url,
    FRAUDCTL_API_KEY: DEMO_KEY,
    NODE_EXTRA_CA_CERTS: caFile,
    HTTPS_PROXY: proxy,
    ...extra,
  });

/** Runs fraudctl and times it. */
async function timed(
  args: string[],
  proxy: string,
  input?: string,
  extra: Record<string, string> = {},
): Promise<CliResult & { ms: number }> {
  const started = Date.now();
  const result = await runCli(args, { env: env(proxy, extra), ...(input !== undefined ? { input } : {}) });
  return { ...result, ms: Date.now() - started };
}

let files = 0;
function batchFile(prefix: string, count: number): { input: string; out: string } {
  const input = join(tmp.dir, `${++files}-${prefix}.jsonl`);
  writeFileSync(input, `${makeLines(prefix, count).join('\n')}\n`);
  return { input, out: join(tmp.dir, `${files}-${prefix}.out.jsonl`) };
}
/** The result lines of a results file, its header (the first line: which run wrote it) left out. */
const resultLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .filter((l) => !l.startsWith('{"fraudctl":"results"'));

/** One line and a hint, naming the proxy by host and port, never its password or the API key. */
function expectProxyError(result: CliResult & { ms: number }, code: number, message: RegExp, hint: RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  const lines = result.stderr.trim().split('\n');
  expect(lines.at(-2)).toMatch(message);
  expect(lines.at(-1)).toMatch(hint);
  expect(result.stderr + result.stdout).not.toContain(PASSWORD);
  expect(result.stderr + result.stdout).not.toContain(DEMO_KEY);
  // At once: not after the 30 s timeout, nor after retries with backoff.
  expect(result.ms).toBeLessThan(5_000);
}

describe('through a real forward proxy (tinyproxy, CONNECT) to a TLS service with a private CA', () => {
  it('submit, show, a batch and doctor work, and every request went through the proxy', async () => {
    need('tinyproxy');
    const batch = batchFile('via-proxy', 30);
    const submit = await timed(
      ['submit', '-', '--json'],
      open.url,
      JSON.stringify({ ...JSON.parse(makeLines('via-proxy-one', 1)[0]!) }),
    );
    expect(submit.code, submit.stderr).toBe(0);
    const id = (JSON.parse(submit.stdout) as { id: string }).id;
    const [show, many, doctor] = await Promise.all([
      timed(['show', id, '--json'], open.url),
      timed(['submit', batch.input, '--out', batch.out, '--quiet'], open.url),
      timed(['doctor'], open.url),
    ]);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ id });
    expect(many.code, many.stderr).toBe(0);
    expect(resultLines(batch.out).map((l) => (JSON.parse(l) as { outcome: string }).outcome)).toEqual(
      Array(30).fill('DECIDED'),
    );
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toMatch(new RegExp(`• proxy\\s+http://127\\.0\\.0\\.1:${open.port}/ \\(HTTPS_PROXY\\)`));
    expect(doctor.stdout).toMatch(/✓ service\s+answers as the fraud-screening service/);
    // The proxy opened the tunnels; the service was reached only through them.
    expect(open.log()).toMatch(new RegExp(`Established connection to host "localhost"`));
    expect((open.log().match(/Established connection/g) ?? []).length).toBeGreaterThanOrEqual(front.connections);
  });

  it('with the credentials in HTTPS_PROXY, a proxy that asks for them lets the request through', async () => {
    need('tinyproxy');
    const result = await timed(['show', 'no-such-event-1'], `http://alice:${PASSWORD}@127.0.0.1:${auth.port}`);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/no event "no-such-event-1" \(404 NOT_FOUND: EVENT_NOT_FOUND/);
  });
});

describe('when the proxy is what fails, it is named, at once', () => {
  it('the proxy down: "cannot connect to the proxy", exit 6, without its password; a batch and a list stop at once; doctor names it', async () => {
    const batch = batchFile('proxy-down', 200);
    const [show, many, list, doctor] = await Promise.all([
      timed(['show', 'ord-1'], down),
      timed(['submit', batch.input, '--out', batch.out, '--concurrency', '4'], down),
      timed(['show', 'a-1', 'a-2', 'a-3', 'a-4', 'a-5'], down),
      timed(['doctor'], down),
    ]);
    const refused = new RegExp(
      `^error: cannot connect to the proxy 127\\.0\\.0\\.1:\\d+ \\(HTTPS_PROXY\\): connection refused; nothing was sent to localhost:${front.port}$`,
    );
    expectProxyError(show, 6, refused, /^is the proxy running\? check the host and port in HTTPS_PROXY$/);
    expect(show.stderr).not.toContain('is the service running');
    expectProxyError(many, 6, refused, /HTTPS_PROXY/);
    expect(many.stderr).toContain('stopped: the proxy failed');
    expect(resultLines(batch.out).length).toBeLessThanOrEqual(4);
    expect(
      resultLines(batch.out).every((l) => (JSON.parse(l) as { errorType: string }).errorType === 'PROXY_FAILURE'),
    ).toBe(true);
    expectProxyError(list, 6, refused, /HTTPS_PROXY/);
    expect(list.stdout).toBe('');
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      /✗ connection\s+127\.0\.0\.1:\d+: ECONNREFUSED\n\s+→ nothing listens there: is the proxy up, and is the port right\? check HTTPS_PROXY\n/,
    );
    expect(doctor.stdout + doctor.stderr).not.toContain(PASSWORD);
  });

  it('a proxy that asks for credentials (tinyproxy 407; a fake one that keeps the connection open): says how to give them, exit 1, at once; a batch stops', async () => {
    need('tinyproxy');
    const batch = batchFile('proxy-407', 200);
    const [tiny, fake, many, wrong, plain] = await Promise.all([
      timed(['show', 'ord-1'], auth.url),
      timed(['show', 'ord-1'], fakes[407]!.url),
      timed(['submit', batch.input, '--out', batch.out, '--concurrency', '4'], auth.url),
      timed(['show', 'ord-1'], `http://alice:wrong-${PASSWORD}@127.0.0.1:${auth.port}`),
      // Plain http:// is handed to the proxy whole (no CONNECT): its 407 is told apart too.
      timed(['show', 'ord-1'], '', undefined, { FRAUDCTL_BASE_URL: sb.url, HTTP_PROXY: fakes[407]!.url }),
    ]);
    const asks =
      /^error: the proxy 127\.0\.0\.1:\d+ \(HTTPS_PROXY\) asks for credentials \(407 Proxy Authentication Required\); nothing was sent to localhost:\d+$/;
    const how = /^put the credentials in HTTPS_PROXY as http:\/\/user:password@host:port$/;
    expectProxyError(tiny, 1, asks, how);
    expectProxyError(fake, 1, asks, how);
    expect(fake.stderr).not.toMatch(/no complete answer|--timeout/);
    expectProxyError(many, 1, asks, how);
    expect(many.stderr).toContain('stopped: the proxy failed');
    expect(resultLines(batch.out).length).toBeLessThanOrEqual(4);
    expectProxyError(
      plain,
      1,
      /^error: the proxy 127\.0\.0\.1:\d+ \(HTTP_PROXY\) asks for credentials \(407 Proxy Authentication Required\)/,
      /^put the credentials in HTTP_PROXY as/,
    );
    // Wrong ones (tinyproxy answers 401): check them, and the password given is not printed.
    expectProxyError(
      wrong,
      1,
      /^error: the proxy 127\.0\.0\.1:\d+ \(HTTPS_PROXY\) did not accept the credentials given \(401 Unauthorized\)/,
      /^check the user name and password in HTTPS_PROXY/,
    );
  });

  it('a proxy that refuses the destination (tinyproxy allowing port 443 only; a fake 403) or cannot reach it (a fake 502): its status, exit 1 or 6', async () => {
    need('tinyproxy');
    const [tiny, fake403, fake502] = await Promise.all([
      timed(['show', 'ord-1'], port443Only.url),
      timed(['show', 'ord-1'], fakes[403]!.url),
      timed(['alerts', 'ord-1'], fakes[502]!.url),
    ]);
    const refused = (status: string) =>
      new RegExp(
        `^error: the proxy 127\\.0\\.0\\.1:\\d+ \\(HTTPS_PROXY\\) refused to open a connection to localhost:${front.port}: it answered ${status}; nothing was sent to the service$`,
      );
    expectProxyError(
      tiny,
      1,
      refused('403 Forbidden'),
      /^the proxy does not let this machine reach localhost:\d+: ask its administrators/,
    );
    expectProxyError(fake403, 1, refused('403 Forbidden'), /ask its administrators/);
    expectProxyError(
      fake502,
      6,
      refused('502 Bad Gateway'),
      /^the proxy could not reach the service: check the host and port of FRAUDCTL_BASE_URL/,
    );
    // The fakes got CONNECT to the service, nothing else.
    expect(fakes[403]!.log()).toMatch(new RegExp(`^CONNECT localhost:${front.port} HTTP/1\\.1$`, 'm'));
  });
});
