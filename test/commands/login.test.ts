import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { DEMO_KEY } from '../support/sandbox.js';
import { onTerminal } from '../support/script-terminal.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * login, logout and config in-process (main, its streams and exit code) against the sandbox. A
 * login that may reach for the OS credential store runs as a process: the store's library finds
 * the session bus in the environment of the process it runs in, not in the run's (a test process
 * on a desktop would otherwise store the test's key in the developer's keyring). The prompts on
 * a terminal run in a real one. login's and logout's work, with a store of the test's own, is in
 * login/run.test.ts and logout/run.test.ts.
 */
const cli = useSandboxInProcess();
/** No key or URL from the environment: only what login stored. */
const bare = { FRAUDCTL_API_KEY: '', FRAUDCTL_BASE_URL: '' };
const configFile = () => join(cli.dir, 'config', 'fraudctl', 'config.json');

describe('fraudctl login and config', () => {
  it('checks a key read from stdin, stores it with mode 0600, and later commands use it', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const login = await cli.runProcess(['login', '--profile', 'local', '--base-url', cli.sb.url], {
      input: `${DEMO_KEY}\n`,
      env: bare,
    });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain('profile "local"');
    expect(login.stderr).not.toContain(DEMO_KEY);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.local).toEqual({
      baseUrl: cli.sb.url,
      apiKey: DEMO_KEY,
    });

    const show = await cli.run(['show', 'missing-1', '--profile', 'local'], { env: bare });
    expect(show.code).toBe(4);

    const list = await cli.run(['config', 'list', '--profile', 'local'], { env: bare });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('local');
    expect(list.stdout).toContain(`****${DEMO_KEY.slice(-4)}`);
    expect(list.stdout).not.toContain(DEMO_KEY);
    const json = await cli.run(['config', 'list', '--json'], { env: bare });
    expect(json.stdout).not.toContain(DEMO_KEY);
  });

  it('refuses a key the service does not accept, exit 3, and saves nothing', async () => {
    const result = await cli.run(['login', '--profile', 'wrong', '--base-url', cli.sb.url], {
      input: 'not-the-key-123456',
      env: bare,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/did not accept this key: nothing was saved/);
    expect(result.stderr).not.toContain('not-the-key-123456');
    const get = await cli.run(['config', 'get', 'api-key', '--profile', 'wrong'], { env: bare });
    expect(get.code).toBe(2);
  });

  it('exits 2 without a key on stdin, and without a URL for a new profile', async () => {
    expect((await cli.run(['login', '--profile', 'p2', '--base-url', cli.sb.url], { input: '', env: bare })).code).toBe(
      2,
    );
    const noUrl = await cli.run(['login', '--profile', 'p3'], { input: DEMO_KEY, env: bare });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('--base-url');
  });

  it('sets, gets and unsets settings, and refuses to take a key as an argument', async () => {
    expect(
      (
        await cli.runProcess(['config', 'set', 'base-url', 'https://fraud.example.com', '--profile', 'prod'], {
          env: bare,
        })
      ).code,
    ).toBe(0);
    expect((await cli.run(['config', 'set', 'timeout', '12', '--profile', 'prod'], { env: bare })).code).toBe(0);
    expect((await cli.run(['config', 'get', 'base-url', '--profile', 'prod'], { env: bare })).stdout.trim()).toBe(
      'https://fraud.example.com',
    );
    expect((await cli.run(['config', 'get', 'timeout', '--profile', 'prod'], { env: bare })).stdout.trim()).toBe('12');
    const key = await cli.run(['config', 'set', 'api-key', 'abc', '--profile', 'prod'], { env: bare });
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('fraudctl login');
    const badUrl = await cli.run(['config', 'set', 'base-url', 'ftp://x', '--profile', 'prod'], { env: bare });
    expect(badUrl.code).toBe(2);
    expect((await cli.run(['config', 'use', 'prod'], { env: bare })).code).toBe(0);
    expect((await cli.run(['config', 'list'], { env: bare })).stdout).toMatch(/\*\s+│ prod/);
  });

  it('a setting for a profile that does not exist is refused as a typo (did you mean), changing nothing; only a base-url makes a profile, and says so', async () => {
    const config = join(cli.env().HOME!, 'typo-config');
    const env = { ...bare, XDG_CONFIG_HOME: config };
    const made = await cli.run(['config', 'set', 'base-url', 'https://fraud.example.com', '--profile', 'prod'], {
      env,
    });
    expect(made.stderr).toBe('profile "prod" (a new profile): base-url set to https://fraud.example.com\n');
    const before = readFileSync(join(config, 'fraudctl', 'config.json'), 'utf8');
    const typo = await cli.run(['config', 'set', 'timeout', '10', '--profile', 'prdo'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'error: no profile "prdo" (known: prod, sandbox); did you mean "prod"?\nto create it: fraudctl config set base-url URL --profile prdo\n',
    );
    expect(readFileSync(join(config, 'fraudctl', 'config.json'), 'utf8')).toBe(before);
    expect((await cli.run(['config', 'set', 'timeout', '10', '--profile', 'prod'], { env })).stderr).toBe(
      'profile "prod": timeout set\n',
    );
  });

  it('config get and config list with --json print JSON: typed values, null where there is none, no placeholder', async () => {
    const config = join(cli.env().HOME!, 'json-config');
    const env = { ...bare, XDG_CONFIG_HOME: config };
    expect(
      (await cli.run(['config', 'set', 'base-url', 'https://fraud.example.com', '--profile', 'prod'], { env })).code,
    ).toBe(0);
    const get = async (...args: string[]) => {
      const result = await cli.run(['config', 'get', ...args, '--json'], { env });
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as unknown;
    };
    expect(await get('base-url', '--profile', 'prod')).toBe('https://fraud.example.com');
    expect(await get('timeout', '--profile', 'prod')).toBe(30);
    expect(await get('insecure-http', '--profile', 'prod')).toBe(false);
    expect(await get('api-key', '--profile', 'prod')).toBeNull();
    expect(await get('base-url', '--profile', 'sandbox')).toBeNull();
    const list = JSON.parse((await cli.run(['config', 'list', '--json'], { env })).stdout) as Record<string, unknown>[];
    expect(list).toEqual([
      expect.objectContaining({
        name: 'prod',
        baseUrl: 'https://fraud.example.com',
        embeddedSandbox: false,
        apiKey: null,
        keyStorage: 'none',
      }),
      expect.objectContaining({
        name: 'sandbox',
        baseUrl: null,
        embeddedSandbox: true,
        apiKey: null,
        keyStorage: 'sandbox-default',
      }),
    ]);
    expect(JSON.stringify(list)).not.toMatch(/\((embedded sandbox|sandbox default|none|not set)\)/);
  });

  it('takes flags over environment over the config file', async () => {
    // The file says prod (https://fraud.example.com, unreachable here); the environment and a flag win over it.
    const viaEnv = await cli.run(['show', 'missing-2'], {
      env: { FRAUDCTL_BASE_URL: cli.sb.url, FRAUDCTL_API_KEY: DEMO_KEY },
    });
    expect(viaEnv.code).toBe(4);
    const viaFlag = await cli.run(['show', 'missing-2', '--base-url', cli.sb.url], {
      env: { FRAUDCTL_BASE_URL: 'http://127.0.0.1:1', FRAUDCTL_API_KEY: DEMO_KEY },
    });
    expect(viaFlag.code).toBe(4);
    const unknown = await cli.run(['show', 'x', '--profile', 'nope'], { env: bare });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no profile "nope"');
  });
});

