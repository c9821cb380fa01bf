import { describe, expect, it } from 'vitest';
import { CliError, ExitCode, UsageError } from '../../src/errors/cli-error.js';
import { configFilePath, readConfigFile, writeConfigFile, type ConfigFile } from '../../src/profiles/config-file.js';
import { profileActedOn, requireApiKey, resolveSettings } from '../../src/profiles/settings.js';
import { SANDBOX_DEFAULT_KEY } from '../../src/profiles/value-rules.js';
import { WELL_KNOWN_SANDBOX_KEY } from '../../src/sandbox/config/sandbox-config.js';
import { tempEnv, thrown } from './temp-env.js';

const HOME: NodeJS.ProcessEnv = { XDG_CONFIG_HOME: '/nonexistent-fraudctl-test', HOME: '/nonexistent-fraudctl-test' };
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...HOME, ...extra });
const none: ConfigFile = { profiles: {} };

const file: ConfigFile = {
  profiles: {
    alpha: { baseUrl: 'https://alpha.example.com', apiKey: 'alpha-key-0123456789', timeoutSeconds: 20, retries: 5 },
    beta: { baseUrl: 'https://beta.example.com/' },
    default: { baseUrl: 'https://default.example.com' },
  },
};

describe('with nothing configured', () => {
  it('uses the built-in sandbox: embedded, with its demo key, 30 s and 3 retries', () => {
    expect(resolveSettings({}, {}, none)).toEqual({
      profile: 'sandbox',
      baseUrl: null,
      apiKey: WELL_KNOWN_SANDBOX_KEY,
      apiKeySource: 'sandbox-default',
      credentialAccount: null,
      timeoutMs: 30_000,
      retries: 3,
      isSandbox: true,
      insecureHttp: false,
      analyst: null,
      reasons: [],
      requireReason: false,
      sources: { profile: 'default', baseUrl: 'default', apiKey: 'default', timeout: 'default', retries: 'default' },
    });
  });

  it('uses the same demo key as the sandbox itself', () => {
    expect(SANDBOX_DEFAULT_KEY).toBe(WELL_KNOWN_SANDBOX_KEY);
  });

  it('gives the embedded sandbox FRAUDCTL_SANDBOX_KEY when it is set', () => {
    const s = resolveSettings({}, env({ FRAUDCTL_SANDBOX_KEY: 'my-sandbox-key-123' }), none);
    expect(s).toMatchObject({ apiKey: 'my-sandbox-key-123', apiKeySource: 'sandbox-default', isSandbox: true });
  });

  it('takes variables set to the empty string as unset', () => {
    const s = resolveSettings(
      {},
      env({
        FRAUDCTL_PROFILE: '',
        FRAUDCTL_BASE_URL: '',
        FRAUDCTL_API_KEY: '',
        FRAUDCTL_TIMEOUT: '',
        FRAUDCTL_SANDBOX_KEY: '',
      }),
      none,
    );
    expect(s).toMatchObject({ profile: 'sandbox', baseUrl: null, apiKey: WELL_KNOWN_SANDBOX_KEY, timeoutMs: 30_000 });
  });
});

