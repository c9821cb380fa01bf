import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLines } from '../support/batch-events.js';
import { cliEnv } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { DEMO_KEY, startTestSandbox, tempDir, type TestSandbox } from '../support/sandbox.js';
import { useServer } from '../support/listen.js';

/*
 * A hint follows from where the failing setting came from (src/profiles/setting-hints.ts): a
 * key refused while FRAUDCTL_API_KEY is set is fixed there, not by logging in again (the
 * variable would still win); a wrong URL is fixed where it was given: --base-url,
 * FRAUDCTL_BASE_URL or the profile in the config file. The same for doctor, a batch and show.
 */

const tmp = tempDir('fraudctl-hints-');
let sb: TestSandbox;
const html = useServer((_req, res) => {
  res.writeHead(404, { 'content-type': 'text/html' });
  res.end('<html><body>Not Found</body></html>');
});

/** A config file with profile "local" (the sandbox, `key`) active; the environment names nothing else. */
let homes = 0;
function env(key: string, extra: Record<string, string> = {}, baseUrl = sb.url): NodeJS.ProcessEnv {
  const home = join(tmp.dir, `home-${++homes}`);
  mkdirSync(join(home, 'config', 'fraudctl'), { recursive: true });
  writeFileSync(
    join(home, 'config', 'fraudctl', 'config.json'),
    JSON.stringify({ activeProfile: 'local', profiles: { local: { baseUrl, apiKey: key } } }),
    { mode: 0o600 },
  );
  return cliEnv({ HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), ...extra });
}
const line = (stdout: string, title: string) =>
  stdout.split('\n').find((l) => new RegExp(`^. ${title}\\s{2,}`).test(l)) ?? '';
/** The hint printed under the check titled `title`. */
const hintOf = (stdout: string, title: string) => {
  const lines = stdout.split('\n');
  const at = lines.indexOf(line(stdout, title));
  return /^\s+→ (.*)$/.exec(lines[at + 1] ?? '')?.[1] ?? '';
};

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
  await tmp.remove();
});

describe('a refused key: the hint follows where the key came from', () => {
  it('doctor, key from FRAUDCTL_API_KEY (the profile\'s is good): fix or unset the variable, not "log in again"', async () => {
    const result = await runInProcess(['doctor'], env(DEMO_KEY, { FRAUDCTL_API_KEY: 'wrong-key-1234' }));
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'API key')).toMatch(/\(from FRAUDCTL_API_KEY\)/);
    expect(line(result.stdout, 'key accepted')).toMatch(/^✗ key accepted\s+the service refused the key \(401/);
    expect(hintOf(result.stdout, 'key accepted')).toBe(
      "the key comes from FRAUDCTL_API_KEY, which wins over the profile's: fix its value, or use the key stored by fraudctl login: unset FRAUDCTL_API_KEY",
    );
    expect(result.stdout).not.toContain('fraudctl login --profile');
    expect(result.stdout + result.stderr).not.toContain('wrong-key-1234');
  });

  it('doctor, key from the config file: log in again to that profile', async () => {
    const result = await runInProcess(['doctor'], env('stale-key-5678'));
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'API key')).toMatch(/\(from the config file\)/);
    expect(hintOf(result.stdout, 'key accepted')).toBe(
      'log in again: fraudctl login --profile local (or set FRAUDCTL_API_KEY)',
    );
  });

  it('a batch refused with FRAUDCTL_API_KEY set: stops, and says to fix or unset the variable, not to set it', async () => {
    const input = join(tmp.dir, 'batch.jsonl');
    writeFileSync(input, `${makeLines('hint', 3).join('\n')}\n`);
    const result = await runInProcess(
      ['submit', input, '--out', join(tmp.dir, 'out.jsonl')],
      env(DEMO_KEY, { FRAUDCTL_API_KEY: 'wrong-key-1234' }),
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: the service did not accept the API key/m);
    expect(result.stderr).toContain('unset FRAUDCTL_API_KEY');
    expect(result.stderr).not.toContain('or set FRAUDCTL_API_KEY');
  });

  it('show, key from the config file: log in again (the variable may be offered, it is not set)', async () => {
    const result = await runInProcess(['show', 'ord-1'], env('stale-key-5678'));
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('log in again: fraudctl login --profile local (or set FRAUDCTL_API_KEY)');
  });
});

describe('a wrong URL: the hint names where the URL came from', () => {
  it.each([
    // The key from FRAUDCTL_API_KEY: the profile's stored key is never sent to another URL than its own.
    [
      '--base-url',
      (url: string) => ({ args: ['--base-url', url], extra: { FRAUDCTL_API_KEY: DEMO_KEY } }),
      'check the path of --base-url',
    ],
    [
      'FRAUDCTL_BASE_URL',
      (url: string) => ({ args: [], extra: { FRAUDCTL_BASE_URL: url, FRAUDCTL_API_KEY: DEMO_KEY } }),
      "check the path of FRAUDCTL_BASE_URL, which wins over the profile's URL (fix it, or remove it: unset FRAUDCTL_BASE_URL)",
    ],
  ])('doctor, URL from %s that is not the service', async (_from, given, hint) => {
    const { args, extra } = given(html.url);
    const result = await runInProcess(['doctor', ...args], env(DEMO_KEY, extra));
    expect(result.code).toBe(1);
    expect(hintOf(result.stdout, 'service')).toBe(hint);
  });

  it("show, URL from the config file that is not the service: the profile's URL, with the commands that show and change it", async () => {
    const result = await runInProcess(['show', 'ord-1'], env(DEMO_KEY, {}, html.url));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "check the profile's URL (fraudctl config get base-url --profile local; change it with fraudctl config set base-url URL --profile local): it should be the service's base address",
    );
  });
});
