import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { DEMO_KEY, startTestSandbox, tempDir, writeConfig, type TestSandbox } from '../support/sandbox.js';
import { listen } from '../support/listen.js';
import { makeTestPki, startTlsServer, type TestPki, type TlsServer } from '../support/certificates.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * `fraudctl doctor` against the real sandbox (embedded and served), and against servers that
 * are not the service or disagree about the time: one line per check, exit 0 only when all pass,
 * and never the key.
 */

const tmp = tempDir('fraudctl-doctor-');
let sb: TestSandbox;
/** A server of the test's own, closed when the test ends; its URL. */
const serve = async (handler: RequestListener) => (await listen(handler)).url;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
  await tmp.remove();
});

const env = (extra: Record<string, string> = {}) =>
  cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: `${tmp.dir}/config`, XDG_DATA_HOME: `${tmp.dir}/data`, ...extra });
/** The line of the check titled `title` (the mark, the title padded, then at least two spaces). */
const line = (stdout: string, title: string) =>
  stdout.split('\n').find((l) => new RegExp(`^. ${title}\\s{2,}`).test(l)) ?? '';

describe('fraudctl doctor', () => {
  it('on the embedded sandbox: says so, every check passes, exit 0, and the key is never printed', async () => {
    const result = await runInProcess(['doctor'], env());
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(line(result.stdout, 'service URL')).toMatch(/^✓ service URL\s+the embedded sandbox/);
    expect(line(result.stdout, 'service')).toMatch(
      /^✓ service\s+answers as the fraud-screening service \(404 NOT_FOUND: EVENT_NOT_FOUND/,
    );
    expect(line(result.stdout, 'key accepted')).toMatch(/^✓/);
    expect(line(result.stdout, 'clock')).toMatch(/^✓ clock\s+in step with the service/);
    expect(line(result.stdout, 'round trip')).toMatch(/\d+ ms \(median of 3\)/);
    expect(result.stdout + result.stderr).not.toContain(DEMO_KEY);
  });

  it('--json: every check with its status, ok true, sandbox true', async () => {
    const result = await runInProcess(['doctor', '--json'], env());
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      sandbox: boolean;
      checks: { check: string; status: string }[];
    };
    expect(report).toMatchObject({ ok: true, sandbox: true });
    expect(report.checks.map((c) => c.check)).toEqual(
      expect.arrayContaining([
        'profile',
        'service-url',
        'api-key',
        'service',
        'api-key-accepted',
        'clock',
        'round-trip',
      ]),
    );
    expect(report.checks.every((c) => c.status !== 'fail')).toBe(true);
  });

  it('names where each setting came from', async () => {
    const result = await runInProcess(
      ['doctor', '--timeout', '7'],
      env({ FRAUDCTL_BASE_URL: sb.url, FRAUDCTL_API_KEY: DEMO_KEY }),
    );
    expect(result.code, result.stdout).toBe(0);
    expect(line(result.stdout, 'service URL')).toContain(`${sb.url} (from FRAUDCTL_BASE_URL)`);
    expect(line(result.stdout, 'API key')).toMatch(/\*\*\*\*-key \(from FRAUDCTL_API_KEY\)/);
    expect(line(result.stdout, 'timeout')).toContain('7 s (from --timeout)');
    expect(line(result.stdout, 'connection')).toMatch(/^✓ connection\s+127\.0\.0\.1:\d+ in \d+ ms/);
    expect(line(result.stdout, 'TLS')).toMatch(/^– TLS\s+plain http:\/\/ on this machine/);
  });

  it('a key whose merchant is blocked: ✗ saying so with the status (403), and whom to ask, exit 1', async () => {
    const blocked = await startTestSandbox({
      configFile: writeConfig({
        merchants: [{ id: 'demo', name: 'Demo merchant', apiKey: DEMO_KEY, blocked: true }],
      }),
    });
    try {
      const result = await runInProcess(
        ['doctor'],
        env({ FRAUDCTL_BASE_URL: blocked.url, FRAUDCTL_API_KEY: DEMO_KEY }),
      );
      expect(result.code).toBe(1);
      expect(line(result.stdout, 'service')).toMatch(/^✓/);
      expect(line(result.stdout, 'key accepted')).toMatch(
        /^✗ key accepted\s+the key is known, but its merchant is blocked \(403 FORBIDDEN: MERCHANT_BLOCKED\)/,
      );
      expect(result.stdout).toContain("ask the service's operators why the merchant is blocked");
    } finally {
      await blocked.close();
    }
  });

  it('a refused key: ✗ with the status and what to fix (the variable it came from), exit 1', async () => {
    const result = await runInProcess(
      ['doctor'],
      env({ FRAUDCTL_BASE_URL: sb.url, FRAUDCTL_API_KEY: 'not-a-key-of-this-service' }),
    );
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'service')).toMatch(/^✓/);
    expect(line(result.stdout, 'key accepted')).toMatch(
      /^✗ key accepted\s+the service refused the key \(401 UNAUTHORIZED: API_KEY_INVALID\)/,
    );
    expect(result.stdout).toContain('unset FRAUDCTL_API_KEY');
    expect(result.stderr).toMatch(/^error: 1 of \d+ checks failed: key accepted$/m);
    expect(result.stdout + result.stderr).not.toContain('not-a-key-of-this-service');
  });

  it("a URL that is not the service (a static file server's HTML 404): ✗ service, exit 1", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not Found</body></html>');
    });
    const result = await runInProcess(['doctor'], env({ FRAUDCTL_BASE_URL: url, FRAUDCTL_API_KEY: 'k' }));
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'service')).toMatch(
      /^✗ service\s+this URL is not the fraud-screening service, or not its base path: GET \/event\/… answered 404 with an HTML page/,
    );
    expect(line(result.stdout, 'key accepted')).toMatch(/^– key accepted\s+unknown/);
  });

  it('a clock ten minutes off: ✗ clock with the skew', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json', date: new Date(Date.now() + 600_000).toUTCString() });
      res.end(JSON.stringify({ requestId: 'r-1', errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] }));
    });
    const result = await runInProcess(['doctor'], env({ FRAUDCTL_BASE_URL: url, FRAUDCTL_API_KEY: 'k' }));
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'clock')).toMatch(/^✗ clock\s+(599|600|601) s behind the service/);
    expect(line(result.stdout, 'service')).toMatch(/^✓/);
  });

  it('nothing listening: ✗ connection (refused), and the service checks are not attempted', async () => {
    // Port 1: privileged, and no test listens there. A port freed by closing a server could be
    // taken again at any moment by a listen(0) of the other worker or of a CLI under test.
    const result = await runInProcess(
      ['doctor'],
      env({ FRAUDCTL_BASE_URL: 'http://127.0.0.1:1', FRAUDCTL_API_KEY: 'k' }),
    );
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'connection')).toMatch(/^✗ connection\s+127\.0\.0\.1:\d+: ECONNREFUSED/);
    expect(line(result.stdout, 'service')).toBe('');
  });

  it('a host that does not resolve: ✗ DNS', async () => {
    const result = await runInProcess(
      ['doctor'],
      env({ FRAUDCTL_BASE_URL: 'https://fraud.does-not-exist.invalid', FRAUDCTL_API_KEY: 'k' }),
    );
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'DNS')).toMatch(/^✗ DNS\s+fraud\.does-not-exist\.invalid does not resolve/);
  });

  it('shows the proxy in use without its password', async () => {
    const result = await runInProcess(
      ['doctor', '--json'],
      env({
        FRAUDCTL_BASE_URL: 'http://fraud.does-not-exist.invalid',
        FRAUDCTL_API_KEY: 'k',
        HTTP_PROXY: 'http://user:s3cret@127.0.0.1:9',
      }),
    );
    const report = JSON.parse(result.stdout) as { checks: { check: string; detail: string }[] };
    const proxy = report.checks.find((c) => c.check === 'proxy')!;
    expect(proxy.detail).toContain('127.0.0.1:9');
    expect(proxy.detail).toContain('(HTTP_PROXY)');
    expect(result.stdout).not.toContain('s3cret');
  });

  describe('TLS', () => {
    let pki: TestPki;
    let good: TlsServer;
    let expired: TlsServer;
    beforeAll(async () => {
      pki = await makeTestPki(tmp.dir);
      [good, expired] = await Promise.all([startTlsServer(pki.localhost), startTlsServer(pki.expired)]);
    }, 30_000);
    afterAll(async () => {
      await Promise.all([good.close(), expired.close()]);
    });

    // As processes: Node reads NODE_EXTRA_CA_CERTS once, when a process starts.
    it('a private CA: ✗ TLS pointing at NODE_EXTRA_CA_CERTS; with it set, ✓ TLS naming the certificate and every check passes', async () => {
      const untrusted = await runCli(['doctor'], { env: env({ FRAUDCTL_BASE_URL: good.url, FRAUDCTL_API_KEY: 'k' }) });
      expect(untrusted.code).toBe(1);
      expect(line(untrusted.stdout, 'TLS')).toMatch(
        /^✗ TLS\s+the certificate \(for localhost, issued by fraudctl test CA, valid until .+\) is not signed by a CA this machine trusts/,
      );
      expect(untrusted.stdout).toContain('NODE_EXTRA_CA_CERTS is not set');
      const trusted = await runCli(['doctor'], {
        env: env({ FRAUDCTL_BASE_URL: good.url, FRAUDCTL_API_KEY: 'k', NODE_EXTRA_CA_CERTS: pki.caFile }),
      });
      expect(line(trusted.stdout, 'TLS')).toMatch(
        /^✓ TLS\s+TLSv1\.[23], certificate for localhost, issued by fraudctl test CA/,
      );
      expect(line(trusted.stdout, 'service')).toMatch(/^✓/);
    });

    it('an expired certificate: ✗ TLS with the date it expired', async () => {
      const result = await runCli(['doctor'], {
        env: env({ FRAUDCTL_BASE_URL: expired.url, FRAUDCTL_API_KEY: 'k', NODE_EXTRA_CA_CERTS: pki.caFile }),
      });
      expect(result.code).toBe(1);
      expect(line(result.stdout, 'TLS')).toMatch(/^✗ TLS\s+the certificate expired on /);
    });
  });
});