describe('which profile', () => {
  const withActive: ConfigFile = { ...file, activeProfile: 'beta' };

  it('--profile beats FRAUDCTL_PROFILE', () => {
    expect(resolveSettings({ profile: 'alpha' }, env({ FRAUDCTL_PROFILE: 'beta' }), withActive).profile).toBe('alpha');
  });
  it('FRAUDCTL_PROFILE beats the active profile of the file', () => {
    expect(resolveSettings({}, env({ FRAUDCTL_PROFILE: 'alpha' }), withActive).profile).toBe('alpha');
  });
  it('the active profile of the file beats a profile called default', () => {
    expect(resolveSettings({}, env(), withActive).profile).toBe('beta');
  });
  it('a profile called default beats the built-in sandbox', () => {
    expect(resolveSettings({}, env(), file).profile).toBe('default');
    const noDefault = Object.fromEntries(Object.entries(file.profiles).filter(([name]) => name !== 'default'));
    expect(resolveSettings({}, env(), { profiles: noDefault }).profile).toBe('sandbox');
  });

  it('the built-in sandbox can be named without being in the file', () => {
    const s = resolveSettings({ profile: 'sandbox' }, env(), file);
    expect(s).toMatchObject({ profile: 'sandbox', baseUrl: null, isSandbox: true });
    expect(resolveSettings({}, env(), { ...file, activeProfile: 'sandbox' }).profile).toBe('sandbox');
  });

  it.each([
    ['--profile', { profile: 'gamma' }, {}],
    ['FRAUDCTL_PROFILE', {}, { FRAUDCTL_PROFILE: 'gamma' }],
  ])('refuses an unknown profile named by %s, listing the known ones and how to create it', (_source, flags, extra) => {
    const error = thrown(() => resolveSettings(flags, env(extra), file));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('no profile "gamma" (known: alpha, beta, default, sandbox)');
    expect(error.hint).toBe('to create it: fraudctl login --profile gamma --base-url URL');
  });

  it('does not take Object.prototype members for profiles', () => {
    expect(thrown(() => resolveSettings({ profile: 'constructor' }, env(), file)).message).toMatch(
      /^no profile "constructor"/,
    );
  });

  it('refuses a profile name that cannot be one, saying where it came from', () => {
    expect(thrown(() => resolveSettings({ profile: 'my prod' }, env(), file)).message).toBe(
      '--profile must be 1 to 64 letters, digits, _ or - (got "my prod")',
    );
    expect(thrown(() => resolveSettings({}, env({ FRAUDCTL_PROFILE: 'a/b' }), file)).message).toMatch(
      /^FRAUDCTL_PROFILE must be/,
    );
  });

  it('refuses an active profile that is not in the file, saying how to choose another', () => {
    const error = thrown(() => resolveSettings({}, env(), { ...file, activeProfile: 'gone' }));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      `the active profile "gone" (activeProfile in ${configFilePath(env())}) does not exist (known: alpha, beta, default, sandbox)`,
    );
    expect(error.hint).toBe('choose one with: fraudctl config use NAME');
  });
});

