import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CliError, UsageError } from '../../src/errors/cli-error.js';
import {
  CONFIG_KEYS,
  SETTING_KEYS,
  getSetting,
  keyMoveOf,
  listProfiles,
  saveApiKey,
  setSetting,
  unsetSetting,
  useProfile,
  type SettingKey,
} from '../../src/profiles/stored-profiles.js';
import { readConfigFile, writeConfigFile } from '../../src/profiles/config-file.js';
import { resolveSettings } from '../../src/profiles/settings.js';
import { modeOf, tempEnv, thrown } from './temp-env.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

const PROD_KEY = 'prod-secret-key-0123456789ABCD';
const STAGING_KEY = 'staging-secret-key-99887766';

/** A home with two profiles, prod (with a key) and staging (without a timeout). */
function configured(extra: NodeJS.ProcessEnv = {}) {
  const t = tempEnv(extra);
  writeConfigFile(t.env, {
    activeProfile: 'prod',
    profiles: {
      staging: { baseUrl: 'https://staging.example.com', apiKey: STAGING_KEY },
      prod: { baseUrl: 'https://fraud.example.com', apiKey: PROD_KEY, timeoutSeconds: 10, retries: 1 },
    },
  });
  return t;
}

describe('listProfiles', () => {
  it('with no file, lists only the built-in sandbox, active', () => {
    const t = tempEnv();
    expect(listProfiles(t.env)).toEqual([
      {
        name: 'sandbox',
        active: true,
        baseUrl: '(embedded sandbox)',
        apiKey: '(sandbox default)',
        keyStorage: 'sandbox-default',
        timeoutSeconds: 30,
        retries: 3,
        insecureHttp: false,
        analyst: null,
        reasons: [],
        requireReason: false,
        builtIn: true,
      },
    ]);
    expect(existsSync(t.configDir)).toBe(false);
  });

  it('lists the profiles by name, then sandbox, with keys redacted and defaults filled in', () => {
    const t = configured();
    expect(listProfiles(t.env)).toEqual([
      {
        name: 'prod',
        active: true,
        baseUrl: 'https://fraud.example.com',
        apiKey: '****ABCD',
        keyStorage: 'file',
        timeoutSeconds: 10,
        retries: 1,
        insecureHttp: false,
        analyst: null,
        reasons: [],
        requireReason: false,
        builtIn: false,
      },
      {
        name: 'staging',
        active: false,
        baseUrl: 'https://staging.example.com',
        apiKey: '****7766',
        keyStorage: 'file',
        timeoutSeconds: 30,
        retries: 3,
        insecureHttp: false,
        analyst: null,
        reasons: [],
        requireReason: false,
        builtIn: false,
      },
      {
        name: 'sandbox',
        active: false,
        baseUrl: '(embedded sandbox)',
        apiKey: '(sandbox default)',
        keyStorage: 'sandbox-default',
        timeoutSeconds: 30,
        retries: 3,
        insecureHttp: false,
        analyst: null,
        reasons: [],
        requireReason: false,
        builtIn: true,
      },
    ]);
  });

  it('says where each key is kept: the credential store (not read to be listed), the config file, or nowhere', () => {
    const t = tempEnv();
    writeConfigFile(t.env, {
      profiles: {
        stored: {
          baseUrl: 'https://fraud.example.com',
          credentialStore: { service: 'fraudctl', account: 'stored@https://fraud.example.com' },
        },
        filed: { baseUrl: 'https://fraud.example.com', apiKey: PROD_KEY },
        bare: { baseUrl: 'https://fraud.example.com' },
      },
    });
    expect(listProfiles(t.env).map(({ name, apiKey, keyStorage }) => ({ name, apiKey, keyStorage }))).toEqual([
      { name: 'bare', apiKey: '(none)', keyStorage: 'none' },
      { name: 'filed', apiKey: '****ABCD', keyStorage: 'file' },
      { name: 'stored', apiKey: '(credential store)', keyStorage: 'credential-store' },
      { name: 'sandbox', apiKey: '(sandbox default)', keyStorage: 'sandbox-default' },
    ]);
    expect(getSetting(t.env, 'stored', 'api-key')).toBe('(credential store)');
  });

  it('never contains a key', () => {
    const t = configured();
    saveApiKey(t.env, 'sandbox', 'sandbox-stored-key-5555');
    const text = JSON.stringify(listProfiles(t.env));
    for (const key of [PROD_KEY, STAGING_KEY, 'sandbox-stored-key-5555']) expect(text).not.toContain(key.slice(0, -4));
    expect(listProfiles(t.env).find((p) => p.name === 'sandbox')).toMatchObject({ apiKey: '****5555', builtIn: true });
  });

  it('marks the active profile as resolveSettings would: override > FRAUDCTL_PROFILE > activeProfile', () => {
    const t = configured({ FRAUDCTL_PROFILE: 'staging' });
    const active = (override?: string) =>
      listProfiles(t.env, override)
        .filter((p) => p.active)
        .map((p) => p.name);
    expect(active()).toEqual(['staging']);
    expect(active('sandbox')).toEqual(['sandbox']);
    expect(active()).toEqual([resolveSettings({}, t.env, readConfigFile(t.env)).profile]);
  });

  it('refuses an unknown profile as the override, listing the known ones', () => {
    const t = configured();
    const error = thrown(() => listProfiles(t.env, 'gamma'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('no profile "gamma" (known: prod, staging, sandbox)');
  });
});

describe('getSetting', () => {
  it("gives a profile's settings, with defaults for what is not stored", () => {
    const t = configured();
    expect(getSetting(t.env, 'prod', 'base-url')).toBe('https://fraud.example.com');
    expect(getSetting(t.env, 'prod', 'timeout')).toBe('10');
    expect(getSetting(t.env, 'staging', 'timeout')).toBe('30');
    expect(getSetting(t.env, 'staging', 'retries')).toBe('3');
    expect(getSetting(t.env, 'sandbox', 'base-url')).toBe('(embedded sandbox)');
  });

  it('gives the API key only redacted', () => {
    const t = configured();
    expect(getSetting(t.env, 'prod', 'api-key')).toBe('****ABCD');
    expect(getSetting(t.env, 'sandbox', 'api-key')).toBe('(sandbox default)');
    setSetting(t.env, 'nokey', 'base-url', 'https://x.example.com');
    expect(getSetting(t.env, 'nokey', 'api-key')).toBe('(none)');
  });

  it('says how to set a base URL that is missing', () => {
    const t = configured();
    setSetting(t.env, 'fresh', 'base-url', 'https://fresh.example.com');
    unsetSetting(t.env, 'fresh', 'base-url');
    const error = thrown(() => getSetting(t.env, 'fresh', 'base-url'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.hint).toBe('set it with: fraudctl config set base-url URL --profile fresh');
  });

  it('refuses an unknown profile and an unknown setting', () => {
    const t = configured();
    expect(thrown(() => getSetting(t.env, 'gamma', 'timeout')).message).toBe(
      'no profile "gamma" (known: prod, staging, sandbox)',
    );
    const error = thrown(() => getSetting(t.env, 'prod', 'colour' as SettingKey));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      'unknown setting "colour" (known: base-url, timeout, retries, insecure-http, analyst, reasons, require-reason, api-key)',
    );
  });
});

describe('a new base URL for a profile with a stored key (keyMoveOf)', () => {
  it('is a move of the key only when the URL is another service; the same URL written otherwise, or no key, is none', () => {
    const t = configured();
    expect(keyMoveOf(t.env, 'prod', 'https://eu.example.com/')).toEqual({
      profile: 'prod',
      from: 'https://fraud.example.com',
      to: 'https://eu.example.com',
      keptIn: 'file',
    });
    expect(keyMoveOf(t.env, 'prod', 'HTTPS://FRAUD.example.com:443/')).toBeNull();
    expect(keyMoveOf(t.env, 'fresh', 'https://eu.example.com')).toBeNull();
    expect(thrown(() => keyMoveOf(t.env, 'sandbox', 'https://eu.example.com'))).toBeInstanceOf(UsageError);
    expect(thrown(() => keyMoveOf(t.env, 'prod', 'ftp://x'))).toBeInstanceOf(UsageError);
  });

  it('is made only as agreed: a profile changed after the question, or a move nobody agreed to, changes nothing', () => {
    const t = configured();
    const move = keyMoveOf(t.env, 'prod', 'https://eu.example.com');
    // Another process moved prod meanwhile: the answer was about another URL.
    setSetting(
      t.env,
      'prod',
      'base-url',
      'https://fraud.example.com/v2',
      keyMoveOf(t.env, 'prod', 'https://fraud.example.com/v2'),
    );
    const error = thrown(() => setSetting(t.env, 'prod', 'base-url', 'https://eu.example.com', move));
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toBe('nothing was changed: profile "prod" was changed by another command meanwhile');
    expect(thrown(() => setSetting(t.env, 'staging', 'base-url', 'https://eu.example.com'))).toBeInstanceOf(CliError);
    expect(readConfigFile(t.env).profiles.prod?.baseUrl).toBe('https://fraud.example.com/v2');
    expect(readConfigFile(t.env).profiles.staging?.baseUrl).toBe('https://staging.example.com');
  });
});

describe('setSetting', () => {
  it('creates the file (0600, directory 0700) and the profile', () => {
    notOnWindows(ON_WINDOWS.modes);
    const t = tempEnv();
    setSetting(t.env, 'prod', 'base-url', 'https://fraud.example.com/');
    expect(modeOf(t.configPath)).toBe(0o600);
    expect(modeOf(t.configDir)).toBe(0o700);
    expect(readConfigFile(t.env)).toEqual({ profiles: { prod: { baseUrl: 'https://fraud.example.com' } } });
  });

  it('changes one setting and keeps the others, the key included', () => {
    const t = configured();
    setSetting(t.env, 'prod', 'timeout', '2.5');
    setSetting(t.env, 'prod', 'retries', '0');
    expect(readConfigFile(t.env).profiles.prod).toEqual({
      baseUrl: 'https://fraud.example.com',
      apiKey: PROD_KEY,
      timeoutSeconds: 2.5,
      retries: 0,
    });
    expect(readConfigFile(t.env).profiles.staging).toEqual({
      baseUrl: 'https://staging.example.com',
      apiKey: STAGING_KEY,
    });
    expect(readConfigFile(t.env).activeProfile).toBe('prod');
  });

  it('makes a 0644 file 0600 again', () => {
    notOnWindows(ON_WINDOWS.modes);
    const t = configured();
    chmodSync(t.configPath, 0o644);
    setSetting(t.env, 'prod', 'retries', '2');
    expect(modeOf(t.configPath)).toBe(0o600);
    expect(readdirSync(t.configDir)).toEqual(['config.json']);
  });

  it('takes effect in resolveSettings', () => {
    const t = tempEnv();
    setSetting(t.env, 'sandbox', 'timeout', '7');
    setSetting(t.env, 'sandbox', 'retries', '4');
    expect(resolveSettings({}, t.env, readConfigFile(t.env))).toMatchObject({
      profile: 'sandbox',
      baseUrl: null,
      timeoutMs: 7_000,
      retries: 4,
    });
  });

  it.each([
    [
      'base-url',
      'not a url',
      'base-url must be an absolute http:// or https:// URL, such as https://fraud.example.com (got "not a url")',
    ],
    [
      'base-url',
      'https://u:p4ss@x.example.com',
      'base-url must not contain a user name or password: the key is stored with fraudctl login (got "https://***@x.example.com")',
    ],
    ['timeout', 'abc', 'timeout must be a positive number of seconds, at most 86400 (got "abc")'],
    ['timeout', '0', 'timeout must be a positive number of seconds, at most 86400 (got "0")'],
    ['retries', '11', 'retries must be a whole number from 0 to 10 (got "11")'],
    ['retries', '1.5', 'retries must be a whole number from 0 to 10 (got "1.5")'],
  ] as const)('refuses %s %s and writes nothing', (key, value, message) => {
    const t = configured();
    const before = readFileSync(t.configPath, 'utf8');
    const error = thrown(() => setSetting(t.env, 'prod', key, value));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(message);
    expect(readFileSync(t.configPath, 'utf8')).toBe(before);
  });

  it('refuses api-key, pointing at login, without saving or repeating the value', () => {
    const t = tempEnv();
    const error = thrown(() => setSetting(t.env, 'prod', 'api-key' as SettingKey, 'typed-secret-key-123456'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      'the API key is not set with config set: run fraudctl login --profile prod (it reads the key without putting it in your shell history)',
    );
    expect(`${error.message} ${error.hint ?? ''}`).not.toContain('typed-secret');
    expect(existsSync(t.configPath)).toBe(false);
  });

  it('refuses an unknown setting, listing the known ones', () => {
    const t = tempEnv();
    const error = thrown(() => setSetting(t.env, 'prod', 'timout' as SettingKey, '3'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      'unknown setting "timout" (known: base-url, timeout, retries, insecure-http, analyst, reasons, require-reason)',
    );
  });

  it('refuses a base URL for the built-in sandbox profile', () => {
    const t = tempEnv();
    const error = thrown(() => setSetting(t.env, 'sandbox', 'base-url', 'https://x.example.com'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/sandbox.*has no base URL/);
    expect(existsSync(t.configPath)).toBe(false);
  });

  it('refuses a profile name that cannot be one', () => {
    const t = tempEnv();
    expect(thrown(() => setSetting(t.env, '../etc', 'timeout', '3')).message).toBe(
      'profile name must be 1 to 64 letters, digits, _ or - (got "../etc")',
    );
  });
});

describe('unsetSetting', () => {
  it('removes a setting so that the default applies again', () => {
    const t = configured();
    unsetSetting(t.env, 'prod', 'timeout');
    expect(getSetting(t.env, 'prod', 'timeout')).toBe('30');
    expect(readConfigFile(t.env).profiles.prod).toEqual({
      baseUrl: 'https://fraud.example.com',
      apiKey: PROD_KEY,
      retries: 1,
    });
  });

  it('forgets a stored key with api-key', () => {
    const t = configured();
    unsetSetting(t.env, 'prod', 'api-key');
    expect(getSetting(t.env, 'prod', 'api-key')).toBe('(none)');
    expect(readFileSync(t.configPath, 'utf8')).not.toContain(PROD_KEY);
  });

  it('does nothing for something not set, or the sandbox with nothing stored', () => {
    const t = tempEnv();
    unsetSetting(t.env, 'sandbox', 'timeout');
    expect(existsSync(t.configPath)).toBe(false);
  });

  it('refuses an unknown profile', () => {
    const t = configured();
    expect(thrown(() => unsetSetting(t.env, 'gamma', 'timeout'))).toBeInstanceOf(UsageError);
  });
});

describe('useProfile', () => {
  it('makes a profile the active one', () => {
    notOnWindows(ON_WINDOWS.modes);
    const t = configured();
    useProfile(t.env, 'staging');
    expect(readConfigFile(t.env).activeProfile).toBe('staging');
    expect(resolveSettings({}, t.env, readConfigFile(t.env)).profile).toBe('staging');
    expect(modeOf(t.configPath)).toBe(0o600);
  });

  it('accepts the built-in sandbox', () => {
    const t = configured();
    useProfile(t.env, 'sandbox');
    expect(resolveSettings({}, t.env, readConfigFile(t.env))).toMatchObject({ profile: 'sandbox', isSandbox: true });
  });

  it('repairs an active profile that no longer exists', () => {
    const t = tempEnv();
    writeConfigFile(t.env, { activeProfile: 'gone', profiles: { prod: { baseUrl: 'https://fraud.example.com' } } });
    useProfile(t.env, 'prod');
    expect(resolveSettings({}, t.env, readConfigFile(t.env)).profile).toBe('prod');
  });

  it('refuses a profile that does not exist, saying how to create it', () => {
    const t = configured();
    const error = thrown(() => useProfile(t.env, 'gamma'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('no profile "gamma" (known: prod, staging, sandbox)');
    expect(error.hint).toBe('to create it: fraudctl login --profile gamma --base-url URL');
    expect(readConfigFile(t.env).activeProfile).toBe('prod');
  });
});

describe('saveApiKey', () => {
  it('stores the key and the URL in a new profile, file 0600', () => {
    notOnWindows(ON_WINDOWS.modes);
    const t = tempEnv();
    saveApiKey(t.env, 'prod', PROD_KEY, 'https://fraud.example.com/');
    expect(readConfigFile(t.env).profiles.prod).toEqual({ baseUrl: 'https://fraud.example.com', apiKey: PROD_KEY });
    expect(modeOf(t.configPath)).toBe(0o600);
    expect(resolveSettings({ profile: 'prod' }, t.env, readConfigFile(t.env))).toMatchObject({
      apiKey: PROD_KEY,
      apiKeySource: 'profile',
      baseUrl: 'https://fraud.example.com',
    });
  });

  it('replaces the key of an existing profile and keeps its other settings; a 0644 file becomes 0600', () => {
    notOnWindows(ON_WINDOWS.modes);
    const t = configured();
    chmodSync(t.configPath, 0o644);
    saveApiKey(t.env, 'prod', 'rotated-key-000000001111');
    expect(readConfigFile(t.env).profiles.prod).toEqual({
      baseUrl: 'https://fraud.example.com',
      apiKey: 'rotated-key-000000001111',
      timeoutSeconds: 10,
      retries: 1,
    });
    expect(modeOf(t.configPath)).toBe(0o600);
  });

  it('stores a key for the built-in sandbox, but not a URL', () => {
    const t = tempEnv();
    saveApiKey(t.env, 'sandbox', 'sandbox-own-key-1234');
    expect(resolveSettings({}, t.env, readConfigFile(t.env))).toMatchObject({
      profile: 'sandbox',
      apiKey: 'sandbox-own-key-1234',
      apiKeySource: 'profile',
      isSandbox: true,
    });
    expect(thrown(() => saveApiKey(t.env, 'sandbox', 'sandbox-own-key-1234', 'http://127.0.0.1:4010'))).toBeInstanceOf(
      UsageError,
    );
  });

  it('refuses a key with spaces or line breaks without repeating it', () => {
    const t = tempEnv();
    const error = thrown(() => saveApiKey(t.env, 'prod', 'secret-part\nother-part', 'https://fraud.example.com'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).not.toContain('secret-part');
    expect(existsSync(t.configPath)).toBe(false);
  });
});

describe('the keys', () => {
  it('config set knows base-url, timeout, retries, insecure-http, analyst, reasons and require-reason; get and unset also api-key', () => {
    expect(SETTING_KEYS).toEqual([
      'base-url',
      'timeout',
      'retries',
      'insecure-http',
      'analyst',
      'reasons',
      'require-reason',
    ]);
    expect(CONFIG_KEYS).toEqual([
      'base-url',
      'timeout',
      'retries',
      'insecure-http',
      'analyst',
      'reasons',
      'require-reason',
      'api-key',
    ]);
  });
});
