import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, json, type FakeServer } from '../support/fake-server.js';
import { makeTestPki, startTlsServer, type TestPki, type TlsServer } from '../support/certificates.js';
import { TERMINAL_CONTROLS, useSandboxForCli } from '../support/cli-against-sandbox.js';
import { DEMO_KEY } from '../support/sandbox.js';

/*
 * Transport security, as a user meets it (real processes, certificates the tests make):
 * http:// to another machine is refused unless --insecure-http (or the profile) allows it;
 * each TLS failure is one line with a hint, exit 1; a private CA works via NODE_EXTRA_CA_CERTS.
 */

const cli = useSandboxForCli();
const KEY = 'sk-transport-secret-0123456789';
let pki: TestPki;
const tls: Record<'localhost' | 'expired' | 'otherName', TlsServer> = {} as never;
let proxy: FakeServer;

beforeAll(async () => {
  pki = await makeTestPki(cli.dir);
  [tls.localhost, tls.expired, tls.otherName, proxy] = await Promise.all([
    startTlsServer(pki.localhost),
    startTlsServer(pki.expired),
    startTlsServer(pki.otherName),
    startFakeServer(),
  ]);
}, 30_000);
afterAll(async () => {
  await Promise.all([...Object.values(tls).map((s) => s.close()), proxy.close()]);
});

const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
  cli.run(args, {
    env: { FRAUDCTL_API_KEY: KEY, FRAUDCTL_BASE_URL: '', ...env },
    ...(input !== undefined ? { input } : {}),
  });

function expectOneLine(
  result: { code: number | null; stderr: string },
  code: number,
  message: RegExp,
  hint: RegExp,
): void {
  expect(result.code, result.stderr).toBe(code);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(2);
  expect(lines[0]).toMatch(message);
  expect(lines[1]).toMatch(hint);
  expect(result.stderr).not.toContain(KEY);
  expect(result.stderr).not.toMatch(TERMINAL_CONTROLS);
}

describe('http:// to a host that is not this machine', () => {
  it('is refused, exit 2, nothing sent, with a message saying why', async () => {
    const result = await run(['show', 'ord-1', '--base-url', 'http://fraud.example.com'], { HTTP_PROXY: proxy.url });
    expectOneLine(
      result,
      2,
      /^error: refusing to send the API key in clear text to fraud\.example\.com: the URL is http:\/\/, and that host is not this machine$/,
      /^use https:\/\/;.*--insecure-http/,
    );
    expect(proxy.requests).toHaveLength(0);
  });

  it('a mistyped host name (http://locahost) gets the DNS failure and "check the host name", not --insecure-http', async () => {
    const result = await run(['show', 'ord-1', '--base-url', 'http://locahost:8787']);
    expectOneLine(
      result,
      6,
      /^error: cannot find host locahost \(DNS lookup failed\)$/,
      /^check the host name in --base-url$/,
    );
    const fromEnv = await run(['show', 'ord-1'], { FRAUDCTL_BASE_URL: 'http://locahost:8787' });
    expectOneLine(fromEnv, 6, /^error: cannot find host locahost/, /^check the host name in FRAUDCTL_BASE_URL/);
    // login says so before asking for a key.
    const login = await run(
      ['login', '--profile', 'typo', '--base-url', 'http://locahost:8787'],
      { FRAUDCTL_API_KEY: '' },
      `${DEMO_KEY}\n`,
    );
    expectOneLine(login, 6, /^error: cannot find host locahost/, /^check the host name in --base-url$/);
    // A name that resolves, or an address, is refused as before (no look-up needed for an address).
    expectOneLine(
      await run(['show', 'ord-1', '--base-url', 'http://192.0.2.10:8787']),
      2,
      /^error: refusing to send the API key in clear text to 192\.0\.2\.10:8787/,
      /--insecure-http/,
    );
  });

  it('is sent with --insecure-http (here to a proxy on this machine)', async () => {
    proxy.script(json(404, { requestId: 'p-1', errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] }));
    const result = await run(['show', 'ord-1', '--base-url', 'http://fraud.example.com', '--insecure-http'], {
      HTTP_PROXY: proxy.url,
    });
    expect(result.code, result.stderr).toBe(4);
    expect(proxy.requests.map((r) => r.url)).toEqual(['http://fraud.example.com/event/ord-1']);
  });

  it('login refuses before asking for the key, and saves nothing', async () => {
    const before = proxy.requests.length;
    const result = await run(
      ['login', '--profile', 'plain', '--base-url', 'http://fraud.example.com'],
      { HTTP_PROXY: proxy.url, FRAUDCTL_API_KEY: '' },
      `${DEMO_KEY}\n`,
    );
    expectOneLine(result, 2, /refusing to send the API key in clear text/, /--insecure-http/);
    expect(proxy.requests.length).toBe(before);
    expect(existsSync(join(cli.dir, 'config', 'fraudctl', 'config.json'))).toBe(false);
  });

  it("is allowed by the profile's insecure-http setting", async () => {
    proxy.script(json(404, { requestId: 'p-2', errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] }));
    expect((await run(['config', 'set', 'base-url', 'http://fraud.example.com', '--profile', 'tunnel'])).code).toBe(0);
    expect((await run(['show', 'ord-2', '--profile', 'tunnel'], { HTTP_PROXY: proxy.url })).code).toBe(2);
    expect((await run(['config', 'set', 'insecure-http', 'true', '--profile', 'tunnel'])).code).toBe(0);
    expect((await run(['config', 'get', 'insecure-http', '--profile', 'tunnel'])).stdout.trim()).toBe('true');
    // config list says so, beside the URL, and in its JSON.
    expect((await run(['config', 'list'])).stdout).toMatch(
      /http:\/\/fraud\.example\.com[^\n]*\n[^\n]*insecure-http: key in clear text/,
    );
    const listed = JSON.parse((await run(['config', 'list', '--json'])).stdout) as {
      name: string;
      insecureHttp: boolean;
    }[];
    expect(listed.map((p) => [p.name, p.insecureHttp])).toEqual([
      ['tunnel', true],
      ['sandbox', false],
    ]);
    expect((await run(['show', 'ord-2', '--profile', 'tunnel'], { HTTP_PROXY: proxy.url })).code).toBe(4);
    expect((await run(['config', 'set', 'insecure-http', 'maybe', '--profile', 'tunnel'])).code).toBe(2);
  });
});

