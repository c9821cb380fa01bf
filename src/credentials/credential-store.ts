import { CliError, ExitCode } from '../errors/cli-error.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import { setEnvCommand, unsetEnvCommand } from '../render/shell-command.js';
import { CREDENTIAL_SERVICE, checkApiKey, orThrow, parseTimeoutSeconds, quote } from '../profiles/value-rules.js';
import { redactKeyIn } from '../render/redact.js';
import { strandCall } from '../process/stranded-calls.js';

/*
 * The operating system's credential store, through @napi-rs/keyring (prebuilt N-API binaries):
 * the Secret Service on Linux (GNOME Keyring, KWallet, KeePassXC), the Keychain on macOS, the
 * Credential Manager on Windows. A profile's key is one entry, service "fraudctl" and an account
 * naming the profile and its URL (profiles/value-rules.ts); the config file records the account.
 *
 * This module is small and part of the client's code; the library (JavaScript and a native
 * binary) is required, not import()ed, and only when the store is opened: a command whose key
 * comes from FRAUDCTL_API_KEY or the config file never loads it (the figures:
 * docs/decisions/keyring-library-on-use.md).
 *
 * Every call has a time limit. A store can keep a caller waiting for good: a locked keyring
 * shows an unlock prompt and the library waits for its answer (up to a year), on a desktop
 * nobody is at, or in a job started in a desktop session. The library's AsyncEntry runs each
 * call in libuv's thread pool, so the command can give up and say so; a call given up on goes
 * on in its thread (the AbortSignal it is given only cancels a call that has not started), and
 * stranded-calls.ts is told, for the process must then end in a way that does not wait for it.
 * The entry's constructor connects to the store on the calling thread (on Linux: D-Bus Hello and
 * OpenSession, each limited by the library to 2 s): a keyring that hangs makes it fail with
 * D-Bus "NoReply" after 2 s, and so does any call on it; that is retried until the time limit,
 * so that a slow keyring gets the whole time and the message always names the same limit. A
 * session bus that accepts connections and never answers (a stopped dbus-daemon) blocks that
 * constructor before any time limit can run: then the whole desktop session is frozen.
 */

type Keyring = typeof import('@napi-rs/keyring');
type AsyncEntry = InstanceType<Keyring['AsyncEntry']>;

/**
 * How long a call may take by default: 30 s, as gh waits for its keyring ("enough time for the
 * user to authenticate"): time to notice an unlock prompt that just opened and type a password,
 * and still short enough that a job on a box where nobody will answer fails within a CI step.
 */
export const DEFAULT_KEYRING_TIMEOUT_SECONDS = 30;

/** FRAUDCTL_KEYRING_TIMEOUT (seconds), or the default. */
export function keyringTimeoutMs(env: NodeJS.ProcessEnv): number {
  const text = env.FRAUDCTL_KEYRING_TIMEOUT;
  if (text === undefined || text === '') return DEFAULT_KEYRING_TIMEOUT_SECONDS * 1000;
  const seconds = orThrow(
    parseTimeoutSeconds(text),
    'FRAUDCTL_KEYRING_TIMEOUT',
    quote(text),
    `set it to a number of seconds (${setEnvCommand('FRAUDCTL_KEYRING_TIMEOUT', '60')}), or remove it (${unsetEnvCommand(['FRAUDCTL_KEYRING_TIMEOUT'])})`,
  );
  return Math.ceil(seconds * 1000);
}

/** The store is not usable, or an operation on it failed: `why` is said in a message. */
export class CredentialStoreError extends Error {
  constructor(
    readonly why: string,
    /** It did not answer within the time limit: a call may still be under way, and may yet take effect. */
    readonly unanswered = false,
  ) {
    super(why);
    this.name = 'CredentialStoreError';
  }
}

export interface CredentialStore {
  /** Stores (or replaces) the key under `account`. */
  set(account: string, key: string): Promise<void>;
  /** The key under `account`, or null when there is no such entry. */
  get(account: string): Promise<string | null>;
  /** Removes the entry; false when there was none. */
  delete(account: string): Promise<boolean>;
}

/** What the store is called on this platform, for messages. */
export function credentialStoreName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'the macOS Keychain';
  if (platform === 'win32') return 'the Windows Credential Manager';
  return 'the Secret Service keyring';
}

/** `30 s`, `0.5 s`. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/**
 * Loads the library; every operation after it may still fail (no session bus, a locked store),
 * or not answer within `timeoutMs` (keyringTimeoutMs).
 */
export async function openCredentialStore(timeoutMs: number): Promise<CredentialStore> {
  let keyring: Keyring;
  try {
    const { createRequire } = process.getBuiltinModule('node:module');
    keyring = createRequire(import.meta.url)('@napi-rs/keyring') as Keyring;
  } catch (error) {
    // No prebuilt binary for this platform, or an install without optional dependencies.
    throw new CredentialStoreError(`its library could not be loaded on this system (${detail(error)})`);
  }
  const call = <T>(account: string, operation: (entry: AsyncEntry, signal: AbortSignal) => Promise<T>, key?: string) =>
    // On Linux, only the Secret Service: the library's other choice, the kernel keyring, is
    // in memory only (a key there would be gone after a reboot) and would be chosen silently.
    within(
      timeoutMs,
      () => new keyring.AsyncEntry(CREDENTIAL_SERVICE, account, { linux: { store: 'secret-service' } }),
      operation,
      key,
    );
  return {
    set: (account, key) => call(account, (entry, signal) => entry.setPassword(key, signal), key),
    get: (account) => call(account, (entry, signal) => entry.getPassword(signal)),
    delete: (account) => call(account, (entry, signal) => entry.deleteCredential(signal)),
  };
}

