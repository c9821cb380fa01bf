import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { configDir } from '../paths/xdg-paths.js';
import { fileErrorCause, fileErrorHint, fileFailure, fileWriteFailure } from '../files/file-errors.js';
import { MakeDirectoryError, makeDirectory } from '../files/make-directory.js';
import { writeFully } from '../files/write-fully.js';
import { lockPathOf } from '../files/exclusive-lock.js';
import { listFilesCommand, moveFileCommand, removeFileCommand, shellWord } from '../render/shell-command.js';
import { withFileLock } from './config-lock.js';
import { terminalSafe } from '../render/terminal-text.js';
import {
  CREDENTIAL_SERVICE,
  SANDBOX_PROFILE,
  checkAnalyst,
  checkApiKey,
  checkBaseUrl,
  checkCredentialAccount,
  checkProfileName,
  checkRetries,
  checkTimeoutSeconds,
  quote,
} from './value-rules.js';
import { sym } from '../render/symbols.js';
import { checkStoredReasons } from './reason-codes.js';

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
  /** Who the action-log lines of this profile name (declared, not authenticated); the OS user when absent. */
  analyst?: string;
  /** The team's reason codes for this profile (`config set reasons`), as reason-codes.ts writes them. */
  reasons?: string;
  /** Every change of state by set-state needs a --reason from `reasons`. */
  requireReason?: boolean;
}

export interface ConfigFile {
  activeProfile?: string;
  profiles: Record<string, ProfileConfig>;
}

const TOP_KEYS = ['activeProfile', 'profiles'] as const;
const PROFILE_KEYS = [
  'baseUrl',
  'apiKey',
  'credentialStore',
  'timeoutSeconds',
  'retries',
  'insecureHttp',
  'analyst',
  'reasons',
  'requireReason',
] as const;
const EDIT_HINT = 'fix it in an editor (or move it away to start again with no profiles)';

export function configFilePath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

/** A permission of the config directory or file that lets others read the keys or change the file, and the command that fixes it. */
export interface PermissionProblem {
  what: 'config-directory' | 'config-file';
  /** The directory or the file, shown (terminal-safe). */
  path: string;
  /** What is wrong, after the path: "can be read by other users (mode 0644) and may hold API keys". */
  problem: string;
  fix: string;
}

/**
 * Why the modes are not judged on Windows (doctor says it). Node makes up a mode there from the
 * read-only attribute alone: 0666 for every file that can be written, whoever may read it. What
 * protects the file is its ACL, by default inherited from the user's profile (%APPDATA%), which
 * only its owner, SYSTEM and the administrators may open. Reading an ACL takes a native call or a program
 * whose output is in the system's language (icacls), so fraudctl does not claim to check it.
 */
export const MODES_NOT_CHECKED_ON_WINDOWS =
  "permissions not checked on Windows, where file modes do not apply: in the user's profile, the ACL it inherits keeps other users out";

/**
 * What is wrong with the modes of the config directory and file, if anything (nothing on
 * Windows: MODES_NOT_CHECKED_ON_WINDOWS). A directory others can write lets them put a config of
 * their own in place (a URL of theirs, and the key goes there): fraudctl makes it 0700. A file
 * others can read gives them the keys it holds: fraudctl writes it 0600, an editor or a copy
 * may not. Warned about, not refused (as ssh does for its keys): refusing would stop every
 * command, the embedded sandbox's too, and the fix is one chmod, printed with the warning.
 */