describe('the service URL', () => {
  it('--base-url beats FRAUDCTL_BASE_URL', () => {
    expect(
      resolveSettings(
        { profile: 'alpha', baseUrl: 'https://flag.example.com' },
        env({ FRAUDCTL_BASE_URL: 'https://env.example.com' }),
        file,
      ).baseUrl,
    ).toBe('https://flag.example.com');
  });
  it('FRAUDCTL_BASE_URL beats the profile', () => {
    expect(
      resolveSettings({ profile: 'alpha' }, env({ FRAUDCTL_BASE_URL: 'https://env.example.com' }), file).baseUrl,
    ).toBe('https://env.example.com');
  });
  it('the profile beats the embedded sandbox', () => {
    const s = resolveSettings({ profile: 'alpha' }, env(), file);
    expect(s).toMatchObject({ baseUrl: 'https://alpha.example.com', isSandbox: false });
  });

  it('loses a trailing slash, keeps a path', () => {
    expect(resolveSettings({ profile: 'beta' }, env(), file).baseUrl).toBe('https://beta.example.com');
    expect(resolveSettings({ baseUrl: 'http://127.0.0.1:8080/fraud/v1/' }, env(), none).baseUrl).toBe(
      'http://127.0.0.1:8080/fraud/v1',
    );
  });

  it('points the sandbox profile at a running service when given one (no longer embedded)', () => {
    const s = resolveSettings({}, env({ FRAUDCTL_BASE_URL: 'http://127.0.0.1:4010' }), none);
    expect(s).toMatchObject({
      profile: 'sandbox',
      baseUrl: 'http://127.0.0.1:4010',
      isSandbox: false,
      apiKey: null,
      apiKeySource: null,
    });
  });

  it('refuses a profile other than sandbox with no URL anywhere, saying how to set it', () => {
    const error = thrown(() =>
      resolveSettings({ profile: 'empty' }, env(), { profiles: { empty: { apiKey: 'k-0123456789ab' } } }),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('profile "empty" has no service URL');
    expect(error.hint).toBe('set it with: fraudctl config set base-url URL --profile empty');
  });

  it.each([
    ['not a URL', 'fraud.example.com', 'must be an absolute http:// or https:// URL'],
    ['not http(s)', 'ftp://fraud.example.com', 'must be an absolute http:// or https:// URL'],
    ['with a query', 'https://fraud.example.com/?debug=1', 'must not have a query'],
    ['with credentials', 'https://admin:hunter2@fraud.example.com', 'must not contain a user name or password'],
  ])('refuses a URL %s, naming --base-url or FRAUDCTL_BASE_URL', (_name, url, problem) => {
    const fromFlag = thrown(() => resolveSettings({ baseUrl: url }, env(), none));
    expect(fromFlag).toBeInstanceOf(UsageError);
    expect(fromFlag.message).toMatch(new RegExp(`^--base-url ${problem.replace(/[?()]/g, '\\$&')}`));
    const fromEnv = thrown(() => resolveSettings({}, env({ FRAUDCTL_BASE_URL: url }), none));
    expect(fromEnv.message).toMatch(new RegExp(`^FRAUDCTL_BASE_URL ${problem.replace(/[?()]/g, '\\$&')}`));
  });

  it('never repeats a password from a URL in its message', () => {
    const error = thrown(() => resolveSettings({ baseUrl: 'https://admin:hunter2@fraud.example.com' }, env(), none));
    expect(error.message).not.toContain('hunter2');
    expect(error.message).toContain('https://***@fraud.example.com');
  });

  it('names the config file for a bad URL that came from it', () => {
    const error = thrown(() =>
      resolveSettings({ profile: 'bad' }, env(), { profiles: { bad: { baseUrl: 'gopher://x' } } }),
    );
    expect(error.message).toBe(
      `profile "bad" baseUrl (config file ${configFilePath(env())}) must be an absolute http:// or https:// URL, such as https://fraud.example.com (got "gopher://x")`,
    );
  });
});

describe('the API key', () => {
  it('FRAUDCTL_API_KEY beats the profile', () => {
    expect(resolveSettings({ profile: 'alpha' }, env({ FRAUDCTL_API_KEY: 'env-key-0123456789' }), file)).toMatchObject({
      apiKey: 'env-key-0123456789',
      apiKeySource: 'env',
    });
  });
  it('the profile beats the sandbox default', () => {
    const f: ConfigFile = { profiles: { sandbox: { apiKey: 'stored-sandbox-key' } } };
    expect(resolveSettings({}, env({ FRAUDCTL_SANDBOX_KEY: 'from-env-sandbox' }), f)).toMatchObject({
      apiKey: 'stored-sandbox-key',
      apiKeySource: 'profile',
      isSandbox: true,
    });
  });
  it('FRAUDCTL_API_KEY beats the sandbox default too', () => {
    expect(resolveSettings({}, env({ FRAUDCTL_API_KEY: 'env-key-0123456789' }), none)).toMatchObject({
      apiKey: 'env-key-0123456789',
      apiKeySource: 'env',
      isSandbox: true,
    });
  });
  it('refuses a FRAUDCTL_API_KEY with a line break, without repeating it', () => {
    const error = thrown(() => resolveSettings({}, env({ FRAUDCTL_API_KEY: 'env-secret-key-0123\r' }), none));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      'FRAUDCTL_API_KEY must be a non-empty string of printable characters without spaces or line breaks',
    );
    expect(`${error.message}${error.hint}`).not.toContain('env-secret');
  });
  it('a key in the credential store is not read to resolve the settings: its entry is, and FRAUDCTL_API_KEY beats it', () => {
    const f: ConfigFile = {
      profiles: {
        kept: {
          baseUrl: 'https://kept.example.com',
          credentialStore: { service: 'fraudctl', account: 'kept@https://kept.example.com' },
        },
      },
    };
    expect(resolveSettings({ profile: 'kept' }, env(), f)).toMatchObject({
      apiKey: null,
      apiKeySource: 'credential-store',
      credentialAccount: 'kept@https://kept.example.com',
      sources: { apiKey: 'credential-store' },
    });
    expect(resolveSettings({ profile: 'kept' }, env({ FRAUDCTL_API_KEY: 'env-key-0123456789' }), f)).toMatchObject({
      apiKey: 'env-key-0123456789',
      apiKeySource: 'env',
      credentialAccount: null,
    });
    // Never the sandbox's key in its place either.
    const sandbox: ConfigFile = {
      profiles: { sandbox: { credentialStore: { service: 'fraudctl', account: 'sandbox@embedded-sandbox' } } },
    };
    expect(resolveSettings({}, env(), sandbox)).toMatchObject({
      apiKey: null,
      apiKeySource: 'credential-store',
      isSandbox: true,
    });
  });
  it('is null for a real service with no key anywhere (not an error yet)', () => {
    expect(resolveSettings({ profile: 'beta' }, env(), file)).toMatchObject({ apiKey: null, apiKeySource: null });
  });

  it('requireApiKey gives the key, or says how to log in (exit 3)', () => {
    expect(requireApiKey(resolveSettings({ profile: 'alpha' }, env(), file))).toBe('alpha-key-0123456789');
    const error = thrown(() => requireApiKey(resolveSettings({ profile: 'beta' }, env(), file)));
    expect(error).toBeInstanceOf(CliError);
    expect(error).not.toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(ExitCode.AUTH);
    expect(error.message).toBe('no API key for profile "beta"');
    expect(error.hint).toBe('run: fraudctl login --profile beta (or set FRAUDCTL_API_KEY)');
  });
});

