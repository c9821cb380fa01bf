import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, type CliResult } from '../support/cli.js';
import { useCli } from '../support/cli-against-sandbox.js';
import { runInProcess } from '../support/in-process-cli.js';
import { tempDir, writeConfig } from '../support/sandbox.js';
import { onTerminal } from '../support/script-terminal.js';
import { missing, need } from '../support/prerequisites.js';
import { startSecretService, type SecretService } from '../support/secret-service.mjs';
import { useServer } from '../support/listen.js';
import { reviewExample } from '../support/event-fixtures.js';

/*
 * "the wrong service" (points 2-4), as a team works: a staging and a prod service side
 * by side (two real sandboxes, each with its own merchant key and database), a profile for each
 * made by `fraudctl login`, and variables exported in the shell.
 *  2. a variable of the shell that wins over what a config command just changed is named, with
 *     the command that unsets it (run here as written);
 *  3. a stored key goes only to its profile's URL: another URL from FRAUDCTL_BASE_URL or
 *     --base-url is refused before any request (exit 2); `config set base-url` moves the key
 *     only when asked (a terminal) or told (--yes);
 *  4. login takes a profile's URL only from --base-url, never from FRAUDCTL_BASE_URL, and says a
 *     move as old → new.
 */

const STAGING_KEY = 'staging-merchant-key-4c1d8e2f';
const PROD_KEY = 'prod-merchant-key-9a7b3e51';
const tmp = tempDir('fraudctl-right-service-');
const { staging, prod } = useCli({
  staging: { configFile: writeConfig({ merchants: [{ id: 'staging', apiKey: STAGING_KEY }] }) },
  prod: { configFile: writeConfig({ merchants: [{ id: 'prod', apiKey: PROD_KEY }] }) },
}).sandboxes;
/** For the one test with the key in the OS store: a private GNOME Keyring (skipped, named, where it cannot run). */
const KEYRING = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'] as const;
let ss: SecretService | undefined;
let stagingEvent: string;
let prodEvent: string;

/** A stand-in "staging" that records every request (the sandbox keeps no log of who called it). */
const recorded: IncomingHttpHeaders[] = [];
const recorder = useServer((req, res) => {
  recorded.push(req.headers);
  res.writeHead(401, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ errorType: 'UNAUTHORIZED', errorCodes: ['INVALID_API_KEY'], requestId: 'r-1' }));
});

beforeAll(async () => {
  ss = missing(...KEYRING) ? undefined : await startSecretService(join(tmp.dir, 'keyring'));
  const [s, p] = await Promise.all([
    staging.call('POST', '/event', { key: STAGING_KEY, body: reviewExample('stg-1') }),
    prod.call('POST', '/event', { key: PROD_KEY, body: reviewExample('prd-1') }),
  ]);
  expect([s.status, p.status]).toEqual([201, 201]);
  stagingEvent = (s.json as { id: string }).id;
  prodEvent = (p.json as { id: string }).id;
});
afterAll(async () => {
  await ss?.stop();
  await tmp.remove();
});

/**
 * A config directory of its own (no credential store: no session bus), and a way to run fraudctl
 * in it: in-process (main, its streams and exit code), or as a process for a login that may reach
 * for the OS credential store (its library finds the session bus in the environment of the
 * process it runs in, not in the run's).
 */
let homes = 0;
function newHome() {
  const dir = join(tmp.dir, `home-${++homes}`);
  mkdirSync(dir, { recursive: true });
  const base = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') };
  const env = (extra: Record<string, string> = {}) => cliEnv({ ...base, ...extra });
  return {
    env,
    run: (args: string[], extra: Record<string, string> = {}, input?: string) =>
      runInProcess(args, env(extra), input !== undefined ? { input } : {}),
    runProcess: (args: string[], extra: Record<string, string> = {}, input?: string) =>
      runCli(args, { env: env(extra), ...(input !== undefined ? { input } : {}) }),
    profile: (name: string) =>
      (
        JSON.parse(readFileSync(join(dir, 'config', 'fraudctl', 'config.json'), 'utf8')) as {
          profiles: Record<string, { baseUrl?: string; apiKey?: string }>;
        }
      ).profiles[name],
  };
}
type Home = ReturnType<typeof newHome>;

