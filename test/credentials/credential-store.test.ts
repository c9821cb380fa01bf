import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, runCli, type CliResult } from '../support/cli.js';
import { startTestSandbox, tempDir, writeConfig, type TestSandbox } from '../support/sandbox.js';
import { describeNeeding, missing } from '../support/prerequisites.js';
import { startSecretService, type SecretService } from '../support/secret-service.mjs';
import { REVIEW_EXAMPLE } from '../support/event-fixtures.js';

/*
 * API keys in the operating system's credential store, against a real Secret Service:
 * GNOME Keyring on a private D-Bus session (test/support/secret-service.mjs), never the user's.
 * Processes get that bus's address (a desktop session), or none (an SSH login, a headless
 * server); HOME and the XDG directories are the test's own, and are searched for the key.
 */

/** A merchant key of the test's own, so that finding it in a file means fraudctl put it there. */
const KEY = 'kr-merchant-key-5b1e90c3d7a2';
const tmp = tempDir('fraudctl-keyring-');
let ss: SecretService;
let sb: TestSandbox;
let eventId: string;

/** A private GNOME Keyring on its own D-Bus (and an X display for its prompt): programs from outside npm. */
const PROGRAMS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'] as const;

beforeAll(async () => {
  // Its tests are skipped, naming the program, where one cannot run (describeNeeding).
  if (missing(...PROGRAMS)) return;
  [ss, sb] = await Promise.all([
    startSecretService(tmp.dir),
    startTestSandbox({ configFile: writeConfig({ merchants: [{ id: 'shop', apiKey: KEY }] }) }),
  ]);
  const posted = await sb.call('POST', '/event', { key: KEY, body: REVIEW_EXAMPLE });
  expect(posted.status).toBe(201);
  eventId = (posted.json as { id: string }).id;
});
afterAll(async () => {
  await Promise.all([ss?.stop(), sb?.close()]);
  await tmp.remove();
});

/** A desktop session: the private bus. */
const desktop = (extra: Record<string, string> = {}) => cliEnv({ ...ss.env, ...extra });
/** An SSH login on the same machine: the same home, no session bus. */
const ssh = (extra: Record<string, string> = {}) => cliEnv({ ...ss.home, ...extra });
const run = (args: string[], env: NodeJS.ProcessEnv, input?: string) =>
  runCli(args, { env, ...(input !== undefined ? { input } : {}) });
const configFile = () => join(ss.home.XDG_CONFIG_HOME, 'fraudctl', 'config.json');
const profileInFile = (name: string) =>
  (JSON.parse(readFileSync(configFile(), 'utf8')) as { profiles: Record<string, unknown> }).profiles[name];
const lookup = (account: string) => ss.secretTool(['lookup', 'service', 'fraudctl', 'username', account]);
const account = (profile: string) => `${profile}@${sb.url}`;
/** A profile whose key is in the store, as login leaves it (made without login, which the first test runs). */
async function storedProfile(profile: string): Promise<void> {
  expect(
    (
      await ss.secretTool(
        ['store', '--label', `fraudctl ${profile}`, 'service', 'fraudctl', 'username', account(profile)],
        KEY,
      )
    ).code,
  ).toBe(0);
  mkdirSync(join(configFile(), '..'), { recursive: true, mode: 0o700 });
  let config: { profiles: Record<string, unknown> } = { profiles: {} };
  try {
    config = JSON.parse(readFileSync(configFile(), 'utf8')) as typeof config;
  } catch {
    // No file yet.
  }
  config.profiles[profile] = { baseUrl: sb.url, credentialStore: { service: 'fraudctl', account: account(profile) } };
  writeFileSync(configFile(), JSON.stringify(config), { mode: 0o600 });
}
/** NODE_OPTIONS for a process that says, as it exits, whether the store's native library was loaded into it. */
const probeLibrary = () => {
  const probe = join(tmp.dir, 'loaded-keyring.cjs');
  writeFileSync(
    probe,
    `process.on('exit', () => { if (require('node:fs').readFileSync('/proc/self/maps', 'utf8').includes('keyring.linux')) process.stderr.write('KEYRING LIBRARY LOADED\\n'); });\n`,
  );
  return { NODE_OPTIONS: `--require ${probe}` };
};