describe("a stored key is bound to its profile's URL", () => {
  const bound: ConfigFile = {
    profiles: {
      prod: { baseUrl: 'https://fraud.example.com/v1', apiKey: 'prod-key-0123456789' },
      staging: { baseUrl: 'https://staging.example.com' },
      kept: {
        baseUrl: 'https://kept.example.com',
        credentialStore: { service: 'fraudctl', account: 'kept@https://kept.example.com' },
      },
      nourl: { apiKey: 'nourl-key-0123456789' },
      sandbox: { apiKey: 'stored-sandbox-key' },
    },
  };
  const refusal = (flags: Parameters<typeof resolveSettings>[0], extra: NodeJS.ProcessEnv = {}) =>
    resolveSettings(flags, env(extra), bound).keyRefusal;

  it.each([
    ['scheme and host in capitals', 'HTTPS://FRAUD.Example.COM/v1'],
    ['a trailing slash', 'https://fraud.example.com/v1/'],
    ['the default port written out', 'https://fraud.example.com:443/v1'],
    ['a dot segment', 'https://fraud.example.com/x/../v1'],
  ])("the profile's own URL written with %s is the same service: the key is sent", (_what, url) => {
    expect(refusal({ profile: 'prod' }, { FRAUDCTL_BASE_URL: url })).toBeUndefined();
    expect(requireApiKey(resolveSettings({ profile: 'prod', baseUrl: url }, env(), bound))).toBe('prod-key-0123456789');
  });

  it.each([
    ['another host', 'https://staging.example.com'],
    ['another port', 'https://fraud.example.com:8443/v1'],
    ['http instead of https', 'http://fraud.example.com/v1'],
    ['another path (paths are case-sensitive)', 'https://fraud.example.com/V1'],
  ])('%s is another service: refused (exit 2), the key not given out', (_what, url) => {
    const s = resolveSettings({ profile: 'prod' }, env({ FRAUDCTL_BASE_URL: url }), bound);
    expect(s.apiKey).toBeNull();
    expect(s.keyRefusal).toBeInstanceOf(UsageError);
    expect(s.keyRefusal?.message).toContain('(from FRAUDCTL_BASE_URL)');
    expect(thrown(() => requireApiKey(s))).toBe(s.keyRefusal);
    expect(`${s.keyRefusal?.message}${s.keyRefusal?.hint}`).not.toContain('prod-key');
  });

  it('names the profile made for the URL in force, and from a flag says to leave it out', () => {
    const error = refusal({ profile: 'prod', baseUrl: 'https://staging.example.com/' });
    expect(error?.message).toBe(
      'profile "prod" keeps its API key for https://fraud.example.com/v1, not for https://staging.example.com (from --base-url): a stored key is sent only to its profile\'s URL, and nothing was sent',
    );
    expect(error?.hint).toBe(
      "use the profile for https://staging.example.com: --profile staging; give a key for https://staging.example.com in FRAUDCTL_API_KEY; leave out --base-url to go to the profile's own URL; or move the profile and its key there on purpose: fraudctl config set base-url https://staging.example.com --profile prod",
    );
  });

  it('binds a key in the credential store the same way (its entry is not even named)', () => {
    const s = resolveSettings({ profile: 'kept' }, env({ FRAUDCTL_BASE_URL: 'https://staging.example.com' }), bound);
    expect(s).toMatchObject({ apiKey: null, apiKeySource: 'credential-store', credentialAccount: null });
    expect(s.keyRefusal?.message).toMatch(
      /^profile "kept" keeps its API key for https:\/\/kept\.example\.com, not for/,
    );
  });

  it("the built-in sandbox profile's stored key is for the embedded sandbox only; its default key needs nothing configured", () => {
    const error = refusal({}, { FRAUDCTL_BASE_URL: 'http://127.0.0.1:4010' });
    expect(error?.message).toBe(
      'profile "sandbox" keeps its API key for the embedded sandbox, not for http://127.0.0.1:4010 (from FRAUDCTL_BASE_URL): a stored key is sent only to its profile\'s URL, and nothing was sent',
    );
    expect(error?.hint).not.toContain('config set base-url');
    expect(error?.hint).toContain('go to the embedded sandbox: unset FRAUDCTL_BASE_URL');
    expect(resolveSettings({}, env(), bound)).toMatchObject({ apiKey: 'stored-sandbox-key', isSandbox: true });
    expect(resolveSettings({}, env(), none).keyRefusal).toBeUndefined();
    expect(requireApiKey(resolveSettings({}, env(), none))).toBe(SANDBOX_DEFAULT_KEY);
  });

  it('a profile with a key and no URL sends it nowhere', () => {
    expect(refusal({ profile: 'nourl' }, { FRAUDCTL_BASE_URL: 'https://fraud.example.com/v1' })?.message).toMatch(
      /^profile "nourl" keeps an API key but no URL it is for, so it is not sent to https:/,
    );
  });

  it('a key from FRAUDCTL_API_KEY goes where the user says: no refusal', () => {
    expect(
      refusal(
        { profile: 'prod' },
        { FRAUDCTL_BASE_URL: 'https://staging.example.com', FRAUDCTL_API_KEY: 'env-key-0123456789' },
      ),
    ).toBeUndefined();
    expect(refusal({ profile: 'staging' }, { FRAUDCTL_BASE_URL: 'https://fraud.example.com/v1' })).toBeUndefined();
  });
});