export function configPermissionProblems(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): PermissionProblem[] {
  if (platform === 'win32') return [];
  const path = configFilePath(env);
  const dir = dirname(path);
  const problems: PermissionProblem[] = [];
  const modeOf = (p: string): number | null => {
    try {
      return statSync(p).mode & 0o7777;
    } catch {
      return null; // missing (nothing configured yet), or not ours to look at: reading it says so
    }
  };
  const dirMode = modeOf(dir);
  if (dirMode !== null && (dirMode & 0o022) !== 0) {
    const who = (dirMode & 0o002) !== 0 ? 'any user' : 'other users of its group';
    problems.push({
      what: 'config-directory',
      path: terminalSafe(dir),
      problem: `can be changed by ${who} (mode ${octal(dirMode)}), who could replace the config and send the API key elsewhere`,
      fix: `chmod 700 ${shellWord(dir)}`,
    });
  }
  const fileMode = modeOf(path);
  if (fileMode !== null && (fileMode & 0o077) !== 0) {
    problems.push({
      what: 'config-file',
      path: terminalSafe(path),
      problem: `can be read by other users (mode ${octal(fileMode)}) and may hold API keys`,
      fix: `chmod 600 ${shellWord(path)}`,
    });
  }
  return problems;
}

const octal = (mode: number): string => `0${mode.toString(8).padStart(3, '0')}`;

/**
 * The configuration; a missing (or empty) file is no profiles at all. `warn` hears of
 * permissions that let others read the keys or change the file (configPermissionProblems).
 * A config.json that is not a regular file (a FIFO, a device, a directory) is refused: opened
 * without blocking and checked before it is read, so a FIFO never hangs a command.
 */
export function readConfigFile(
  env: NodeJS.ProcessEnv,
  options: { warn?: (message: string) => void; platform?: NodeJS.Platform } = {},
): ConfigFile {
  const path = configFilePath(env);
  if (options.warn)
    for (const p of configPermissionProblems(env, options.platform))
      options.warn(`${p.what === 'config-file' ? 'config file' : 'config directory'} ${p.path} ${p.problem}: ${p.fix}`);
  let text: string;
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new UsageError(
        `config file ${terminalSafe(path)} is ${kindOf(stat)}, not a file`,
        `move it away (${moveFileCommand(path, `${path}.old`)}) and try again`,
      );
    }
    text = readFileSync(fd, 'utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { profiles: emptyProfiles() };
    if (code === 'EISDIR')
      throw new UsageError(
        `config file ${terminalSafe(path)} is a directory, not a file`,
        `move it away (${moveFileCommand(path, `${path}.old`)}) and try again`,
      );
    const { message, hint } = fileFailure(path, e, 'config file');
    throw new UsageError(message, hint);
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
  text = text.replace(/^\uFEFF/, '');
  if (text.trim() === '') return { profiles: emptyProfiles() };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    // JSON.parse quotes a piece of the text in its message: shown inert, like anything read from a file.
    throw new UsageError(
      `config file ${terminalSafe(path)} is not valid JSON: ${terminalSafe((e as Error).message)}`,
      EDIT_HINT,
    );
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
    if (!(TOP_KEYS as readonly string[]).includes(key))
      fail(`unknown key ${quote(key)} (known: ${TOP_KEYS.join(', ')})`);
  }
  const result: ConfigFile = { profiles: emptyProfiles() };
  if (value.activeProfile !== undefined) {
    if (typeof value.activeProfile !== 'string' || !checkProfileName(value.activeProfile).ok)
      fail('activeProfile must be a profile name: 1 to 64 letters, digits, _ or -');
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
    if (!(PROFILE_KEYS as readonly string[]).includes(key))
      fail(`${where} has an unknown key ${quote(key)} (known: ${PROFILE_KEYS.join(', ')})`);
  }
  const profile: ProfileConfig = {};
  if (value.baseUrl !== undefined) {
    if (isSandbox)
      fail(
        `${where} cannot have a baseUrl: "sandbox" is the built-in embedded service (give a remote service another profile name)`,
      );
    const url =
      typeof value.baseUrl === 'string'
        ? checkBaseUrl(value.baseUrl)
        : ({ ok: false, problem: 'must be a string' } as const);
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
    const shape = `${where}.credentialStore must be {"service": "${CREDENTIAL_SERVICE}", "account": "${sym.ellipsis}"} (fraudctl login writes it)`;
    if (
      !isPlainObject(entry) ||
      Object.keys(entry).some((k) => k !== 'service' && k !== 'account') ||
      entry.service !== CREDENTIAL_SERVICE
    )
      fail(shape);
    const account = checkCredentialAccount((entry as Record<string, unknown>).account);
    if (!account.ok) fail(`${where}.credentialStore.account ${account.problem}`);
    if (profile.apiKey !== undefined) {
      fail(`${where} has both apiKey and credentialStore, and a key is kept in one place only: remove one of them`);
    }
    profile.credentialStore = {
      service: CREDENTIAL_SERVICE,
      account: (entry as Record<string, unknown>).account as string,
    };
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
  if (value.analyst !== undefined) {
    const analyst = checkAnalyst(value.analyst);
    if (!analyst.ok) fail(`${where}.analyst ${analyst.problem}`);
    profile.analyst = value.analyst as string;
  }
  if (value.reasons !== undefined) {
    const reasons = checkStoredReasons(value.reasons);
    if (!reasons.ok) fail(`${where}.reasons: ${reasons.problem}`);
    profile.reasons = value.reasons as string;
  }
  if (value.requireReason !== undefined) {
    if (typeof value.requireReason !== 'boolean') fail(`${where}.requireReason must be true or false`);
    profile.requireReason = value.requireReason as boolean;
  }
  return profile;
}

