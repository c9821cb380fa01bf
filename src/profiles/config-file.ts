import { chmodSync, closeSync, fchmodSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { configDir } from '../paths/xdg-paths.js';
import { withFileLock } from './config-lock.js';
import { terminalSafe } from '../render/terminal-text.js';
import { CREDENTIAL_SERVICE, SANDBOX_PROFILE, checkApiKey, checkBaseUrl, checkCredentialAccount, checkProfileName, checkRetries, checkTimeoutSeconds, quote } from './values.js';

/*
 * The CLI's configuration file, `<config dir>/config.json`: the active profile and, per
 * profile, the service URL, where the API key is (the entry in the credential store, or the key
 * itself when it is kept in the file), the timeout and the retries. It may hold keys, so it is
 * written with mode 0600 in a 0700 directory, and atomically (temp file + rename) so that a
 * crash leaves either the old file or the new one, never half of one.
 *
 * Checked by hand rather than with a TypeBox schema: this module loads on every client command,
 * and a hand check gives messages in the words of the file ("profiles.prod.timeoutSeconds").
 */

/** The entry of the operating system's credential store that holds a profile's key. */
export interface CredentialStoreEntry {
  service: typeof CREDENTIAL_SERVICE;
  account: string;
}

export interface ProfileConfig {
  baseUrl?: string;
  /** The key itself, in this file (`login --insecure-storage`, no usable credential store, or an older fraudctl). */
  apiKey?: string;
  /** The key is in the credential store, under this entry. Never together with apiKey: a key is kept in one place. */
  credentialStore?: CredentialStoreEntry;
  timeoutSeconds?: number;
  retries?: number;
  /** Allows http:// to a host that is not this machine (the key then travels in clear text). */
  insecureHttp?: boolean;
}

export interface ConfigFile {
  activeProfile?: string;
  profiles: Record<string, ProfileConfig>;
}

const TOP_KEYS = ['activeProfile', 'profiles'] as const;
const PROFILE_KEYS = ['baseUrl', 'apiKey', 'credentialStore', 'timeoutSeconds', 'retries', 'insecureHttp'] as const;
const EDIT_HINT = 'fix it in an editor (or move it away to start again with no profiles)';

export function configFilePath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

/**
 * The configuration; a missing (or empty) file is no profiles at all. `warn` hears of a file
 * that others may read (it holds keys): fraudctl writes it 0600, but an editor or a copy may not.
 */
export function readConfigFile(env: NodeJS.ProcessEnv, options: { warn?: (message: string) => void } = {}): ConfigFile {
  const path = configFilePath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
    if (options.warn && process.platform !== 'win32') {
      const mode = statSync(path).mode & 0o777;
      if ((mode & 0o077) !== 0) {
        options.warn(`config file ${terminalSafe(path)} can be read by other users (mode 0${mode.toString(8)}) and may hold API keys: chmod 600 ${terminalSafe(path)}`);
      }
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { profiles: emptyProfiles() };
    throw new UsageError(`cannot read config file ${path}: ${code ?? String(e)}`, 'check that it is a file you can read');
  }
  text = text.replace(/^\uFEFF/, '');
  if (text.trim() === '') return { profiles: emptyProfiles() };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    // JSON.parse quotes a piece of the text in its message: shown inert, like anything read from a file.
    throw new UsageError(`config file ${terminalSafe(path)} is not valid JSON: ${terminalSafe((e as Error).message)}`, EDIT_HINT);
  }
  return checkConfigFile(parsed, path);
}

/**
 * Checks a configuration (as read, or about to be written) and returns a copy whose `profiles`
 * has no prototype, so that a profile called "__proto__" or "constructor" is just a profile.
 * `path` is only for the message.
 */
export function checkConfigFile(value: unknown, path: string): ConfigFile {
  const fail = (what: string): never => {
    throw new UsageError(`config file ${terminalSafe(path)}: ${what}`, EDIT_HINT);
  };
  if (!isPlainObject(value)) return fail('must hold a JSON object, like {"profiles": {}}');
  for (const key of Object.keys(value)) {
    if (!(TOP_KEYS as readonly string[]).includes(key)) fail(`unknown key ${quote(key)} (known: ${TOP_KEYS.join(', ')})`);
  }
  const result: ConfigFile = { profiles: emptyProfiles() };
  if (value.activeProfile !== undefined) {
    if (typeof value.activeProfile !== 'string' || !checkProfileName(value.activeProfile).ok) fail('activeProfile must be a profile name: 1 to 64 letters, digits, _ or -');
    result.activeProfile = value.activeProfile as string;
  }
  if (value.profiles !== undefined) {
    if (!isPlainObject(value.profiles)) fail('profiles must be an object of profile name to settings');
    for (const [name, profile] of Object.entries(value.profiles as Record<string, unknown>)) {
      const nameCheck = checkProfileName(name);
      if (!nameCheck.ok) fail(`profile name ${quote(name)} ${nameCheck.problem}`);
      result.profiles[name] = checkProfile(profile, `profiles.${name}`, name === SANDBOX_PROFILE, fail);
    }
  }
  return result;
}

