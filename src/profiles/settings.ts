import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { configFilePath, readConfigFile, type ConfigFile, type ProfileConfig } from './config-file.js';
import {
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  SANDBOX_DEFAULT_KEY,
  SANDBOX_PROFILE,
  checkApiKey,
  checkBaseUrl,
  checkProfileName,
  checkRetries,
  checkTimeoutSeconds,
  ownProfile,
  parseTimeoutSeconds,
  quote,
  orThrow,
  normalisedBaseUrl,
  sameServiceUrl,
  showUrl,
} from './value-rules.js';
import { terminalSafe } from '../render/terminal-text.js';
import { setEnvCommand, shellCommand, unsetEnvCommand } from '../render/shell-command.js';
import { closest, distance } from 'fastest-levenshtein';
import { storedReasons, type ReasonCode } from './reason-codes.js';

/*
 * The settings of one run. Each comes from the first place that has it:
 * flags > environment > config file > built-in defaults. With nothing configured at all the
 * CLI talks to the embedded sandbox (profile "sandbox", baseUrl null) with its demo key.
 *
 * A key stored by fraudctl (the config file or the credential store) is for its profile AND that
 * profile's URL, as gh keeps a token per host: it is sent only there. A URL from --base-url or
 * FRAUDCTL_BASE_URL that is not the profile's (sameServiceUrl) leaves the settings with no key and
 * a `keyRefusal` (exit 2) that whatever would send the key throws, before any request. A key from
 * FRAUDCTL_API_KEY goes wherever the URL in force is: the user gave both.
 */

export interface SettingsFlags {
  baseUrl?: string;
  profile?: string;
  timeoutSeconds?: number;
  /** --insecure-http */
  insecureHttp?: boolean;
}

export interface Settings {
  /** The profile in use ('sandbox' is the built-in one). */
  profile: string;
  /** null = the embedded sandbox (the CLI starts it in-process). */
  baseUrl: string | null;
  /** null also when the key is in the credential store: it is read only when a command needs it (Session.apiKey). */
  apiKey: string | null;
  /** Where the key came from, for messages: 'profile' is the config file itself. */
  apiKeySource: 'env' | 'profile' | 'credential-store' | 'sandbox-default' | null;
  /** The account of the key's entry in the credential store, when the key is there. */
  credentialAccount: string | null;
  timeoutMs: number;
  retries: number;
  /** True when baseUrl is null (embedded): output gets marked as sandbox. */
  isSandbox: boolean;
  /** http:// to a host that is not this machine is allowed (--insecure-http, or the profile's insecureHttp). */
  insecureHttp: boolean;
  /** Who the profile's action-log lines name (`config set analyst`); null: the OS user is named. */
  analyst: string | null;
  /** The profile's reason codes (`config set reasons`); empty: none. */
  reasons: ReasonCode[];
  /** `config set require-reason true`: a change of state by set-state needs a --reason, by review a code chosen by key. */
  requireReason: boolean;
  /** Where each setting came from, for `fraudctl doctor`. */
  sources: SettingSources;
  /**
   * Set when the profile's stored key is not for the URL in force (a --base-url or
   * FRAUDCTL_BASE_URL that is not the profile's): apiKey is then null, and this is the error
   * (exit 2) to throw instead of sending the key. Absent when the key may be sent.
   */
  keyRefusal?: UsageError;
}

/** A flag, an environment variable, the config file, or the built-in default. */
export type SettingSource = 'flag' | 'env' | 'file' | 'default';
export interface SettingSources {
  profile: SettingSource;
  baseUrl: SettingSource;
  apiKey: SettingSource | 'credential-store' | null;
  timeout: SettingSource;
  retries: SettingSource;
}

/** An environment variable counts only when set to something: `FRAUDCTL_PROFILE=` is the same as unset. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Every profile there is: the file's in name order, then the built-in "sandbox" (once, even if the file has it). */
export function knownProfiles(file: ConfigFile): string[] {
  return [
    ...Object.keys(file.profiles)
      .filter((n) => n !== SANDBOX_PROFILE)
      .sort(),
    SANDBOX_PROFILE,
  ];
}

