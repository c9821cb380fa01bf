import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/logout/run.js';
import type { LogoutDeps } from '../../../src/commands/logout/deps.js';
import { writeConfigFile, type ConfigFile } from '../../../src/profiles/config-file.js';
import { fakeCredentialStore, type FakeCredentialStore } from '../../support/fake-credential-store.js';
import { tempEnv } from '../../profiles/temp-env.js';
import { unsetEnvCommand } from '../../../src/render/shell-command.js';

/*
 * logout's work in-process: run(options, deps) with a config directory and a credential store of
 * the test's own. What it says and what it leaves in the file and the store; argv → options and
 * the real keyring are in flag-parsing.test.ts and test/credentials/; logout in main, in login.test.ts.
 */

const STORE = 'the test keyring';
const ACCOUNT = 'leaving@https://fraud.example.com';

function setUp(file: ConfigFile, extraEnv: NodeJS.ProcessEnv = {}, store: FakeCredentialStore = fakeCredentialStore()) {
  const temp = tempEnv(extraEnv);
  writeConfigFile(temp.env, file);
  const said: string[] = [];
  const deps: LogoutDeps = {
    stderr: { write: (text) => void said.push(text) },
    env: temp.env,
    credentialStore: store.open,
    storeName: STORE,
  };
  const profiles = () => (JSON.parse(readFileSync(temp.configPath, 'utf8')) as ConfigFile).profiles;
  return { deps, said, store, profiles, configPath: temp.configPath };
}

const inStore: ConfigFile = {
  activeProfile: 'leaving',
  profiles: {
    leaving: { baseUrl: 'https://fraud.example.com', credentialStore: { service: 'fraudctl', account: ACCOUNT } },
  },
};

describe('logout: run(options, deps)', () => {
  it('a key in the credential store: its entry removed, the profile and its URL kept', async () => {
    const t = setUp(inStore);
    t.store.entries.set(ACCOUNT, 'key-in-store-1234');
    await run({ profile: null }, t.deps);
    expect(t.said).toStrictEqual([`Logged out: profile "leaving" has no key any more (removed from ${STORE})\n`]);
    expect(t.store.entries.has(ACCOUNT)).toBe(false);
    expect(t.profiles()).toStrictEqual({ leaving: { baseUrl: 'https://fraud.example.com' } });
  });

  it('an entry already gone from the store says so, and the profile forgets it', async () => {
    const t = setUp(inStore);
    await run({ profile: 'leaving' }, t.deps);
    expect(t.said).toStrictEqual([
      `Logged out: profile "leaving" has no key any more (its entry was already gone from ${STORE})\n`,
    ]);
    expect(t.profiles()).toStrictEqual({ leaving: { baseUrl: 'https://fraud.example.com' } });
  });

  it('a key in the file: removed from the file (named); again: nothing to do; a key in the shell is said', async () => {
    const t = setUp(
      {
        activeProfile: 'prod',
        profiles: { prod: { baseUrl: 'https://fraud.example.com', apiKey: 'file-key-123456' } },
      },
      { FRAUDCTL_API_KEY: 'shell-key-123456' },
    );
    await run({ profile: 'prod' }, t.deps);
    await run({ profile: 'prod' }, t.deps);
    const shellKey = `note: FRAUDCTL_API_KEY is set in this shell, and commands here still send that key; to stop that too, run: ${unsetEnvCommand(['FRAUDCTL_API_KEY'])}\n`;
    expect(t.said).toStrictEqual([
      `Logged out: profile "prod" has no key any more (removed from ${t.configPath})\n`,
      shellKey,
      'profile "prod" has no stored key: nothing to do\n',
      shellKey,
    ]);
    expect(t.profiles()).toStrictEqual({ prod: { baseUrl: 'https://fraud.example.com' } });
  });

  it('a store that cannot be used: exit 3 with the way out, and the profile still names its entry', async () => {
    const t = setUp(inStore, {}, fakeCredentialStore({ unusable: 'no session bus' }));
    await expect(run({ profile: null }, t.deps)).rejects.toMatchObject({
      exitCode: 3,
      message: `cannot remove the API key of profile "leaving" from the credential store (account "${ACCOUNT}"): no session bus; nothing was changed`,
      hint: 'run fraudctl logout --profile leaving where the store can be reached and answers (the desktop session, the keyring unlocked)',
    });
    expect(t.profiles()).toStrictEqual(inStore.profiles);
    expect(t.said).toStrictEqual([]);
  });

  it('a profile that does not exist: exit 2, nothing said', async () => {
    const t = setUp(inStore);
    await expect(run({ profile: 'never-was' }, t.deps)).rejects.toMatchObject({ exitCode: 2 });
    expect(t.said).toStrictEqual([]);
  });
});