describe('the timeout', () => {
  const f: ConfigFile = { profiles: { p: { baseUrl: 'https://p.example.com', timeoutSeconds: 20 } } };

  it('--timeout beats FRAUDCTL_TIMEOUT', () => {
    expect(resolveSettings({ profile: 'p', timeoutSeconds: 5 }, env({ FRAUDCTL_TIMEOUT: '10' }), f).timeoutMs).toBe(
      5_000,
    );
  });
  it('FRAUDCTL_TIMEOUT beats the profile', () => {
    expect(resolveSettings({ profile: 'p' }, env({ FRAUDCTL_TIMEOUT: '10' }), f).timeoutMs).toBe(10_000);
  });
  it('the profile beats the default of 30 s', () => {
    expect(resolveSettings({ profile: 'p' }, env(), f).timeoutMs).toBe(20_000);
    expect(resolveSettings({}, env(), none).timeoutMs).toBe(30_000);
  });
  it('takes fractions of a second', () => {
    expect(resolveSettings({ timeoutSeconds: 0.25 }, env(), none).timeoutMs).toBe(250);
    expect(resolveSettings({}, env({ FRAUDCTL_TIMEOUT: ' 1.5 ' }), none).timeoutMs).toBe(1_500);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 86_401])('refuses --timeout %s, naming the flag', (value) => {
    const error = thrown(() => resolveSettings({ timeoutSeconds: value }, env(), none));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/^--timeout must be a positive number of seconds, at most 86400 \(got .+\)$/);
  });

  it.each(['abc', '0', '-5', '1e3', '0x10', '30s', 'Infinity'])(
    'refuses FRAUDCTL_TIMEOUT=%s, naming the variable',
    (value) => {
      const error = thrown(() => resolveSettings({}, env({ FRAUDCTL_TIMEOUT: value }), none));
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toBe(
        `FRAUDCTL_TIMEOUT must be a positive number of seconds, at most 86400 (got ${JSON.stringify(value)})`,
      );
      expect(error.hint).toMatch(/FRAUDCTL_TIMEOUT=10/);
    },
  );

  it('a bad FRAUDCTL_TIMEOUT does not matter when --timeout is given', () => {
    expect(resolveSettings({ timeoutSeconds: 3 }, env({ FRAUDCTL_TIMEOUT: 'abc' }), none).timeoutMs).toBe(3_000);
  });

  it('names the config file for a bad timeout that came from it', () => {
    const error = thrown(() => resolveSettings({}, env(), { profiles: { sandbox: { timeoutSeconds: -3 } } }));
    expect(error.message).toMatch(
      /^profile "sandbox" timeoutSeconds \(config file .*config\.json\) must be a positive number/,
    );
  });
});