describe('login: making the profile the one in use, and logout', () => {
  const activeProfile = async () => {
    const list = JSON.parse((await cli.run(['config', 'list', '--json'], { env: bare })).stdout) as {
      name: string;
      active: boolean;
    }[];
    return list.find((p) => p.active)?.name;
  };

  it('on a terminal, asks whether to make the new profile the active one', async () => {
    const { code, screen } = await onTerminal(
      ['login', '--profile', 'third', '--base-url', cli.sb.url],
      [
        [/API key/, `${DEMO_KEY}\r`],
        [/Make "third" the active profile/, 'y\r'],
      ],
      cli.env(bare),
    );
    expect(code, screen).toBe(0);
    // The prompt says which profile and service the key is for.
    expect(screen).toContain(`API key for profile "third" (${cli.sb.url})`);
    expect(screen).toContain('"third" is now the active profile');
    expect(screen).not.toContain(DEMO_KEY);
    expect(await activeProfile()).toBe('third');
  });

  it('logout forgets the key and keeps the profile; a second logout has nothing to do; an unknown profile is exit 2', async () => {
    expect(
      (
        await cli.runProcess(['login', '--profile', 'leaving', '--base-url', cli.sb.url], {
          input: DEMO_KEY,
          env: bare,
        })
      ).code,
    ).toBe(0);
    const out = await cli.runProcess(['logout', '--profile', 'leaving'], { env: bare });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('Logged out: profile "leaving" has no key any more');
    const stored = JSON.parse(readFileSync(configFile(), 'utf8')).profiles.leaving;
    expect(stored).toEqual({ baseUrl: cli.sb.url });
    const again = await cli.run(['logout', '--profile', 'leaving'], { env: bare });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('has no stored key: nothing to do');
    const show = await cli.run(['show', 'x-1', '--profile', 'leaving'], { env: bare });
    expect(show.code).toBe(3);
    expect((await cli.run(['logout', '--profile', 'never-was'], { env: bare })).code).toBe(2);
  });

  it('config set does not offer api-key, and refuses it with the way to store a key', async () => {
    const help = await cli.run(['config', 'set', '--help'], { env: bare });
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain(
      '(choices: "base-url", "timeout", "retries", "insecure-http", "analyst", "reasons", "require-reason")',
    );
    expect(text).not.toMatch(/choices:[^)]*api-key/);
    const refused = await cli.run(['config', 'set', 'api-key', 'abc123', '--profile', 'prod'], { env: bare });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('run fraudctl login --profile NAME');
  });
});

