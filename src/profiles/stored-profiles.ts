import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import {
  readConfigFile,
  updateConfigFile,
  type ConfigFile,
  type CredentialStoreEntry,
  type ProfileConfig,
} from './config-file.js';
import { redactKey } from '../render/redact.js';
import { formatReasons, parseReasons, storedReasons, type ReasonCode } from './reason-codes.js';
import { activeProfileName, knownProfiles, noSuchProfile } from './settings.js';
import {
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  SANDBOX_PROFILE,
  checkAnalyst,
  checkApiKey,
  checkBaseUrl,
  checkProfileName,
  ownProfile,
  parseRetries,
  parseTimeoutSeconds,
  quote,
  orThrow,
  normalisedBaseUrl as normalisedUrl,
  sameServiceUrl,
  showUrl,
} from './value-rules.js';

/*
 * The profiles as the config file stores them, for `fraudctl config …` (src/commands/config/) and the
 * saving half of `login`: list, read, change, delete, make active, record a key, each a read of
 * the file or a change under its lock (mode 0600). Everything returns data or text; printing is
 * the caller's.
 * Keys only ever leave here redacted, and none is ever taken from a command-line value.
 */

/** What `config set` can change. The key is not among them: `fraudctl login` stores it. */
export const SETTING_KEYS = [
  'base-url',
  'timeout',
  'retries',
  'insecure-http',
  'analyst',
  'reasons',
  'require-reason',
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];
/** What `config get` and `config unset` accept: the settings, and the key (shown redacted, or removed). */
export const CONFIG_KEYS = [...SETTING_KEYS, 'api-key'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export interface ProfileListing {
  name: string;
  active: boolean;
  /** The service URL, `(embedded sandbox)` for the built-in profile, `(not set)` when missing. */
  baseUrl: string;
  /** Redacted: `****` and at most the last 4 characters, `(none)`, `(sandbox default)`, or `(credential store)`. */
  apiKey: string;
  /** Where the key is kept. */
  keyStorage: KeyStorage;
  timeoutSeconds: number;
  retries: number;
  /** The profile allows http:// to another machine (the key then travels in clear text). */
  insecureHttp: boolean;
  /** Who its action-log lines name; null: not set (they name the OS user). */
  analyst: string | null;
  /** The profile's reason codes (`config set reasons`); empty: none. */
  reasons: ReasonCode[];
  /** Every change of state by set-state needs a --reason. */
  requireReason: boolean;
  builtIn: boolean;
}

/** `config get analyst` of a profile without one: its log lines name the OS user (src/action-log/log-context.ts). */
export const ANALYST_NOT_SET_LABEL = '(not set: log lines name the OS user)';
/** `config get reasons` of a profile without any. */
export const REASONS_NOT_SET_LABEL = '(none)';
export const EMBEDDED_SANDBOX_LABEL = '(embedded sandbox)';
export const NOT_SET_LABEL = '(not set)';
export const SANDBOX_DEFAULT_KEY_LABEL = '(sandbox default)';
/** A key in the credential store is not read to be listed (that costs a few ms, or a prompt to unlock). */
export const CREDENTIAL_STORE_LABEL = '(credential store)';

/** Where a profile's key is kept: the credential store, the config file (in plain text), nowhere, or the sandbox's own. */
export type KeyStorage = 'credential-store' | 'file' | 'none' | 'sandbox-default';

export function keyStorage(stored: ProfileConfig, builtIn: boolean): KeyStorage {
  if (stored.credentialStore !== undefined) return 'credential-store';
  if (stored.apiKey !== undefined && stored.apiKey !== '') return 'file';
  return builtIn ? 'sandbox-default' : 'none';
}

/**
 * Every profile (the file's in name order, then the built-in "sandbox"), with the one in force
 * marked: `activeOverride` (--profile) > FRAUDCTL_PROFILE > activeProfile > "default" > sandbox.
 */
export function listProfiles(env: NodeJS.ProcessEnv, activeOverride?: string): ProfileListing[] {
  const file = readConfigFile(env);
  const active = activeProfileName(env, file, activeOverride);
  return knownProfiles(file).map((name) => {
    const stored: ProfileConfig = ownProfile(file.profiles, name) ?? {};
    const builtIn = name === SANDBOX_PROFILE;
    return {
      name,
      active: name === active,
      baseUrl: builtIn
        ? EMBEDDED_SANDBOX_LABEL
        : stored.baseUrl !== undefined
          ? normalisedUrl(stored.baseUrl)
          : NOT_SET_LABEL,
      apiKey: shownKey(stored, builtIn),
      keyStorage: keyStorage(stored, builtIn),
      timeoutSeconds: stored.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      retries: stored.retries ?? DEFAULT_RETRIES,
      insecureHttp: stored.insecureHttp === true,
      analyst: stored.analyst ?? null,
      reasons: storedReasons(stored),
      requireReason: stored.requireReason === true,
      builtIn,
    };
  });
}

/**
 * One setting of a profile as it stands in the configuration (defaults filled in; the
 * environment and flags of this run are not applied). `api-key` comes back redacted.
 */
export function getSetting(env: NodeJS.ProcessEnv, profile: string, key: ConfigKey): string {
  const which = configKey(key, CONFIG_KEYS);
  const file = readConfigFile(env);
  const stored = existingProfile(file, profile);
  const builtIn = profile === SANDBOX_PROFILE;
  switch (which) {
    case 'base-url':
      if (builtIn) return EMBEDDED_SANDBOX_LABEL;
      if (stored.baseUrl === undefined)
        throw new UsageError(
          `profile ${quote(profile)} has no base-url`,
          `set it with: fraudctl config set base-url URL --profile ${profile}`,
        );
      return normalisedUrl(stored.baseUrl);
    case 'timeout':
      return String(stored.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS);
    case 'retries':
      return String(stored.retries ?? DEFAULT_RETRIES);
    case 'api-key':
      return shownKey(stored, builtIn);
    case 'insecure-http':
      return String(stored.insecureHttp === true);
    case 'analyst':
      return stored.analyst ?? ANALYST_NOT_SET_LABEL;
    case 'reasons':
      return stored.reasons === undefined ? REASONS_NOT_SET_LABEL : formatReasons(storedReasons(stored));
    case 'require-reason':
      return String(stored.requireReason === true);
  }
}

/**
 * A stored key goes only to its profile's URL (settings.ts), so a new URL for a profile that
 * has one moves the key with it: what `config set base-url` must say (and have confirmed)
 * before it writes. The URL is checked first, as setSetting checks it.
 */
export interface KeyMove {
  profile: string;
  /** The profile's URL now, normalised (undefined: it has none). */
  from: string | undefined;
  /** The new URL, normalised. */
  to: string;
  /** Where the key is kept. */
  keptIn: 'credential-store' | 'file';
}

/** The key that a change of `profile`'s URL to `value` would move, or null (no stored key, or the same URL). */
export function keyMoveOf(env: NodeJS.ProcessEnv, profile: string, value: string): KeyMove | null {
  const name = profileName(profile);
  if (name === SANDBOX_PROFILE) throw sandboxHasNoUrl();
  const to = orThrow(checkBaseUrl(value), 'base-url', showUrl(value));
  const stored = ownProfile(readConfigFile(env).profiles, name);
  if (stored === undefined) return null;
  const keptIn = keyStorage(stored, false);
  if (keptIn !== 'credential-store' && keptIn !== 'file') return null;
  if (sameServiceUrl(stored.baseUrl, to)) return null;
  return { profile: name, from: stored.baseUrl === undefined ? undefined : normalisedUrl(stored.baseUrl), to, keptIn };
}

/**
 * Changes one setting; setting base-url creates a profile that is new. The value is checked as it would be when
 * used. `confirmed`: for a base URL, the key move the user agreed to (keyMoveOf); under the
 * file's lock the profile must still be as it was then, or nothing is changed.
 */
export function setSetting(
  env: NodeJS.ProcessEnv,
  profile: string,
  key: SettingKey,
  value: string,
  confirmed: KeyMove | null = null,
): void {
  if ((key as string) === 'api-key') {
    throw new UsageError(
      `the API key is not set with config set: run fraudctl login --profile ${safeName(profile)} (it reads the key without putting it in your shell history)`,
    );
  }
  const which = configKey(key, SETTING_KEYS);
  const name = profileName(profile);
  const change: ProfileConfig = {};
  switch (which) {
    case 'base-url':
      if (name === SANDBOX_PROFILE) throw sandboxHasNoUrl();
      change.baseUrl = orThrow(checkBaseUrl(value), 'base-url', showUrl(value));
      break;
    case 'timeout':
      change.timeoutSeconds = orThrow(parseTimeoutSeconds(value), 'timeout', quote(value));
      break;
    case 'retries':
      change.retries = orThrow(parseRetries(value), 'retries', quote(value));
      break;
    case 'insecure-http':
      if (value !== 'true' && value !== 'false')
        throw new UsageError(`insecure-http must be true or false (got ${quote(value)})`);
      change.insecureHttp = value === 'true';
      break;
    case 'analyst':
      change.analyst = orThrow(
        checkAnalyst(value),
        'analyst',
        quote(value),
        'e.g. fraudctl config set analyst "Ann Lee"',
      );
      break;
    case 'reasons': {
      const parsed = parseReasons(value);
      if (!parsed.ok)
        throw new UsageError(
          `reasons: ${parsed.problem}: nothing was changed`,
          'e.g. fraudctl config set reasons stolen-card,friendly-fraud,customer-confirmed:APPROVED (see fraudctl help config)',
        );
      change.reasons = formatReasons(parsed.value);
      break;
    }
    case 'require-reason':
      if (value !== 'true' && value !== 'false')
        throw new UsageError(`require-reason must be true or false (got ${quote(value)})`);
      change.requireReason = value === 'true';
      break;
  }
  updateConfigFile(env, (file) => {
    // Only a base-url makes a profile: a timeout for "prdo" is a typo of "prod", not a new one,
    // and a profile without a URL would name no service. The hint is the command that makes it.
    if (which !== 'base-url' && name !== SANDBOX_PROFILE && ownProfile(file.profiles, name) === undefined) {
      throw noSuchProfile(name, file, `fraudctl config set base-url URL --profile ${name}`);
    }
    if (which === 'base-url') {
      // Agreed to for the profile as it was when asked: another process may have changed it since.
      const now = ownProfile(file.profiles, name);
      const kept = now === undefined ? 'none' : keyStorage(now, false);
      const moves = (kept === 'credential-store' || kept === 'file') && !sameServiceUrl(now?.baseUrl, change.baseUrl);
      const same =
        confirmed === null
          ? !moves
          : moves &&
            kept === confirmed.keptIn &&
            (now?.baseUrl === undefined ? confirmed.from === undefined : normalisedUrl(now.baseUrl) === confirmed.from);
      if (!same)
        throw new CliError(
          `nothing was changed: profile ${quote(name)} was changed by another command meanwhile`,
          ExitCode.FAILURE,
          'run this command again',
        );
    }
    file.profiles[name] = { ...ownProfile(file.profiles, name), ...change };
  });
}

/** Removes one setting from a profile, so that its default applies; `api-key` forgets the stored key. */
export function unsetSetting(env: NodeJS.ProcessEnv, profile: string, key: ConfigKey): void {
  const which = configKey(key, CONFIG_KEYS);
  updateConfigFile(env, (file) => {
    const stored = existingProfile(file, profile);
    if (ownProfile(file.profiles, profile) === undefined) return false; // the built-in sandbox, with nothing stored
    const field = (
      {
        'base-url': 'baseUrl',
        timeout: 'timeoutSeconds',
        retries: 'retries',
        'api-key': 'apiKey',
        'insecure-http': 'insecureHttp',
        analyst: 'analyst',
        reasons: 'reasons',
        'require-reason': 'requireReason',
      } as const
    )[which];
    if (stored[field] === undefined) return false;
    const rest = { ...stored };
    delete rest[field];
    file.profiles[profile] = rest;
  });
}

/**
 * Removes a profile from the file (its key must be gone already: profile-keys.ts removes it from
 * wherever it is kept first). Returns whether it was the active one. The built-in sandbox cannot
 * be removed.
 */
export function deleteProfile(env: NodeJS.ProcessEnv, name: string): { wasActive: boolean } {
  if (name === SANDBOX_PROFILE)
    throw new UsageError('the built-in "sandbox" profile cannot be deleted: it is the embedded local service');
  let wasActive = false;
  updateConfigFile(env, (file) => {
    existingProfile(file, name);
    wasActive = file.activeProfile === name;
    const { [name]: _gone, ...rest } = file.profiles;
    file.profiles = rest;
    if (wasActive) delete file.activeProfile;
  });
  return { wasActive };
}

/** Makes a profile the active one (it must exist, or be the built-in "sandbox"). */
export function useProfile(env: NodeJS.ProcessEnv, name: string): void {
  updateConfigFile(env, (file) => {
    existingProfile(file, name);
    file.activeProfile = name;
  });
}

/**
 * For `login`, once the key has been checked against the service: records the key (and the URL,
 * if given) in the profile, creating it if new. The key goes into the file, unless `inStore`,
 * called under the file's lock with the profile as it is, returns the credential-store entry that
 * holds it (credentials/profile-keys.ts writes the store first; `inStore` may also refuse the
 * change by throwing); either way the profile keeps its key in that one place only (the other is
 * dropped from the file). The key never appears in an error.
 */
export function saveApiKey(
  env: NodeJS.ProcessEnv,
  profile: string,
  apiKey: string,
  baseUrl?: string,
  insecureHttp?: boolean,
  inStore?: (previous: ProfileConfig) => CredentialStoreEntry | undefined,
): void {
  const name = profileName(profile);
  const key = checkApiKey(apiKey);
  if (!key.ok) throw new UsageError(`the API key ${key.problem}: nothing was saved`);
  const change: ProfileConfig = {};
  if (baseUrl !== undefined) {
    if (name === SANDBOX_PROFILE) throw sandboxHasNoUrl();
    change.baseUrl = orThrow(checkBaseUrl(baseUrl), 'base URL', showUrl(baseUrl));
  }
  if (insecureHttp === true) change.insecureHttp = true;
  updateConfigFile(env, (file) => {
    const { apiKey: _inFile, credentialStore: _inStore, ...previous } = ownProfile(file.profiles, name) ?? {};
    const entry = inStore?.(ownProfile(file.profiles, name) ?? {});
    file.profiles[name] = {
      ...previous,
      ...change,
      ...(entry !== undefined ? { credentialStore: entry } : { apiKey }),
    };
  });
}

function shownKey(stored: ProfileConfig, builtIn: boolean): string {
  if (stored.credentialStore !== undefined) return CREDENTIAL_STORE_LABEL;
  if (stored.apiKey !== undefined && stored.apiKey !== '') return redactKey(stored.apiKey);
  return builtIn ? SANDBOX_DEFAULT_KEY_LABEL : redactKey(null);
}

function configKey<K extends string>(key: string, known: readonly K[]): K {
  if ((known as readonly string[]).includes(key)) return key as K;
  throw new UsageError(`unknown setting ${quote(key)} (known: ${known.join(', ')})`);
}

function profileName(name: string): string {
  const check = checkProfileName(name);
  if (!check.ok) throw new UsageError(`profile name ${check.problem} (got ${quote(name)})`);
  return name;
}

/** For a hint: the name itself when valid, else a placeholder (never raw control characters). */
function safeName(name: string): string {
  return checkProfileName(name).ok ? name : 'NAME';
}

/** The stored settings of a profile that must exist ("sandbox" always does, possibly with nothing stored). */
function existingProfile(file: ConfigFile, name: string): ProfileConfig {
  profileName(name);
  const stored = ownProfile(file.profiles, name);
  if (stored !== undefined) return stored;
  if (name === SANDBOX_PROFILE) return {};
  throw noSuchProfile(name, file);
}

function sandboxHasNoUrl(): UsageError {
  return new UsageError(
    'the built-in "sandbox" profile is the embedded local service: it has no base URL',
    'give the remote service its own profile, e.g. --profile staging',
  );
}