/**
 * Writes the configuration: directory created with mode 0700, file replaced atomically and left
 * with mode exactly 0600 (whatever mode an earlier file had). A failed write (a full disk, a
 * read-only one) leaves the old file as it was and no temp file behind: every byte goes through
 * writeFully, and the rename happens only after all of them are on disk.
 *
 * A symlinked config.json (dotfile managers) is written through: the link stays, the temp file
 * is made beside its target and renamed over it. Only a regular file of this user is replaced
 * that way; a link to anything else (a device, a FIFO, a directory), a dangling link, or a
 * link or target of another user is refused, as is a config.json that is itself not a file:
 * a rename would put a file where the device or FIFO was (as root, /dev/null became a copy of
 * the config) or in a place nobody asked for.
 * Plain node:fs: temp file in the same directory, fsync, rename is simple enough by hand.
 */
export function writeConfigFile(env: NodeJS.ProcessEnv, file: ConfigFile): void {
  const path = configFilePath(env);
  const text = serialise(checkConfigFile(file, path));
  ensureConfigDir(dirname(path));
  const target = writeTarget(path);
  // node:crypto taken here, not imported: every client command reads this file, few write it.
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', 0o600); // O_CREAT|O_EXCL: a fresh file, never someone else's
    fchmodSync(fd, 0o600); // the umask may have taken bits off the mode given to open
    writeFully(fd, text);
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
    const shown = target === path ? terminalSafe(path) : `${terminalSafe(path)} (a link to ${terminalSafe(target)})`;
    const { message, hint } = fileWriteFailure(target, e, 'config file', {
      shown,
      movedBy: MOVED_BY,
      at: dirname(target),
    });
    throw new CliError(`${message}; nothing was changed`, ExitCode.FAILURE, hint);
  }
}

/** What puts the config directory elsewhere, on every platform (xdg-paths.ts). */
const MOVED_BY = 'XDG_CONFIG_HOME';

/** The config directory, created with mode 0700 when missing; a failure names the level and the real cause. */
function ensureConfigDir(dir: string): void {
  try {
    makeDirectory(dir, 0o700);
  } catch (e) {
    if (!(e instanceof MakeDirectoryError)) throw e;
    const at = e.failedAt === dir ? '' : ` (at ${terminalSafe(e.failedAt)})`;
    throw new CliError(
      `cannot create the config directory ${terminalSafe(dir)}${at}: ${fileErrorCause(e.error)}`,
      ExitCode.FAILURE,
      fileErrorHint(e.error, e.existingParent, MOVED_BY),
    );
  }
}

/**
 * Where the new content goes: the path itself (missing, or a regular file), or, for a symlink,
 * its target, which must be an existing regular file; anything else is refused with a UsageError
 * saying what the path is and what to do.
 */
