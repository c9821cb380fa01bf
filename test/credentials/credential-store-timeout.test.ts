import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, runCli, type CliResult } from '../support/cli.js';
import { startTestSandbox, tempDir, writeConfig, type TestSandbox } from '../support/sandbox.js';
import { describeNeeding, missing } from '../support/prerequisites.js';
import { startSecretService, type SecretService } from '../support/secret-service.mjs';
import { startXvfb, type VirtualDisplay } from '../support/xvfb.js';
import { REVIEW_EXAMPLE } from '../support/event-fixtures.js';

/*
 * A credential store that does not answer (credential-store.ts: every call has a time limit,
 * FRAUDCTL_KEYRING_TIMEOUT), against a real GNOME Keyring on a private D-Bus session: stopped
 * with SIGSTOP (a keyring that hangs), and locked with an X display of the test's own where its
 * unlock prompt opens and nobody answers it. Commands end with one error, exit 3, and a login
 * or logout leaves the config file as it was.
 */

const KEY = 'kr-timeout-key-8d41c7e0b9a5';
const tmp = tempDir('fraudctl-keyring-timeout-');
let xvfb: VirtualDisplay;
let ss: SecretService;
let sb: TestSandbox;
let eventId: string;

/** A private GNOME Keyring on its own D-Bus (and an X display for its prompt): programs from outside npm. */
const PROGRAMS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool', 'Xvfb'] as const;

beforeAll(async () => {
  // Its tests are skipped, naming the program, where one cannot run (describeNeeding).
  if (missing(...PROGRAMS)) return;
  xvfb = await startXvfb();
  [ss, sb] = await Promise.all([
    startSecretService(tmp.dir, { display: xvfb.display }),
    startTestSandbox({ configFile: writeConfig({ merchants: [{ id: 'shop', apiKey: KEY }] }) }),
  ]);
  const posted = await sb.call('POST', '/event', { key: KEY, body: REVIEW_EXAMPLE });
  expect(posted.status).toBe(201);
  eventId = (posted.json as { id: string }).id;
});
afterAll(async () => {
  await Promise.all([ss?.stop(), sb?.close()]);
  await xvfb?.stop();
  await tmp.remove();
});

const configFile = () => join(ss.home.XDG_CONFIG_HOME, 'fraudctl', 'config.json');
const account = (profile: string) => `${profile}@${sb.url}`;
const desktop = (seconds: number) => cliEnv({ ...ss.env, FRAUDCTL_KEYRING_TIMEOUT: String(seconds) });

/** Profiles whose key is in the store, as login leaves them. */
async function storedProfiles(...profiles: string[]): Promise<void> {
  const config: { profiles: Record<string, unknown> } = { profiles: {} };
  for (const profile of profiles) {
    expect(
      (
        await ss.secretTool(
          ['store', '--label', `fraudctl ${profile}`, 'service', 'fraudctl', 'username', account(profile)],
          KEY,
        )
      ).code,
    ).toBe(0);
    config.profiles[profile] = { baseUrl: sb.url, credentialStore: { service: 'fraudctl', account: account(profile) } };
  }
  mkdirSync(join(configFile(), '..'), { recursive: true, mode: 0o700 });
  writeFileSync(configFile(), JSON.stringify(config), { mode: 0o600 });
}