/*
 * A config directory others can change (they could put a config of theirs in place, and
 * the key goes to their URL) and a config file others can read are ✗, with the chmod that fixes
 * each, which works as written (a path with a space in it included).
 */
describe('doctor and the permissions of the config', () => {
  it('a 0777 config directory and a 0644 config file: ✗ each with its chmod, exit 1; the chmods fix them', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const configHome = join(tmp.dir, 'my config');
    const dir = join(configHome, 'fraudctl');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{"profiles": {}}');
    chmodSync(dir, 0o777);
    chmodSync(join(dir, 'config.json'), 0o644);
    const result = await runInProcess(['doctor'], env({ XDG_CONFIG_HOME: configHome }));
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'config directory')).toBe(
      `✗ config directory  ${dir} can be changed by any user (mode 0777), who could replace the config and send the API key elsewhere`,
    );
    expect(line(result.stdout, 'config file')).toMatch(
      /^✗ config file\s+\/.* can be read by other users \(mode 0644\) and may hold API keys$/,
    );
    const fixes = result.stdout
      .split('\n')
      .filter((l) => l.includes('→ chmod'))
      .map((l) => l.slice(l.indexOf('→ ') + 2));
    expect(fixes).toEqual([`chmod 700 '${dir}'`, `chmod 600 '${join(dir, 'config.json')}'`]);
    expect(result.stderr).toMatch(/^error: 2 of \d+ checks failed: config directory, config file$/m);
    for (const fix of fixes) execFileSync('sh', ['-c', fix]);
    const after = await runInProcess(['doctor'], env({ XDG_CONFIG_HOME: configHome }));
    expect(after.code, after.stdout).toBe(0);
    expect(line(after.stdout, 'config directory')).toBe(`✓ config directory  ${dir} (mode 700)`);
    expect(line(after.stdout, 'config file')).toMatch(/^✓ config file\s+.*config\.json \(mode 600\)$/);
  });

  it('a config fraudctl wrote: no ✗ for its permissions on this platform; on Windows they are said not to be checked', async () => {
    const home = { XDG_CONFIG_HOME: join(tmp.dir, 'written') };
    expect((await runInProcess(['config', 'set', 'timeout', '12'], env(home))).code).toBe(0);
    const result = await runInProcess(['doctor'], env(home));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(line(result.stdout, 'timeout')).toContain('12 s (from the config file)');
    if (process.platform === 'win32') {
      // Node reports 0666 for every writable file there: judged as a mode, every config file was a ✗.
      expect(line(result.stdout, 'config directory')).toMatch(
        /^– config directory\s+.*fraudctl.* \(permissions not checked on Windows, where file modes do not apply: in the user's profile, the ACL it inherits keeps other users out\)$/,
      );
      expect(line(result.stdout, 'config file')).toMatch(
        /^– config file\s+.*config\.json \(permissions not checked on Windows, where file modes do not apply/,
      );
      expect(result.stdout).not.toMatch(/mode \d+/);
    } else {
      expect(line(result.stdout, 'config directory')).toMatch(/^✓ config directory\s+.* \(mode 700\)$/);
      expect(line(result.stdout, 'config file')).toMatch(/^✓ config file\s+.*config\.json \(mode 600\)$/);
    }
  });

  it('a group-writable directory is ✗ too; a directory not made yet is only noted', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const configHome = join(tmp.dir, 'group');
    mkdirSync(join(configHome, 'fraudctl'), { recursive: true });
    chmodSync(join(configHome, 'fraudctl'), 0o770);
    const result = await runInProcess(['doctor'], env({ XDG_CONFIG_HOME: configHome }));
    expect(line(result.stdout, 'config directory')).toMatch(
      /^✗ config directory\s+.* can be changed by other users of its group \(mode 0770\)/,
    );
    const none = await runInProcess(['doctor', '--json'], env({ XDG_CONFIG_HOME: join(tmp.dir, 'nothing-here') }));
    const checks = (JSON.parse(none.stdout) as { checks: { check: string; status: string }[] }).checks;
    expect(checks.filter((c) => c.check.startsWith('config-'))).toEqual([
      expect.objectContaining({ check: 'config-directory', status: 'info' }),
      expect.objectContaining({ check: 'config-file', status: 'info' }),
    ]);
  });
});
