import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/login/run.js';
import { loginDeps, type LoginDeps } from '../../../src/commands/login/deps.js';
import type { LoginOptions } from '../../../src/commands/login/options.js';
import type { CliContext } from '../../../src/process/cli-context.js';
import type { Prompter } from '../../../src/prompter/prompter.js';
import { credentialAccount } from '../../../src/profiles/value-rules.js';
import { useSandboxInProcess } from '../../support/in-process-cli.js';
import { fakeCredentialStore, type FakeCredentialStore } from '../../support/fake-credential-store.js';
import { DEMO_KEY } from '../../support/sandbox.js';
import { notOnWindows, ON_WINDOWS } from '../../support/prerequisites.js';

/*
 * login's work in-process: run(options, deps) against the real sandbox on an ephemeral port, with
 * the real deps but for the credential store, which is the test's own (the system's keyring
 * library reads the session bus from this process's environment: on a desktop it would keep the
 * test's key in the developer's keyring). argv → options is in flag-parsing.test.ts; a login as a
 * process, on a terminal, and into the real keyring in login.test.ts and test/credentials/.
 */

const cli = useSandboxInProcess();
const STORE = 'the test keyring';
/** No key or URL from the environment: only what login stored. */
const bare = { FRAUDCTL_API_KEY: '', FRAUDCTL_BASE_URL: '' };
const configFile = () => join(cli.dir, 'config', 'fraudctl', 'config.json');
const stored = () =>
  existsSync(configFile())
    ? (JSON.parse(readFileSync(configFile(), 'utf8')) as { activeProfile?: string; profiles: Record<string, unknown> })
    : null;

const options = (over: Partial<LoginOptions>): LoginOptions => ({
  profile: null,
  baseUrl: null,
  insecureHttp: false,
  insecureStorage: false,
  ...over,
});

/** The real deps for a run whose stdin holds `input`, with a store of the test's own (and a prompter when given). */
function deps(
  input: string,
  store: FakeCredentialStore,
  prompter?: Prompter,
): { deps: LoginDeps; stderr: () => string } {
  const stdin = new PassThrough();
  stdin.end(input);
  let said = '';
  const context: CliContext = {
    stdin,
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: cli.env(bare),
    debug: false,
    waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    onStdoutClosed: () => () => {},
  };
  const real = loginDeps(context, {});
  return {
    deps: {
      ...real,
      stderr: { write: (text) => void (said += text) },
      credentialStore: store.open,
      storeName: STORE,
      ...(prompter ? { canPrompt: true, prompter: async () => prompter } : {}),
    },
    stderr: () => said,
  };
}

describe('login: run(options, deps)', () => {
  it('a key from stdin is checked, kept in the credential store (the file names its entry), and said redacted', async () => {
    const store = fakeCredentialStore();
    const run1 = deps(`${DEMO_KEY}\n`, store);
    await run(options({ profile: 'kept', baseUrl: cli.sb.url }), run1.deps);
    const account = credentialAccount('kept', cli.sb.url);
    expect([...store.entries]).toStrictEqual([[account, DEMO_KEY]]);
    expect(stored()?.profiles.kept).toStrictEqual({
      baseUrl: cli.sb.url,
      credentialStore: { service: 'fraudctl', account },
    });
    const active = stored()?.activeProfile ?? 'sandbox';
    expect(run1.stderr()).toBe(
      `Logged in: profile "kept" (${cli.sb.url}) now uses key ****${DEMO_KEY.slice(-4)}, saved in ${STORE}\n` +
        `The active profile is still "${active}": to use "kept", run fraudctl config use kept, or add --profile kept to a command\n`,
    );
  });

  it('a store that cannot be used: the key goes to the file (mode 0600), and why is said', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const run1 = deps(DEMO_KEY, fakeCredentialStore({ unusable: 'no session bus' }));
    await run(options({ profile: 'no-bus', baseUrl: cli.sb.url }), run1.deps);
    expect(stored()?.profiles['no-bus']).toStrictEqual({ baseUrl: cli.sb.url, apiKey: DEMO_KEY });
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(run1.stderr().split('\n')[0]).toBe(
      `note: no credential store is usable here (no session bus): the key is kept in ${configFile()} (mode 0600) instead`,
    );
  });

  it('--insecure-storage keeps the key in the file, as asked, and leaves the store alone', async () => {
    const store = fakeCredentialStore();
    const run1 = deps(DEMO_KEY, store);
    await run(options({ profile: 'in-file', baseUrl: cli.sb.url, insecureStorage: true }), run1.deps);
    expect(store.entries.size).toBe(0);
    expect(stored()?.profiles['in-file']).toStrictEqual({ baseUrl: cli.sb.url, apiKey: DEMO_KEY });
    expect(run1.stderr().split('\n')[0]).toBe(
      `Logged in: profile "in-file" (${cli.sb.url}) now uses key ****${DEMO_KEY.slice(-4)}, saved in ${configFile()} (mode 0600), as --insecure-storage asks`,
    );
  });

  it('a key the service does not accept: exit 3, nothing in the store or the file', async () => {
    const store = fakeCredentialStore();
    const run1 = deps('not-the-key-123456', store);
    await expect(run(options({ profile: 'refused', baseUrl: cli.sb.url }), run1.deps)).rejects.toMatchObject({
      exitCode: 3,
      message: expect.stringMatching(/^the service did not accept this key: nothing was saved \(401\b/),
    });
    expect(store.entries.size).toBe(0);
    expect(stored()?.profiles.refused).toBeUndefined();
    expect(run1.stderr()).not.toContain('not-the-key-123456');
  });

  it('with a prompter: the key asked for hidden, naming the profile and service; yes makes it the active profile', async () => {
    const asked: string[] = [];
    const prompter = {
      secret: async (message: string) => (asked.push(message), DEMO_KEY),
      confirm: async (message: string) => (asked.push(message), true),
    } as unknown as Prompter;
    const run1 = deps('', fakeCredentialStore(), prompter);
    const before = stored()?.activeProfile ?? 'sandbox';
    await run(options({ profile: 'asked', baseUrl: cli.sb.url }), run1.deps);
    expect(asked).toStrictEqual([
      `API key for profile "asked" (${cli.sb.url})`,
      `Make "asked" the active profile (instead of "${before}")?`,
    ]);
    expect(stored()?.activeProfile).toBe('asked');
    expect(run1.stderr().split('\n')[1]).toBe('"asked" is now the active profile');
  });
});