describe('retries', () => {
  it('come from the profile, else 3', () => {
    expect(resolveSettings({ profile: 'alpha' }, env(), file).retries).toBe(5);
    expect(resolveSettings({ profile: 'beta' }, env(), file).retries).toBe(3);
    expect(resolveSettings({}, env(), { profiles: { sandbox: { retries: 0 } } }).retries).toBe(0);
  });
  it('must be a whole number from 0 to 10', () => {
    expect(thrown(() => resolveSettings({}, env(), { profiles: { sandbox: { retries: 11 } } })).message).toMatch(
      /retries .*must be a whole number from 0 to 10/,
    );
  });
});

describe('from a file on disk', () => {
  it('resolves what readConfigFile reads', () => {
    const t = tempEnv();
    writeConfigFile(t.env, {
      activeProfile: 'prod',
      profiles: {
        prod: { baseUrl: 'https://fraud.example.com/', apiKey: 'prod-key-0123456789', timeoutSeconds: 8, retries: 1 },
      },
    });
    expect(resolveSettings({}, t.env, readConfigFile(t.env))).toEqual({
      profile: 'prod',
      baseUrl: 'https://fraud.example.com',
      apiKey: 'prod-key-0123456789',
      apiKeySource: 'profile',
      credentialAccount: null,
      timeoutMs: 8_000,
      retries: 1,
      isSandbox: false,
      insecureHttp: false,
      analyst: null,
      reasons: [],
      requireReason: false,
      sources: { profile: 'file', baseUrl: 'file', apiKey: 'file', timeout: 'file', retries: 'file' },
    });
  });

  it('says where each setting came from: flag over environment over file over default', () => {
    const t = tempEnv();
    writeConfigFile(t.env, {
      activeProfile: 'prod',
      profiles: { prod: { baseUrl: 'https://fraud.example.com/', apiKey: 'prod-key-0123456789' } },
    });
    const s = resolveSettings(
      { timeoutSeconds: 5 },
      { ...t.env, FRAUDCTL_BASE_URL: 'https://other.example.com', FRAUDCTL_API_KEY: 'env-key-0123456789' },
      readConfigFile(t.env),
    );
    expect(s.sources).toEqual({ profile: 'file', baseUrl: 'env', apiKey: 'env', timeout: 'flag', retries: 'default' });
  });
});

describe('profileActedOn (login, logout, config)', () => {
  it('takes --profile, then FRAUDCTL_PROFILE, an empty one counting as not given', () => {
    expect(profileActedOn('alpha', env({ FRAUDCTL_PROFILE: 'beta' }), 'active')).toBe('alpha');
    expect(profileActedOn('', env({ FRAUDCTL_PROFILE: 'beta' }), 'active')).toBe('beta');
    expect(profileActedOn(undefined, env({ FRAUDCTL_PROFILE: 'beta' }), 'default')).toBe('beta');
  });

  it('otherwise "default" for login, and the profile in force for the others', () => {
    const t = tempEnv({ FRAUDCTL_PROFILE: '' });
    writeConfigFile(t.env, { activeProfile: 'beta', profiles: { beta: { baseUrl: 'https://beta.example.com' } } });
    expect(profileActedOn(undefined, t.env, 'default')).toBe('default');
    expect(profileActedOn('', t.env, 'active')).toBe('beta');
    expect(profileActedOn(undefined, tempEnv().env, 'active')).toBe('sandbox');
  });

  it('does not check a name it is given (the verb does), but does check the active one it reads', () => {
    expect(profileActedOn('no such/name', env(), 'active')).toBe('no such/name');
    const t = tempEnv();
    writeConfigFile(t.env, { activeProfile: 'gone', profiles: {} });
    expect(thrown(() => profileActedOn(undefined, t.env, 'active')).message).toMatch(
      /the active profile "gone" .* does not exist/,
    );
  });
});