/**
 * A home with profiles "staging" and "prod", each logged in to its own sandbox with its own key,
 * kept in the config file (where a login without a credential store keeps it too).
 */
async function twoProfiles(): Promise<Home> {
  const home = newHome();
  for (const [name, sb, key] of [
    ['staging', staging, STAGING_KEY],
    ['prod', prod, PROD_KEY],
  ] as const) {
    const login = await home.run(['login', '--profile', name, '--base-url', sb.url, '--insecure-storage'], {}, key);
    expect(login.code, login.stderr).toBe(0);
  }
  return home;
}

/** The command after "run: " in a warning line. */
const commandAfterRun = (text: string) => /run: (.+)$/m.exec(text)?.[1] ?? '';

/** `sh -c '<hint>; fraudctl …'`: a hint run in a shell exactly as it was printed, then a command in that shell. */
function inShell(hint: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const fraudctl = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${hint} && exec ${fraudctl}`], { env });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end();
  });
}

const keysIn = (r: { stdout: string; stderr: string }) =>
  [STAGING_KEY, PROD_KEY].filter((k) => (r.stdout + r.stderr).includes(k));

describe('2. a variable of the shell that wins over what a config command just changed is named', () => {
  it('config use staging while FRAUDCTL_PROFILE=prod: says the variable wins, and its unset command makes staging the one used', async () => {
    const home = await twoProfiles();
    const shell = { FRAUDCTL_PROFILE: 'prod' };
    const use = await home.run(['config', 'use', 'staging'], shell);
    expect(use.code, use.stderr).toBe(0);
    expect(use.stderr).toContain('profile "staging" is now the active one');
    expect(use.stderr).toContain(
      'warning: FRAUDCTL_PROFILE is set to "prod" in this shell and wins over the active profile: commands here use profile "prod", not "staging"',
    );
    const hint = commandAfterRun(use.stderr);
    expect(hint).toBe('unset FRAUDCTL_PROFILE');

    // Still prod while the variable is set …
    expect((await home.run(['show', stagingEvent, '--json'], shell)).code).toBe(4);
    // … and staging once the printed command has run in that shell.
    const after = await inShell(hint, ['show', stagingEvent, '--json'], home.env(shell));
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ id: stagingEvent });
  });

  it('config use with FRAUDCTL_BASE_URL and FRAUDCTL_API_KEY exported: names both, and one command unsets both; nothing to say without them', async () => {
    const home = await twoProfiles();
    const use = await home.run(['config', 'use', 'staging'], {
      FRAUDCTL_BASE_URL: prod.url,
      FRAUDCTL_API_KEY: PROD_KEY,
    });
    expect(use.code, use.stderr).toBe(0);
    expect(use.stderr).toContain(
      `FRAUDCTL_BASE_URL is set to "${prod.url}" in this shell and wins over the profile's URL: commands here go there`,
    );
    expect(use.stderr).toContain(
      "FRAUDCTL_API_KEY is set in this shell and wins over the profile's key: commands here send that key",
    );
    expect(commandAfterRun(use.stderr)).toBe('unset FRAUDCTL_BASE_URL FRAUDCTL_API_KEY');
    expect(keysIn(use)).toEqual([]);

    const after = await inShell(
      commandAfterRun(use.stderr),
      ['show', stagingEvent, '--json'],
      home.env({ FRAUDCTL_BASE_URL: prod.url, FRAUDCTL_API_KEY: PROD_KEY }),
    );
    expect(after.code, after.stderr).toBe(0);

    const quiet = await home.run(['config', 'use', 'prod']);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toContain('warning');
  });

  it('config set base-url while FRAUDCTL_BASE_URL points elsewhere, and login while FRAUDCTL_API_KEY is set: each says the variable wins', async () => {
    const home = newHome();
    const set = await home.run(['config', 'set', 'base-url', staging.url, '--profile', 'staging'], {
      FRAUDCTL_BASE_URL: prod.url,
    });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain(
      `FRAUDCTL_BASE_URL is set to "${prod.url}" in this shell and wins over the profile's URL`,
    );
    expect(commandAfterRun(set.stderr)).toBe('unset FRAUDCTL_BASE_URL');

    const login = await home.runProcess(['login', '--profile', 'staging'], { FRAUDCTL_API_KEY: PROD_KEY }, STAGING_KEY);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain("FRAUDCTL_API_KEY is set in this shell and wins over the profile's key");
    expect(commandAfterRun(login.stderr)).toBe('unset FRAUDCTL_API_KEY');
    expect(keysIn(login)).toEqual([]);
  });
});