describe('TLS', () => {
  it('a private CA: refused without NODE_EXTRA_CA_CERTS (one line, a hint, exit 1), trusted with it', async () => {
    const refused = await run(['show', 'ord-1', '--base-url', tls.localhost.url]);
    expectOneLine(
      refused,
      1,
      /^error: the TLS certificate of localhost:\d+ is not signed by a certificate authority this machine trusts \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): nothing was sent$/,
      /NODE_EXTRA_CA_CERTS/,
    );
    expect(tls.localhost.requests).toBe(0);
    const trusted = await run(['show', 'ord-1', '--base-url', tls.localhost.url], { NODE_EXTRA_CA_CERTS: pki.caFile });
    expect(trusted.code, trusted.stderr).toBe(4);
    expect(trusted.stderr).toMatch(/no event "ord-1" \(404 NOT_FOUND: EVENT_NOT_FOUND, request tls-1\)/);
    expect(tls.localhost.requests).toBe(1);
  });

  it('an expired certificate', async () => {
    const result = await run(['show', 'ord-1', '--base-url', tls.expired.url], { NODE_EXTRA_CA_CERTS: pki.caFile });
    expectOneLine(
      result,
      1,
      /^error: the TLS certificate of localhost:\d+ has expired \(CERT_HAS_EXPIRED\): nothing was sent$/,
      /renew/,
    );
    expect(tls.expired.requests).toBe(0);
    expect(tls.expired.connections).toBe(1);
  });

  it('a certificate for another name', async () => {
    const result = await run(['show', 'ord-1', '--base-url', tls.otherName.url], { NODE_EXTRA_CA_CERTS: pki.caFile });
    expectOneLine(
      result,
      1,
      /^error: the TLS certificate of localhost:\d+ is for another name \(ERR_TLS_CERT_ALTNAME_INVALID\): nothing was sent$/,
      /host name the certificate was issued for/,
    );
    expect(tls.otherName.requests).toBe(0);
  });

  it('https:// to a port that speaks plain HTTP', async () => {
    const result = await run(['show', 'ord-1', '--base-url', cli.sb.url.replace('http:', 'https:')]);
    expectOneLine(
      result,
      1,
      /^error: no TLS connection to 127\.0\.0\.1:\d+ \(.+\): nothing was sent$/,
      /URL scheme and port/,
    );
  });
});