/** `no profile "prdo" (known: prod, sandbox); did you mean "prod"?`, saying how to create it. */
export function noSuchProfile(
  name: string,
  file: ConfigFile,
  create = `fraudctl login --profile ${name} --base-url URL`,
): UsageError {
  const known = knownProfiles(file);
  // A typo is one or two edits away (prdo → prod); a name further off is a new one.
  const near = known.length === 0 ? undefined : closest(name, known);
  const guess = near !== undefined && distance(name, near) <= 2 ? `; did you mean ${quote(near)}?` : '';
  return new UsageError(`no profile ${quote(name)} (known: ${known.join(', ')})${guess}`, `to create it: ${create}`);
}

/**
 * The profile in force: `override` (--profile) > FRAUDCTL_PROFILE > the file's activeProfile >
 * "default" if the file has one > the built-in "sandbox". A named profile must exist (or be "sandbox").
 */
export function activeProfileName(env: NodeJS.ProcessEnv, file: ConfigFile, override?: string): string {
  const named = (name: string, source: string): string => {
    const check = checkProfileName(name);
    if (!check.ok) throw new UsageError(`${source} ${check.problem} (got ${quote(name)})`);
    if (name !== SANDBOX_PROFILE && ownProfile(file.profiles, name) === undefined) throw noSuchProfile(name, file);
    return name;
  };
  if (override !== undefined) return named(override, '--profile');
  const fromEnv = envValue(env, 'FRAUDCTL_PROFILE');
  if (fromEnv !== undefined) return named(fromEnv, 'FRAUDCTL_PROFILE');
  if (file.activeProfile !== undefined) {
    const name = file.activeProfile;
    if (name !== SANDBOX_PROFILE && ownProfile(file.profiles, name) === undefined) {
      throw new UsageError(
        `the active profile ${quote(name)} (activeProfile in ${configFilePath(env)}) does not exist (known: ${knownProfiles(file).join(', ')})`,
        'choose one with: fraudctl config use NAME',
      );
    }
    return name;
  }
  if (ownProfile(file.profiles, 'default') !== undefined) return 'default';
  return SANDBOX_PROFILE;
}

/**
 * The profile that login, logout and the `config` verbs act on: --profile > FRAUDCTL_PROFILE >
 * `otherwise`, which is "default" for login and the profile in force (activeProfileName) for the
 * others. An empty --profile or FRAUDCTL_PROFILE counts as not given. The name is not checked
 * here: each verb checks it as it uses it (login may create the profile).
 */
export function profileActedOn(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  otherwise: 'default' | 'active',
): string {
  const named = flag !== undefined && flag !== '' ? flag : envValue(env, 'FRAUDCTL_PROFILE');
  if (named !== undefined) return named;
  return otherwise === 'default' ? 'default' : activeProfileName(env, readConfigFile(env));
}