function writeTarget(path: string): string {
  const shown = terminalSafe(path);
  let link: Stats;
  try {
    link = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return path;
    const { message, hint } = fileWriteFailure(path, e, 'config file', { at: dirname(path) });
    throw new CliError(message, ExitCode.FAILURE, hint);
  }
  if (link.isFile()) return path;
  if (!link.isSymbolicLink()) {
    throw new UsageError(
      `config file ${shown} is ${kindOf(link)}, not a file: nothing was written`,
      `move it away (${moveFileCommand(path, `${path}.old`)}) and try again`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && link.uid !== uid) {
    // A link someone else put in the config directory (one others can write): never followed.
    throw new UsageError(
      `config file ${shown} is a symbolic link of another user (uid ${link.uid}): nothing was written`,
      `remove it if you did not make it: ${removeFileCommand(path)}`,
    );
  }
  let target: string;
  try {
    target = realpathSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // A dangling link is refused rather than followed: the file it names would be created in a
      // place that may no longer be what it was (a dotfiles checkout not there, a disk not mounted).
      const to = readlinkSync(path);
      const absolute = resolve(dirname(path), to);
      throw new UsageError(
        `config file ${shown} is a link to ${terminalSafe(absolute)}, which does not exist: nothing was written`,
        `create the file it points to (touch ${shellWord(absolute)}), or remove the link (${removeFileCommand(path)}), then try again`,
      );
    }
    throw new CliError(
      `cannot follow the link ${shown}: ${fileErrorCause(e)}`,
      ExitCode.FAILURE,
      `check where it points: ${listFilesCommand([path])}`,
    );
  }
  const targetStat = statSync(target);
  if (!targetStat.isFile()) {
    throw new UsageError(
      `config file ${shown} is a link to ${terminalSafe(target)}, which is ${kindOf(targetStat)}, not a file: nothing was written`,
      `replace the link with a file of its own: ${removeFileCommand(path)}`,
    );
  }
  if (uid !== undefined && targetStat.uid !== uid) {
    throw new UsageError(
      `config file ${shown} is a link to ${terminalSafe(target)}, a file of another user (uid ${targetStat.uid}): nothing was written`,
      `replace the link with a copy of your own: cp ${shellWord(target)} ${shellWord(`${path}.new`)} && mv ${shellWord(`${path}.new`)} ${shellWord(path)}`,
    );
  }
  return target;
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Read, change, write, under a lock (config-lock.ts), so that two processes changing the file
 * at once both keep their change. `change` edits the file it is given and returns false when
 * there is nothing to write.
 */
export function updateConfigFile(env: NodeJS.ProcessEnv, change: (file: ConfigFile) => boolean | void): void {
  const path = configFilePath(env);
  ensureConfigDir(dirname(path));
  // Beside the file a symlinked config.json names, not beside the link: two config directories
  // linking one file (a dotfiles checkout) take one lock, and neither writer's profile is lost.
  withFileLock(lockPathOf(path), () => {
    const file = readConfigFile(env);
    if (change(file) !== false) writeConfigFile(env, file);
  });
}

function serialise(file: ConfigFile): string {
  const profiles: Record<string, ProfileConfig> = emptyProfiles();
  for (const [name, p] of Object.entries(file.profiles)) {
    // A fixed key order, so that the file reads the same way whatever edited it last.
    profiles[name] = Object.fromEntries(
      PROFILE_KEYS.filter((k) => p[k] !== undefined).map((k) => [k, p[k]]),
    ) as ProfileConfig;
  }
  return `${JSON.stringify({ ...(file.activeProfile !== undefined ? { activeProfile: file.activeProfile } : {}), profiles }, null, 2)}\n`;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already failing; the first error is the one to report.
  }
}

/** A profiles record without a prototype: any valid name, "__proto__" included, is an ordinary key. */
export function emptyProfiles(): Record<string, ProfileConfig> {
  return Object.create(null) as Record<string, ProfileConfig>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