/** Most of the 2 s the library gives a D-Bus call: a NoReply after that long is a wait that ran out. */
const NO_REPLY_WAIT_MS = 1_500;

/** D-Bus gave up on a reply (the library waits 2 s for each): the keyring hangs, or is very slow. */
function noReply(error: unknown): boolean {
  return error instanceof Error && /Did not receive a reply|NoReply/.test(error.message);
}

/**
 * One operation on a new entry, given up after `timeoutMs` in all (see the top of this file);
 * a call given up on is handed to stranded-calls.ts.
 */
async function within<T>(
  timeoutMs: number,
  entry: () => AsyncEntry,
  operation: (entry: AsyncEntry, signal: AbortSignal) => Promise<T>,
  key?: string,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  const unanswered = () =>
    new CredentialStoreError(
      `it did not answer within ${seconds(timeoutMs)} (an unlock prompt left unanswered, or a keyring that hangs)`,
      true,
    );
  for (;;) {
    const started = performance.now();
    try {
      // Synchronous: blocks this thread while it connects (at most 2 s on a keyring that hangs).
      const opened = entry();
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw unanswered();
      const controller = new AbortController();
      const running = operation(opened, controller.signal);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          strandCall(running);
          reject(unanswered());
        }, remaining);
      });
      try {
        return await Promise.race([running, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    } catch (error) {
      if (error instanceof CredentialStoreError) throw error;
      // Tried again only after a wait: D-Bus says NoReply at once too, for a keyring that quit mid-call.
      if (noReply(error) && performance.now() - started >= NO_REPLY_WAIT_MS) {
        if (performance.now() < deadline) continue;
        throw unanswered();
      }
      throw new CredentialStoreError(reason(error, key));
    }
  }
}

/** The library's message, shown inert, shortened, and never holding the key being stored. */
function detail(error: unknown, key?: string): string {
  let text = error instanceof Error ? error.message : String(error);
  text = redactKeyIn(text, key);
  return terminalSafe(truncate(text.replace(/\s+/g, ' ').trim(), 200));
}

/** Why the store could not be used, in words a user can act on (the library's own words otherwise). */
function reason(error: unknown, key?: string): string {
  const text = detail(error, key);
  if (/DBUS_SESSION_BUS_ADDRESS|autolaunch/i.test(text)) {
    return 'this session has no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), as in an SSH login, a cron job or a container';
  }
  if (/not provided by any \.service files|ServiceUnknown|NameHasNoOwner/i.test(text))
    return "no Secret Service (GNOME Keyring, KWallet) answers on this session's D-Bus";
  if (/Failed to connect to socket|NoServer|Connection refused/i.test(text))
    return 'the D-Bus session bus named by DBUS_SESSION_BUS_ADDRESS cannot be reached';
  // A word of its own: D-Bus's NoReply text says "the message bus security policy blocked the reply".
  if (/prompt was dismissed|\blocked\b/i.test(text))
    return 'the keyring is locked, and could not be unlocked from here';
  return `the store failed: ${text}`;
}

/**
 * The key of `profile`, read from its entry: the one place a stored key is read. Anything that
 * goes wrong is one line saying where the key should be, why it could not be read, and the way
 * out, exit 3; never another key in its place.
 */
export async function readStoredKey(
  profile: string,
  account: string,
  env: NodeJS.ProcessEnv,
  open: () => Promise<CredentialStore> = () => openCredentialStore(keyringTimeoutMs(env)),
): Promise<string> {
  const where = `${credentialStoreName()} (entry ${quote(CREDENTIAL_SERVICE)}, account ${quote(account)})`;
  const login = `fraudctl login --profile ${profile}`;
  let key: string | null;
  try {
    key = await (await open()).get(account);
  } catch (error) {
    if (!(error instanceof CredentialStoreError)) throw error;
    // Not "blocked": D-Bus's NoReply text says "the message bus security policy blocked the reply".
    const locked = /\blocked\b/i.test(error.why);
    throw new CliError(
      `cannot read the API key of profile ${quote(profile)} from ${where}: ${error.why}`,
      ExitCode.AUTH,
      error.unanswered
        ? `unlock the keyring (answer its prompt on the desktop, or open its keyring manager) and run the command again, or set FRAUDCTL_API_KEY for this session`
        : locked
          ? `unlock the keyring (log in to the desktop, or open its keyring manager), or set FRAUDCTL_API_KEY for this session`
          : `set FRAUDCTL_API_KEY for this session (an SSH login cannot reach the desktop's keyring), or run ${login} where the store is reachable`,
    );
  }
  if (key === null) {
    throw new CliError(
      `the API key of profile ${quote(profile)} is not in ${where}: the entry was removed`,
      ExitCode.AUTH,
      `store it again: ${login} (or set FRAUDCTL_API_KEY)`,
    );
  }
  if (!checkApiKey(key).ok) {
    // Someone else's value under our entry; never quoted back.
    throw new CliError(
      `the entry for profile ${quote(profile)} in ${where} does not hold a usable API key`,
      ExitCode.AUTH,
      `store it again: ${login}`,
    );
  }
  return key;
}