/** A run, and how long it took from spawn to exit. Killed after 15 s, so that a hang fails the test instead of stalling the suite. */
async function timed(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliResult & { ms: number }> {
  const started = performance.now();
  const result = await runCli(args, { env, timeoutMs: 15_000, ...(input !== undefined ? { input } : {}) });
  return { ...result, ms: performance.now() - started };
}

/** The error as main prints it: two lines (message, hint), no stack. */
function errorLines(result: CliResult): string[] {
  expect(result.signal, `ended by ${result.signal} (a hang is killed at 15 s): ${result.stderr}`).toBeNull();
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(2);
  return lines;
}

describeNeeding([...PROGRAMS], 'a credential store that does not answer', () => {
  it('a keyring that hangs (SIGSTOP): show ends after the time limit with one error, exit 3; login and logout leave the config file as it was, and the hint works', async () => {
    await storedProfiles('hung', 'leaving');
    const before = readFileSync(configFile(), 'utf8');
    const pid = await ss.keyringPid();
    process.kill(pid, 'SIGSTOP');
    let show, login, leave, logout;
    try {
      [show, login, leave, logout] = await Promise.all([
        timed(['show', eventId, '--profile', 'hung'], desktop(2)),
        // A new profile: with the store unable to answer, the key must not land in the file instead.
        timed(['login', '--profile', 'fresh', '--base-url', sb.url], desktop(2), KEY),
        // Out of the store into the file: the entry cannot be removed, so nothing changes.
        timed(['login', '--profile', 'leaving', '--insecure-storage'], desktop(2), KEY),
        timed(['logout', '--profile', 'hung'], desktop(2)),
      ]);
    } finally {
      process.kill(pid, 'SIGCONT');
    }

    expect(show.code, show.stderr).toBe(3);
    expect(errorLines(show)).toEqual([
      `error: cannot read the API key of profile "hung" from the Secret Service keyring (entry "fraudctl", account "${account('hung')}"): it did not answer within 2 s (an unlock prompt left unanswered, or a keyring that hangs)`,
      'unlock the keyring (answer its prompt on the desktop, or open its keyring manager) and run the command again, or set FRAUDCTL_API_KEY for this session',
    ]);
    // The library gives each D-Bus call 2 s: the 2 s limit, one such wait past it at most, and the process's own start.
    expect(show.ms).toBeLessThan(2_000 + 2_000 + 3_000);

    expect(login.code, login.stderr).toBe(3);
    const [loginMessage, loginHint] = errorLines(login);
    expect(loginMessage).toBe(
      'error: nothing was saved: the key could not be stored in the Secret Service keyring: it did not answer within 2 s (an unlock prompt left unanswered, or a keyring that hangs)',
    );
    expect(loginHint).toBe(
      `unlock the keyring and run this login again, or keep the key in the config file: fraudctl login --profile fresh --base-url ${sb.url} --insecure-storage`,
    );

    expect(leave.code, leave.stderr).toBe(3);
    expect(errorLines(leave)[0]).toBe(
      `error: nothing was saved: profile "leaving" keeps its key in the credential store (account "${account('leaving')}"), which cannot be changed from here, and a key is kept in one place only: it did not answer within 2 s (an unlock prompt left unanswered, or a keyring that hangs)`,
    );
    expect(logout.code, logout.stderr).toBe(3);
    expect(errorLines(logout)[0]).toBe(
      `error: cannot remove the API key of profile "hung" from the credential store (account "${account('hung')}"): it did not answer within 2 s (an unlock prompt left unanswered, or a keyring that hangs); nothing was changed`,
    );
    expect(readFileSync(configFile(), 'utf8')).toBe(before);

    // The hint, run as printed while the keyring still hangs: the key goes to the file (the store is not touched).
    process.kill(pid, 'SIGSTOP');
    let hinted;
    try {
      hinted = await timed(loginHint!.split(': ').at(-1)!.split(' ').slice(1), desktop(2), KEY);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(hinted.code, hinted.stderr).toBe(0);
    expect(
      (JSON.parse(readFileSync(configFile(), 'utf8')) as { profiles: Record<string, unknown> }).profiles.fresh,
    ).toEqual({ baseUrl: sb.url, apiKey: KEY });
  });

  // Last: the keyring stays locked, and its prompt open.
  it('an unlock prompt nobody answers: show ends at the time limit with one error, exit 3, and login leaves the config file as it was', async () => {
    await storedProfiles('prompted');
    const before = readFileSync(configFile(), 'utf8');
    expect((await ss.lock()).code).toBe(0);

    const [show, login] = await Promise.all([
      timed(['show', eventId, '--profile', 'prompted'], desktop(1)),
      timed(['login', '--profile', 'other', '--base-url', sb.url], desktop(1), KEY),
    ]);
    // What kept them waiting: the keyring asked for its prompt to be shown on the display.
    expect(await ss.hasOwner('org.gnome.keyring.SystemPrompter')).toBe(true);

    // The call given up on cannot be stopped, and would keep the process alive: it ends by
    // process.execve with its own exit code (Node >= 22.15), or by SIGTERM where there is none.
    const ended =
      typeof (process as { execve?: unknown }).execve === 'function'
        ? { code: 3, signal: null }
        : { code: null, signal: 'SIGTERM' };
    expect({ code: show.code, signal: show.signal }, show.stderr).toEqual(ended);
    expect(show.stderr.trimEnd().split('\n')).toEqual([
      `error: cannot read the API key of profile "prompted" from the Secret Service keyring (entry "fraudctl", account "${account('prompted')}"): it did not answer within 1 s (an unlock prompt left unanswered, or a keyring that hangs)`,
      'unlock the keyring (answer its prompt on the desktop, or open its keyring manager) and run the command again, or set FRAUDCTL_API_KEY for this session',
    ]);
    expect(show.ms).toBeLessThan(1_000 + 4_000);

    expect({ code: login.code, signal: login.signal }, login.stderr).toEqual(ended);
    expect(login.stderr).toContain(
      'error: nothing was saved: the key could not be stored in the Secret Service keyring: it did not answer within 1 s',
    );
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
  });
});