describe("3. a stored key goes only to its profile's URL", () => {
  it('--profile prod with FRAUDCTL_BASE_URL at staging: refused before any request (exit 2), naming both URLs and the ways out', async () => {
    const home = await twoProfiles();
    const result = await home.run(['--profile', 'prod', 'show', prodEvent], { FRAUDCTL_BASE_URL: staging.url });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    const [message, hint] = result.stderr.trim().split('\n');
    expect(message).toBe(
      `error: profile "prod" keeps its API key for ${prod.url}, not for ${staging.url} (from FRAUDCTL_BASE_URL): a stored key is sent only to its profile's URL, and nothing was sent`,
    );
    expect(hint).toBe(
      `use the profile for ${staging.url}: --profile staging; give a key for ${staging.url} in FRAUDCTL_API_KEY; go to the profile's own URL: unset FRAUDCTL_BASE_URL; or move the profile and its key there on purpose: fraudctl config set base-url ${staging.url} --profile prod`,
    );
    expect(keysIn(result)).toEqual([]);

    // Each way out works as given: the right profile, a key from the variable, the profile's own URL.
    expect(
      (await home.run(['--profile', 'staging', 'show', stagingEvent], { FRAUDCTL_BASE_URL: staging.url })).code,
    ).toBe(0);
    expect(
      (
        await home.run(['--profile', 'prod', 'show', stagingEvent], {
          FRAUDCTL_BASE_URL: staging.url,
          FRAUDCTL_API_KEY: STAGING_KEY,
        })
      ).code,
    ).toBe(0);
    expect(
      (
        await inShell(
          'unset FRAUDCTL_BASE_URL',
          ['--profile', 'prod', 'show', prodEvent],
          home.env({ FRAUDCTL_BASE_URL: staging.url }),
        )
      ).code,
    ).toBe(0);
  });

  it("the same URL written differently (scheme in capitals, a trailing slash) is the profile's own: the key goes", async () => {
    const home = await twoProfiles();
    const same = prod.url.replace(/^http:/, 'HTTP:') + '/';
    const result = await home.run(['--profile', 'prod', 'show', prodEvent, '--json'], { FRAUDCTL_BASE_URL: same });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: prodEvent });
    // localhost is another name, so another service: refused.
    const other = await home.run([
      '--profile',
      'prod',
      'show',
      prodEvent,
      '--base-url',
      prod.url.replace('127.0.0.1', 'localhost'),
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('(from --base-url)');
    expect(other.stderr).toContain("leave out --base-url to go to the profile's own URL");
  });

  it("nothing at all reaches the other URL: a stand-in that records every request hears none (today it was sent prod's key)", async () => {
    const home = await twoProfiles();
    recorded.length = 0;
    const show = await home.run(['--profile', 'prod', 'show', prodEvent], { FRAUDCTL_BASE_URL: recorder.url });
    const batch = await home.run([
      '--profile',
      'prod',
      '--base-url',
      recorder.url,
      'submit',
      new URL('../../examples/batch.jsonl', import.meta.url).pathname,
      '--out',
      join(tmp.dir, `out-${homes}.jsonl`),
    ]);
    const dryRun = await home.run(['--profile', 'prod', 'set-state', prodEvent, '--state', 'approved', '--dry-run'], {
      FRAUDCTL_BASE_URL: recorder.url,
    });
    expect(recorded.map((h) => h['x-client-api-key'])).toEqual([]);
    expect([show.code, batch.code, dryRun.code]).toEqual([2, 2, 2]);
    expect(dryRun.stdout).toBe('');
  });

  it('a key in the OS credential store is bound the same way', async () => {
    need(...KEYRING);
    const keyring = ss as SecretService;
    const env = (extra: Record<string, string> = {}) => cliEnv({ ...keyring.env, ...extra });
    const login = await runCli(['login', '--profile', 'prod', '--base-url', prod.url], { env: env(), input: PROD_KEY });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('saved in');
    expect(login.stderr).not.toContain('config.json');
    const refused = await runCli(['--profile', 'prod', 'show', prodEvent], {
      env: env({ FRAUDCTL_BASE_URL: staging.url }),
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `profile "prod" keeps its API key for ${prod.url}, not for ${staging.url} (from FRAUDCTL_BASE_URL)`,
    );
    expect((await runCli(['--profile', 'prod', 'show', prodEvent], { env: env() })).code).toBe(0);
  });

  it('doctor names FRAUDCTL_BASE_URL as the setting that differs, and does not send the key', async () => {
    const home = await twoProfiles();
    const result = await home.run(['--profile', 'prod', 'doctor'], { FRAUDCTL_BASE_URL: staging.url });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(`^✓ service URL\\s+${staging.url.replace(/[.]/g, '\\.')} \\(from FRAUDCTL_BASE_URL\\)$`, 'm'),
    );
    expect(result.stdout).toMatch(/^✗ API key\s+profile "prod" keeps its API key for .* \(from FRAUDCTL_BASE_URL\)/m);
    expect(result.stdout).toContain('unset FRAUDCTL_BASE_URL');
    expect(result.stdout).not.toMatch(/key accepted/);
  });

  it('a 401 with FRAUDCTL_API_KEY and FRAUDCTL_BASE_URL both set: the hint names both variables', async () => {
    const home = newHome();
    const result = await home.run(['show', stagingEvent], {
      FRAUDCTL_BASE_URL: staging.url,
      FRAUDCTL_API_KEY: PROD_KEY,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      "the key comes from FRAUDCTL_API_KEY and the URL from FRAUDCTL_BASE_URL, which win over the profile's: check that the key is for that URL, or use the profile's own: unset FRAUDCTL_API_KEY FRAUDCTL_BASE_URL",
    );
    expect(keysIn(result)).toEqual([]);
  });

  it('config set base-url on a profile with a stored key: off a terminal it needs --yes (exit 2, nothing changed); with it, says old → new', async () => {
    const home = await twoProfiles();
    const refused = await home.run(['config', 'set', 'base-url', staging.url, '--profile', 'prod']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `error: profile "prod" keeps an API key (in the config file) for ${prod.url}: with this change it will be sent to ${staging.url}; not changed without --yes`,
    );
    expect(refused.stderr).toContain(
      `if the key is meant to go there: fraudctl config set base-url ${staging.url} --profile prod --yes`,
    );
    expect(home.profile('prod')?.baseUrl).toBe(prod.url);

    const moved = await home.run(['config', 'set', 'base-url', staging.url, '--profile', 'prod', '--yes']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toContain(
      `profile "prod": base-url ${prod.url} → ${staging.url}; its API key now goes to ${staging.url}`,
    );
    expect(home.profile('prod')).toMatchObject({ baseUrl: staging.url, apiKey: PROD_KEY });
    // Moved on purpose: the key is sent there now (and staging does not take it).
    expect((await home.run(['--profile', 'prod', 'show', stagingEvent])).code).toBe(3);
    // A profile without a key moves without a question.
    expect((await home.run(['config', 'set', 'base-url', prod.url, '--profile', 'fresh'])).code).toBe(0);
  });

  it('config set base-url on a terminal asks, no by default; "n" changes nothing, "y" moves it', async () => {
    const home = await twoProfiles();
    const wide = { columns: 200, rows: 24 };
    const no = await onTerminal(
      ['config', 'set', 'base-url', staging.url, '--profile', 'prod'],
      [[/and its key to .*\?/, 'n\r']],
      home.env(),
      wide,
    );
    expect(no.code, no.screen).toBe(130);
    expect(no.screen).toContain(
      `profile "prod" keeps an API key (in the config file) for ${prod.url}: with this change it will be sent to ${staging.url}`,
    );
    expect(no.screen).toContain(`Move profile "prod" and its key to ${staging.url}? (y/N)`);
    expect(home.profile('prod')?.baseUrl).toBe(prod.url);
    const yes = await onTerminal(
      ['config', 'set', 'base-url', staging.url, '--profile', 'prod'],
      [[/and its key to .*\?/, 'y\r']],
      home.env(),
      wide,
    );
    expect(yes.code, yes.screen).toBe(0);
    expect(home.profile('prod')?.baseUrl).toBe(staging.url);
  });
});

describe("4. login takes a profile's URL from --base-url only", () => {
  it("login --profile prod with FRAUDCTL_BASE_URL at staging: checks the key at prod's own URL, keeps it, and says the variable was not used", async () => {
    const home = await twoProfiles();
    const login = await home.runProcess(['login', '--profile', 'prod'], { FRAUDCTL_BASE_URL: staging.url }, PROD_KEY);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(
      `note: FRAUDCTL_BASE_URL="${staging.url}" is not used by login: profile "prod" is logged in at its own URL, ${prod.url} (to change it, give --base-url)`,
    );
    expect(login.stderr).toContain(`Logged in: profile "prod" (${prod.url}) now uses key ****`);
    expect(home.profile('prod')).toMatchObject({ baseUrl: prod.url, apiKey: PROD_KEY });
    // With staging's key, login checks it at prod (refused there), and nothing moves.
    const wrong = await home.run(['login', '--profile', 'prod'], { FRAUDCTL_BASE_URL: staging.url }, STAGING_KEY);
    expect(wrong.code).toBe(3);
    expect(home.profile('prod')).toMatchObject({ baseUrl: prod.url, apiKey: PROD_KEY });
  });

  it('a new profile with only FRAUDCTL_BASE_URL: exit 2 before the key is read, with the login that gives the URL', async () => {
    const home = newHome();
    const login = await home.run(['login', '--profile', 'qa'], { FRAUDCTL_BASE_URL: staging.url }, STAGING_KEY);
    expect(login.code).toBe(2);
    expect(login.stderr).toContain(
      'error: profile "qa" has no service URL, and login does not take one from FRAUDCTL_BASE_URL',
    );
    expect(login.stderr).toContain(`give it with --base-url: fraudctl login --profile qa --base-url ${staging.url}`);
    expect((await home.run(['config', 'get', 'base-url', '--profile', 'qa'])).code).toBe(2);
  });

  it('an explicit --base-url moves the profile, said as old → new', async () => {
    const home = await twoProfiles();
    const login = await home.runProcess(['login', '--profile', 'prod', '--base-url', staging.url], {}, STAGING_KEY);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`Logged in: profile "prod" (${prod.url} → ${staging.url}) now uses key ****`);
    expect(home.profile('prod')).toMatchObject({ baseUrl: staging.url, apiKey: STAGING_KEY });
  });

  it("on a terminal, the prompt names the profile's own URL, after saying the variable is not used", async () => {
    const home = await twoProfiles();
    const { code, screen } = await onTerminal(
      ['login', '--profile', 'prod'],
      [
        [/API key for profile/, `${PROD_KEY}\r`],
        [/Make "prod" the active profile/, 'n\r'],
      ],
      home.env({ FRAUDCTL_BASE_URL: staging.url }),
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain('is not used by login');
    expect(screen).toContain(`API key for profile "prod" (${prod.url})`);
    expect(screen).not.toContain(PROD_KEY);
    expect(home.profile('prod')?.baseUrl).toBe(prod.url);
  });
});