/** Every file under the test's HOME (XDG directories and the keyring's own files included) that holds the key. */
function filesHoldingKey(): string[] {
  return readdirSync(tmp.dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => readFileSync(file).includes(KEY));
}

/** An error as main prints it: the message line and the hint line, nothing more (no stack). */
function errorLines(result: CliResult): string[] {
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(2);
  expect(lines[0]).toMatch(/^error: /);
  return lines;
}

describeNeeding([...PROGRAMS], 'API keys in the credential store', () => {
  it('login keeps the key in the store and not in any file; commands read it from there; logout removes it', async () => {
    const login = await run(['login', '--profile', 'prod', '--base-url', sb.url], desktop(), `${KEY}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('saved in the Secret Service keyring');
    expect(login.stderr).not.toContain('no credential store is usable');
    expect(profileInFile('prod')).toEqual({
      baseUrl: sb.url,
      credentialStore: { service: 'fraudctl', account: account('prod') },
    });
    expect((await lookup(account('prod'))).stdout).toBe(KEY);
    expect(filesHoldingKey()).toEqual([]);

    const show = await run(['show', eventId, '--json', '--profile', 'prod', '--debug'], desktop(probeLibrary()));
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ id: eventId });
    expect(show.stderr).toContain('"x-client-api-key":"[redacted]"');
    expect(show.stderr).toContain('KEYRING LIBRARY LOADED');
    expect(show.stdout + show.stderr).not.toContain(KEY);

    const list = await run(['config', 'list', '--json'], desktop());
    expect(JSON.parse(list.stdout)).toContainEqual(
      expect.objectContaining({ name: 'prod', apiKey: null, keyStorage: 'credential-store' }),
    );
    const doctor = await run(['doctor', '--profile', 'prod', '--json'], desktop());
    const keyCheck = (
      JSON.parse(doctor.stdout) as { checks: { check: string; status: string; detail: string }[] }
    ).checks.find((c) => c.check === 'api-key');
    expect(keyCheck).toEqual(
      expect.objectContaining({ status: 'pass', detail: `****${KEY.slice(-4)} (from the Secret Service keyring)` }),
    );
    expect(doctor.stdout).not.toContain(KEY);

    const logout = await run(['logout', '--profile', 'prod'], desktop());
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain(
      'Logged out: profile "prod" has no key any more (removed from the Secret Service keyring',
    );
    expect(await lookup(account('prod'))).toMatchObject({ code: 1, stdout: '' });
    expect(profileInFile('prod')).toEqual({ baseUrl: sb.url });
    expect(filesHoldingKey()).toEqual([]);
    const after = await run(['show', eventId, '--profile', 'prod'], desktop());
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('no API key for profile "prod"');
  });

  it('login again at another URL: the entry under the new URL holds the key, the one under the old URL is gone, the file names the new one', async () => {
    await storedProfile('moving');
    const other = sb.url.replace('127.0.0.1', 'localhost');
    expect(other).not.toBe(sb.url);
    const login = await run(['login', '--profile', 'moving', '--base-url', other], desktop(), KEY);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`Logged in: profile "moving" (${sb.url} → ${other})`);
    expect(login.stderr).not.toContain('warning');
    expect(profileInFile('moving')).toEqual({
      baseUrl: other,
      credentialStore: { service: 'fraudctl', account: `moving@${other}` },
    });
    expect((await lookup(`moving@${other}`)).stdout).toBe(KEY);
    expect(await lookup(account('moving'))).toMatchObject({ code: 1, stdout: '' });
  });

  it('a session that cannot reach the store gets one clear error, exit 3, and no other key; FRAUDCTL_API_KEY still wins without loading the store', async () => {
    await storedProfile('away');

    const [message, hint] = errorLines(await run(['show', eventId, '--profile', 'away'], ssh()));
    expect(message).toBe(
      `error: cannot read the API key of profile "away" from the Secret Service keyring (entry "fraudctl", account "${account('away')}"): this session has no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), as in an SSH login, a cron job or a container`,
    );
    expect(hint).toContain('set FRAUDCTL_API_KEY for this session');

    // The variable wins, and the store's library is not even loaded (the first test sees the probe fire when it is).
    const fromVariable = await run(
      ['show', eventId, '--json', '--profile', 'away'],
      ssh({ FRAUDCTL_API_KEY: KEY, ...probeLibrary() }),
    );
    expect(fromVariable.code, fromVariable.stderr).toBe(0);
    expect(fromVariable.stderr).toBe('');
  });

  it("an entry removed behind fraudctl's back: the clear error, exit 3", async () => {
    await storedProfile('vault');
    expect((await ss.secretTool(['clear', 'service', 'fraudctl', 'username', account('vault')])).code).toBe(0);
    const removed = await run(['show', eventId, '--profile', 'vault'], desktop());
    expect(removed.code).toBe(3);
    expect(errorLines(removed)).toEqual([
      `error: the API key of profile "vault" is not in the Secret Service keyring (entry "fraudctl", account "${account('vault')}"): the entry was removed`,
      'store it again: fraudctl login --profile vault (or set FRAUDCTL_API_KEY)',
    ]);
  });

  it('without a session bus login keeps the key in the file (0600) and says so; login where the store is usable moves it; --insecure-storage moves it back', async () => {
    const headless = await run(['login', '--profile', 'filed', '--base-url', sb.url], ssh(), KEY);
    expect(headless.code, headless.stderr).toBe(0);
    expect(headless.stderr).toContain(
      `note: no credential store is usable here (this session has no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), as in an SSH login, a cron job or a container): the key is kept in ${configFile()} (mode 0600) instead\n`,
    );
    expect(profileInFile('filed')).toEqual({ baseUrl: sb.url, apiKey: KEY });
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    const list = await run(['config', 'list'], ssh());
    expect(list.stdout).toMatch(new RegExp(`\\*\\*\\*\\*${KEY.slice(-4)}.*\\n.*in the config file`));

    const moved = await run(['login', '--profile', 'filed'], desktop(), KEY);
    expect(moved.code, moved.stderr).toBe(0);
    expect(profileInFile('filed')).toEqual({
      baseUrl: sb.url,
      credentialStore: { service: 'fraudctl', account: account('filed') },
    });
    expect((await lookup(account('filed'))).stdout).toBe(KEY);

    // From a session that cannot reach the store, the key cannot leave it: nothing changes.
    const refused = await run(['login', '--profile', 'filed', '--insecure-storage'], ssh(), KEY);
    expect(refused.code).toBe(3);
    expect(errorLines(refused)[0]).toContain('nothing was saved');
    expect(profileInFile('filed')).toEqual({
      baseUrl: sb.url,
      credentialStore: { service: 'fraudctl', account: account('filed') },
    });

    const insecure = await run(['login', '--profile', 'filed', '--insecure-storage'], desktop(), KEY);
    expect(insecure.code, insecure.stderr).toBe(0);
    expect(insecure.stderr).toContain('as --insecure-storage asks');
    expect(insecure.stderr).not.toContain('no credential store is usable');
    expect(profileInFile('filed')).toEqual({ baseUrl: sb.url, apiKey: KEY });
    expect(await lookup(account('filed'))).toMatchObject({ code: 1, stdout: '' });
  });

  // Last: the keyring stays locked (it cannot be unlocked again without a prompt).
  it('a locked keyring: the clear error, exit 3, with the way out', async () => {
    await storedProfile('locked');
    expect((await ss.lock()).code).toBe(0);
    const locked = await run(['show', eventId, '--profile', 'locked'], desktop());
    expect(locked.code).toBe(3);
    const [message, hint] = errorLines(locked);
    expect(message).toMatch(
      /cannot read the API key of profile "locked" from the Secret Service keyring .*: the keyring is locked, and could not be unlocked from here$/,
    );
    expect(hint).toBe(
      'unlock the keyring (log in to the desktop, or open its keyring manager), or set FRAUDCTL_API_KEY for this session',
    );
  });
});