export function resolveSettings(flags: SettingsFlags, env: NodeJS.ProcessEnv, file: ConfigFile): Settings {
  const profile = activeProfileName(env, file, flags.profile);
  const stored: ProfileConfig = ownProfile(file.profiles, profile) ?? {};
  const fileSource = (key: string) => `profile ${quote(profile)} ${key} (config file ${configFilePath(env)})`;

  const baseUrl = resolveBaseUrl(profile, stored, flags, env, fileSource);
  const isSandbox = baseUrl === null;

  let apiKey: string | null = null;
  let apiKeySource: Settings['apiKeySource'] = null;
  let credentialAccount: string | null = null;
  const envKey = envValue(env, 'FRAUDCTL_API_KEY');
  if (envKey !== undefined) {
    // Checked because it goes into a header; never quoted back.
    const key = checkApiKey(envKey);
    if (!key.ok)
      throw new UsageError(`FRAUDCTL_API_KEY ${key.problem}`, 'check how it is set (a stray line break or quote?)');
    [apiKey, apiKeySource] = [envKey, 'env'];
  } else if (stored.apiKey !== undefined && stored.apiKey !== '') {
    [apiKey, apiKeySource] = [stored.apiKey, 'profile'];
  } else if (stored.credentialStore !== undefined) {
    // Not read here: only a command that sends a request needs it, and reading costs a few ms.
    [apiKeySource, credentialAccount] = ['credential-store', stored.credentialStore.account];
  } else if (isSandbox) {
    [apiKey, apiKeySource] = [envValue(env, 'FRAUDCTL_SANDBOX_KEY') ?? SANDBOX_DEFAULT_KEY, 'sandbox-default'];
  }

  let timeoutSeconds: number;
  if (flags.timeoutSeconds !== undefined) {
    timeoutSeconds = orThrow(
      checkTimeoutSeconds(flags.timeoutSeconds),
      '--timeout',
      String(flags.timeoutSeconds),
      'e.g. --timeout 10',
    );
  } else if (envValue(env, 'FRAUDCTL_TIMEOUT') !== undefined) {
    const text = env.FRAUDCTL_TIMEOUT as string;
    timeoutSeconds = orThrow(
      parseTimeoutSeconds(text),
      'FRAUDCTL_TIMEOUT',
      quote(text),
      `set it to a number of seconds (${setEnvCommand('FRAUDCTL_TIMEOUT', '10')}), or remove it (${unsetEnvCommand(['FRAUDCTL_TIMEOUT'])})`,
    );
  } else if (stored.timeoutSeconds !== undefined) {
    timeoutSeconds = orThrow(
      checkTimeoutSeconds(stored.timeoutSeconds),
      fileSource('timeoutSeconds'),
      String(stored.timeoutSeconds),
    );
  } else {
    timeoutSeconds = DEFAULT_TIMEOUT_SECONDS;
  }

  const retries =
    stored.retries !== undefined
      ? orThrow(checkRetries(stored.retries), fileSource('retries'), String(stored.retries))
      : DEFAULT_RETRIES;

  // A flag wins over the environment, which wins over the file, then the default.
  const sourceOf = (flag: unknown, variable: string, inFile: boolean): SettingSource =>
    flag !== undefined ? 'flag' : envValue(env, variable) !== undefined ? 'env' : inFile ? 'file' : 'default';
  const sources: SettingSources = {
    profile: sourceOf(
      flags.profile,
      'FRAUDCTL_PROFILE',
      file.activeProfile !== undefined || profile !== SANDBOX_PROFILE,
    ),
    baseUrl: sourceOf(flags.baseUrl, 'FRAUDCTL_BASE_URL', stored.baseUrl !== undefined),
    apiKey:
      apiKeySource === 'env'
        ? 'env'
        : apiKeySource === 'profile'
          ? 'file'
          : apiKeySource === 'sandbox-default'
            ? 'default'
            : apiKeySource,
    timeout: sourceOf(flags.timeoutSeconds, 'FRAUDCTL_TIMEOUT', stored.timeoutSeconds !== undefined),
    retries: stored.retries !== undefined ? 'file' : 'default',
  };
  const insecureHttp = flags.insecureHttp === true || stored.insecureHttp === true;
  const keyRefusal =
    (apiKeySource === 'profile' || apiKeySource === 'credential-store') &&
    baseUrl !== null &&
    (sources.baseUrl === 'flag' || sources.baseUrl === 'env')
      ? storedKeyRefusal(profile, stored, baseUrl, sources.baseUrl, file)
      : undefined;
  if (keyRefusal !== undefined) [apiKey, credentialAccount] = [null, null];
  return {
    profile,
    baseUrl,
    apiKey,
    apiKeySource,
    credentialAccount,
    timeoutMs: Math.ceil(timeoutSeconds * 1000),
    retries,
    isSandbox,
    // Checked when the file was read (config-file.ts).
    analyst: stored.analyst ?? null,
    reasons: storedReasons(stored),
    requireReason: stored.requireReason === true,
    insecureHttp,
    sources,
    ...(keyRefusal !== undefined ? { keyRefusal } : {}),
  };
}