function checkProfile(value: unknown, where: string, isSandbox: boolean, fail: (what: string) => never): ProfileConfig {
  if (!isPlainObject(value)) return fail(`${where} must be an object, like {"baseUrl": "https://fraud.example.com"}`);
  for (const key of Object.keys(value)) {
    if (!(PROFILE_KEYS as readonly string[]).includes(key)) fail(`${where} has an unknown key ${quote(key)} (known: ${PROFILE_KEYS.join(', ')})`);
  }
  const profile: ProfileConfig = {};
  if (value.baseUrl !== undefined) {
    if (isSandbox) fail(`${where} cannot have a baseUrl: "sandbox" is the built-in embedded service (give a remote service another profile name)`);
    const url = typeof value.baseUrl === 'string' ? checkBaseUrl(value.baseUrl) : ({ ok: false, problem: 'must be a string' } as const);
    if (!url.ok) fail(`${where}.baseUrl ${url.problem}`);
    profile.baseUrl = value.baseUrl as string;
  }
  if (value.apiKey !== undefined) {
    // The key itself never goes into a message.
    const key = checkApiKey(value.apiKey);
    if (!key.ok) fail(`${where}.apiKey ${key.problem}`);
    profile.apiKey = value.apiKey as string;
  }
  if (value.credentialStore !== undefined) {
    const entry = value.credentialStore;
    const shape = `${where}.credentialStore must be {"service": "${CREDENTIAL_SERVICE}", "account": "…"} (fraudctl login writes it)`;
    if (!isPlainObject(entry) || Object.keys(entry).some((k) => k !== 'service' && k !== 'account') || entry.service !== CREDENTIAL_SERVICE) fail(shape);
    const account = checkCredentialAccount((entry as Record<string, unknown>).account);
    if (!account.ok) fail(`${where}.credentialStore.account ${account.problem}`);
    if (profile.apiKey !== undefined) {
      fail(`${where} has both apiKey and credentialStore, and a key is kept in one place only: remove one of them`);
    }
    profile.credentialStore = { service: CREDENTIAL_SERVICE, account: (entry as Record<string, unknown>).account as string };
  }
  if (value.timeoutSeconds !== undefined) {
    const timeout = checkTimeoutSeconds(value.timeoutSeconds);
    if (!timeout.ok) fail(`${where}.timeoutSeconds ${timeout.problem}`);
    profile.timeoutSeconds = value.timeoutSeconds as number;
  }
  if (value.retries !== undefined) {
    const retries = checkRetries(value.retries);
    if (!retries.ok) fail(`${where}.retries ${retries.problem}`);
    profile.retries = value.retries as number;
  }
  if (value.insecureHttp !== undefined) {
    if (typeof value.insecureHttp !== 'boolean') fail(`${where}.insecureHttp must be true or false`);
    profile.insecureHttp = value.insecureHttp as boolean;
  }
  return profile;
}

/**
 * Writes the configuration: directory created with mode 0700, file replaced atomically and left
 * with mode exactly 0600 (whatever mode an earlier file had). A symlinked config.json (dotfile
 * managers) is followed, so the link stays and its target is replaced.
 * Plain node:fs: temp file in the same directory, fsync, rename is simple enough by hand.
 */
export function writeConfigFile(env: NodeJS.ProcessEnv, file: ConfigFile): void {
  const path = configFilePath(env);
  const text = serialise(checkConfigFile(file, path));
  ensureConfigDir(dirname(path));
  const target = followSymlink(path);
  // node:crypto taken here, not imported: every client command reads this file, few write it.
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', 0o600); // O_CREAT|O_EXCL: a fresh file, never someone else's
    fchmodSync(fd, 0o600); // the umask may have taken bits off the mode given to open
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
  } catch (e) {
    if (fd !== undefined) closeQuietly(fd);
    try {
      unlinkSync(temp);
    } catch {
      // It was never created, or is already gone.
    }
    throw new CliError(`cannot write config file ${path}: ${errorCode(e)}`, ExitCode.FAILURE, `check the permissions of ${dirname(target)}`);
  }
}

/** The config directory, created with mode 0700 when missing. */
function ensureConfigDir(dir: string): void {
  try {
    // mkdir's mode is filtered by the umask; the chmod makes a directory created here exactly 0700.
    if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700);
  } catch (e) {
    throw new CliError(`cannot create the config directory ${dir}: ${errorCode(e)}`, ExitCode.FAILURE, 'check the permissions of its parent directory');
  }
}

/**
 * Read, change, write, under a lock (config-lock.ts), so that two processes changing the file
 * at once both keep their change. `change` edits the file it is given and returns false when
 * there is nothing to write.
 */
export function updateConfigFile(env: NodeJS.ProcessEnv, change: (file: ConfigFile) => boolean | void): void {
  const path = configFilePath(env);
  ensureConfigDir(dirname(path));
  withFileLock(`${path}.lock`, () => {
    const file = readConfigFile(env);
    if (change(file) !== false) writeConfigFile(env, file);
  });
}

function serialise(file: ConfigFile): string {
  const profiles: Record<string, ProfileConfig> = emptyProfiles();
  for (const [name, p] of Object.entries(file.profiles)) {
    // A fixed key order, so that the file reads the same way whatever edited it last.
    profiles[name] = Object.fromEntries(PROFILE_KEYS.filter((k) => p[k] !== undefined).map((k) => [k, p[k]])) as ProfileConfig;
  }
  return `${JSON.stringify({ ...(file.activeProfile !== undefined ? { activeProfile: file.activeProfile } : {}), profiles }, null, 2)}\n`;
}

function followSymlink(path: string): string {
  try {
    if (lstatSync(path).isSymbolicLink()) return realpathSync(path);
  } catch {
    // Missing, or a dangling link: write at the path itself.
  }
  return path;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already failing; the first error is the one to report.
  }
}

function errorCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? String(e);
}

/** A profiles record without a prototype: any valid name, "__proto__" included, is an ordinary key. */
export function emptyProfiles(): Record<string, ProfileConfig> {
  return Object.create(null) as Record<string, ProfileConfig>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
