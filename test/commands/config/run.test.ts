import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/config/run.js';
import type { ConfigDeps } from '../../../src/commands/config/deps.js';
import type { ConfigOptions, ConfigVerb } from '../../../src/commands/config/options.js';
import type { Prompter } from '../../../src/prompter/prompter.js';
import { writeConfigFile, type ConfigFile } from '../../../src/profiles/config-file.js';
import { cliEnv } from '../../support/cli.js';
import { runInProcess } from '../../support/in-process-cli.js';
import { fakeCredentialStore, type FakeCredentialStore } from '../../support/fake-credential-store.js';

/*
 * config's work in-process: run(options, deps) with a config directory, streams and a credential
 * store of the test's own (argv → options: flag-parsing.test.ts). Its hints are run as written,
 * through main.
 */

/** A stream that keeps what is written to it. */
function sink(): PassThrough & { text: () => string } {
  const stream = new PassThrough() as PassThrough & { text: () => string };
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  stream.text = () => text;
  return stream;
}

function home(): { env: NodeJS.ProcessEnv; configPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fraudctl-config-run-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  const env = cliEnv({ HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') });
  return { env, configPath: join(dir, 'config', 'fraudctl', 'config.json') };
}

/** One verb run with `deps` of the test's own; its stdout and stderr. */
async function config(
  env: NodeJS.ProcessEnv,
  verb: ConfigVerb,
  over: Partial<Pick<ConfigOptions, 'profile' | 'json'>> & { store?: FakeCredentialStore; prompter?: Prompter } = {},
): Promise<{ stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const deps: ConfigDeps = {
    stdout,
    stderr,
    env,
    canPrompt: over.prompter !== undefined,
    prompter: async () => over.prompter ?? Promise.reject(new Error('no terminal')),
    credentialStore: (over.store ?? fakeCredentialStore()).open,
    storeName: 'the test keyring',
  };
  await run({ ...verb, profile: over.profile ?? null, json: over.json ?? false, noColor: true } as ConfigOptions, deps);
  return { stdout: stdout.text(), stderr: stderr.text() };
}

// config's changing verbs with --json: the profile as it now is on stdout (config list --json's
// shape), the note on stderr, so a script needs no second call to see what it changed.
describe('config set/unset/use/delete --json', () => {
  const { env } = home();
  const json = async (verb: ConfigVerb, profile?: string) => {
    const result = await config(env, verb, { json: true, ...(profile ? { profile } : {}) });
    return { json: JSON.parse(result.stdout) as Record<string, unknown>, note: result.stderr };
  };

  it('set prints the changed profile', async () => {
    const { json: set, note } = await json(
      { verb: 'set', key: 'base-url', value: 'http://127.0.0.1:9', yes: false },
      'staging',
    );
    expect(set).toMatchObject({ name: 'staging', baseUrl: 'http://127.0.0.1:9', timeoutSeconds: 30 });
    expect(note).toBe('profile "staging" (a new profile): base-url set to http://127.0.0.1:9\n');
    expect((await json({ verb: 'set', key: 'timeout', value: '12', yes: false }, 'staging')).json).toMatchObject({
      name: 'staging',
      timeoutSeconds: 12,
    });
  });

  it('unset prints the profile without the setting', async () => {
    expect((await json({ verb: 'unset', key: 'timeout' }, 'staging')).json).toMatchObject({
      name: 'staging',
      timeoutSeconds: 30,
    });
  });

  it('use prints the profile now active', async () => {
    expect((await json({ verb: 'use', name: 'staging' })).json).toMatchObject({ name: 'staging', active: true });
  });

  it('delete says what went and which profile is active now', async () => {
    const { json: deleted, note } = await json({ verb: 'delete', name: 'staging', yes: true });
    expect(deleted).toStrictEqual({ deleted: 'staging', active: 'sandbox' });
    expect(note).toBe(
      'deleted profile "staging" (http://127.0.0.1:9) and its API key; the active profile is now "sandbox"\n',
    );
  });
});

describe('config and the credential store', () => {
  const ACCOUNT = 'prod@https://fraud.example.com';
  const inStore: ConfigFile = {
    activeProfile: 'prod',
    profiles: {
      prod: { baseUrl: 'https://fraud.example.com', credentialStore: { service: 'fraudctl', account: ACCOUNT } },
    },
  };
  const setUp = () => {
    const h = home();
    writeConfigFile(h.env, inStore);
    const store = fakeCredentialStore();
    store.entries.set(ACCOUNT, 'key-in-store-1234');
    const profiles = () => (JSON.parse(readFileSync(h.configPath, 'utf8')) as ConfigFile).profiles;
    return { ...h, store, profiles };
  };

  it('unset api-key takes the key out of the store, as logout does', async () => {
    const t = setUp();
    const { stderr } = await config(t.env, { verb: 'unset', key: 'api-key' }, { store: t.store });
    expect(stderr).toBe('profile "prod": api-key removed\n');
    expect(t.store.entries.size).toBe(0);
    expect(t.profiles()).toStrictEqual({ prod: { baseUrl: 'https://fraud.example.com' } });
  });

  it('delete --yes removes the store entry and the profile', async () => {
    const t = setUp();
    await config(t.env, { verb: 'delete', name: 'prod', yes: true }, { store: t.store });
    expect(t.store.entries.size).toBe(0);
    expect(t.profiles()).toStrictEqual({});
  });

  it('a new base-url for a profile with a stored key: off a terminal it takes --yes; on one it asks (no keeps it)', async () => {
    const t = setUp();
    const move = { verb: 'set', key: 'base-url', value: 'https://fraud-eu.example.com', yes: false } as const;
    await expect(config(t.env, move, { store: t.store })).rejects.toMatchObject({
      exitCode: 2,
      message:
        'profile "prod" keeps an API key (in the test keyring) for https://fraud.example.com: with this change it will be sent to https://fraud-eu.example.com; not changed without --yes',
      hint: 'if the key is meant to go there: fraudctl config set base-url https://fraud-eu.example.com --profile prod --yes',
    });
    const asked: string[] = [];
    const no = { confirm: async (message: string) => (asked.push(message), false) } as unknown as Prompter;
    await expect(config(t.env, move, { store: t.store, prompter: no })).rejects.toMatchObject({
      exitCode: 130,
      message: 'cancelled: nothing was changed',
    });
    expect(asked).toStrictEqual(['Move profile "prod" and its key to https://fraud-eu.example.com?']);
    expect(t.profiles()).toStrictEqual(inStore.profiles);
    expect(t.store.entries.get(ACCOUNT)).toBe('key-in-store-1234');
  });

  it('config list: the table marks the active profile and where its key is kept', async () => {
    const t = setUp();
    const { stdout } = await config(t.env, { verb: 'list' }, { store: t.store });
    expect(stdout).toMatch(/prod/);
    expect(stdout).not.toContain('key-in-store-1234');
    const listed = JSON.parse((await config(t.env, { verb: 'list' }, { json: true })).stdout) as unknown[];
    expect(listed).toContainEqual(
      expect.objectContaining({ name: 'prod', active: true, keyStorage: 'credential-store', apiKey: null }),
    );
  });
});

// What config set --help says makes a profile is what does: a newcomer's `config set timeout 10
// --profile prod` is refused with the command that makes prod, and that command works as written.
describe('config set on a profile that does not exist yet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fraudctl-config-new-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  const env = cliEnv({ HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') });

  it('help says setting base-url makes one; another setting is refused naming that command, which works', async () => {
    const help = await runInProcess(['config', 'set', '--help'], env);
    expect(help.stdout).toContain('setting base-url creates a new one');
    expect(help.stdout).not.toContain('created if new');
    const refused = await runInProcess(['config', 'set', 'timeout', '10', '--profile', 'prod'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'error: no profile "prod" (known: sandbox)\nto create it: fraudctl config set base-url URL --profile prod\n',
    );
    const hint = refused.stderr.split('to create it: fraudctl ')[1]!.trim();
    expect((await runInProcess(hint.replace('URL', 'https://fraud.example.com').split(' '), env)).code).toBe(0);
    const set = await runInProcess(['config', 'set', 'timeout', '10', '--profile', 'prod', '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    const profile = { name: 'prod', baseUrl: 'https://fraud.example.com', timeoutSeconds: 10 };
    expect(JSON.parse(set.stdout)).toMatchObject(profile);
  });
});