describe('config delete', () => {
  const env = () => ({ ...bare, XDG_CONFIG_HOME: join(cli.env().HOME!, 'delete-config') });
  const file = () =>
    JSON.parse(readFileSync(join(env().XDG_CONFIG_HOME, 'fraudctl', 'config.json'), 'utf8')) as {
      activeProfile?: string;
      profiles: Record<string, unknown>;
    };

  it('off a terminal takes --yes (its hint works as written); removes the profile and its key; the active one says what is active now', async () => {
    expect(
      (
        await cli.run(['login', '--profile', 'old', '--base-url', cli.sb.url, '--insecure-storage'], {
          input: DEMO_KEY,
          env: env(),
        })
      ).code,
    ).toBe(0);
    expect((await cli.run(['config', 'use', 'old'], { env: env() })).code).toBe(0);
    const asked = await cli.run(['config', 'delete', 'old'], { env: env() });
    expect(asked.code).toBe(2);
    expect(asked.stderr).toBe(
      `error: not deleting profile "old" (${cli.sb.url}) and its API key without --yes\nto delete it: fraudctl config delete old --yes\n`,
    );
    expect(file().profiles.old).toBeDefined();
    const hint = asked.stderr.split('\n')[1]!.replace('to delete it: fraudctl ', '').split(' ');
    const done = await cli.run(hint, { env: env() });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe(
      `deleted profile "old" (${cli.sb.url}) and its API key; the active profile is now "sandbox"\n`,
    );
    expect(file().profiles).toEqual({});
    expect(file().activeProfile).toBeUndefined();
    expect(readFileSync(join(env().XDG_CONFIG_HOME, 'fraudctl', 'config.json'), 'utf8')).not.toContain(DEMO_KEY);
    const list = await cli.run(['config', 'list', '--json'], { env: env() });
    expect((JSON.parse(list.stdout) as { name: string }[]).map((p) => p.name)).toEqual(['sandbox']);
  });

  it('refuses the built-in sandbox and a name that is not there (did you mean), changing nothing', async () => {
    expect(
      (await cli.run(['config', 'set', 'base-url', 'https://fraud.example.com', '--profile', 'prod'], { env: env() }))
        .code,
    ).toBe(0);
    const sandbox = await cli.run(['config', 'delete', 'sandbox', '--yes'], { env: env() });
    expect(sandbox.code).toBe(2);
    expect(sandbox.stderr).toContain('the built-in "sandbox" profile cannot be deleted');
    const typo = await cli.run(['config', 'delete', 'prdo', '--yes'], { env: env() });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('no profile "prdo" (known: prod, sandbox); did you mean "prod"?');
    expect(file().profiles.prod).toEqual({ baseUrl: 'https://fraud.example.com' });
  });

  it('on a terminal asks first (no by default): n keeps the profile, y deletes it', async () => {
    expect(
      (await cli.run(['config', 'set', 'base-url', 'https://asked.example.com', '--profile', 'asked'], { env: env() }))
        .code,
    ).toBe(0);
    const no = await onTerminal(['config', 'delete', 'asked'], [[/Delete profile "asked"/, 'n\r']], cli.env(env()));
    expect(no.code, no.screen).toBe(130);
    expect(file().profiles.asked).toBeDefined();
    const yes = await onTerminal(['config', 'delete', 'asked'], [[/Delete profile "asked"/, 'y\r']], cli.env(env()));
    expect(yes.code, yes.screen).toBe(0);
    expect(yes.screen).toContain('deleted profile "asked"');
    expect(file().profiles.asked).toBeUndefined();
  });
});