/**
 * The refusal to send a profile's stored key to `url` (from --base-url or FRAUDCTL_BASE_URL), or
 * undefined when `url` is the profile's own. The key of the built-in sandbox profile is for the
 * embedded sandbox only; a profile with a key and no URL has nowhere its key may go. The hint
 * gives the ways out: the profile made for that URL, a key for it in FRAUDCTL_API_KEY, the
 * profile's own URL, or moving the profile there on purpose.
 */
function storedKeyRefusal(
  profile: string,
  stored: ProfileConfig,
  url: string,
  source: 'flag' | 'env',
  file: ConfigFile,
): UsageError | undefined {
  const own = profile === SANDBOX_PROFILE ? null : stored.baseUrl;
  if (own !== null && own !== undefined && sameServiceUrl(own, url)) return undefined;
  const given = source === 'env' ? 'FRAUDCTL_BASE_URL' : '--base-url';
  const shownUrl = terminalSafe(url);
  const message =
    own === undefined
      ? `profile ${quote(profile)} keeps an API key but no URL it is for, so it is not sent to ${shownUrl} (from ${given}): a stored key is sent only to its profile's URL, and nothing was sent`
      : `profile ${quote(profile)} keeps its API key for ${own === null ? 'the embedded sandbox' : terminalSafe(normalisedBaseUrl(own))}, not for ${shownUrl} (from ${given}): a stored key is sent only to its profile's URL, and nothing was sent`;

  const ways: string[] = [];
  const others = knownProfiles(file).filter(
    (name) =>
      name !== profile && name !== SANDBOX_PROFILE && sameServiceUrl(ownProfile(file.profiles, name)?.baseUrl, url),
  );
  if (others.length > 0) ways.push(`use the profile for ${shownUrl}: --profile ${others.join(' or --profile ')}`);
  ways.push(`give a key for ${shownUrl} in FRAUDCTL_API_KEY`);
  if (own !== undefined && source === 'env')
    ways.push(
      `go to ${own === null ? 'the embedded sandbox' : `the profile's own URL`}: ${unsetEnvCommand(['FRAUDCTL_BASE_URL'])}`,
    );
  if (own !== undefined && source === 'flag')
    ways.push(`leave out --base-url to go to ${own === null ? 'the embedded sandbox' : `the profile's own URL`}`);
  if (profile !== SANDBOX_PROFILE)
    ways.push(
      `or move the profile and its key there on purpose: ${shellCommand(['fraudctl', 'config', 'set', 'base-url', url, '--profile', profile])}`,
    );
  return new UsageError(message, ways.join('; '));
}

function resolveBaseUrl(
  profile: string,
  stored: ProfileConfig,
  flags: SettingsFlags,
  env: NodeJS.ProcessEnv,
  fileSource: (key: string) => string,
): string | null {
  const check = (value: string, source: string) => orThrow(checkBaseUrl(value), source, showUrl(value));
  if (flags.baseUrl !== undefined) return check(flags.baseUrl, '--base-url');
  const fromEnv = envValue(env, 'FRAUDCTL_BASE_URL');
  if (fromEnv !== undefined) return check(fromEnv, 'FRAUDCTL_BASE_URL');
  if (stored.baseUrl !== undefined) {
    if (profile === SANDBOX_PROFILE) {
      throw new UsageError(
        `${fileSource('baseUrl')}: the built-in sandbox profile cannot have a base URL`,
        'give the remote service another profile name',
      );
    }
    return check(stored.baseUrl, fileSource('baseUrl'));
  }
  if (profile === SANDBOX_PROFILE) return null;
  throw new UsageError(
    `profile ${quote(profile)} has no service URL`,
    `set it with: fraudctl config set base-url URL --profile ${profile}`,
  );
}

/** The key of these settings, or the error saying how to give one (exit 3). */
export function requireApiKey(settings: Settings): string {
  if (settings.keyRefusal !== undefined) throw settings.keyRefusal;
  if (settings.apiKey !== null && settings.apiKey !== '') return settings.apiKey;
  throw new CliError(
    `no API key for profile ${quote(settings.profile)}`,
    ExitCode.AUTH,
    `run: fraudctl login --profile ${settings.profile} (or set FRAUDCTL_API_KEY)`,
  );
}
