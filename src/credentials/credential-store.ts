import { CliError, ExitCode } from '../errors/cli-error.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import { CREDENTIAL_SERVICE, checkApiKey, quote } from '../profiles/values.js';

/*
 * The operating system's credential store, through @napi-rs/keyring (prebuilt N-API binaries):
 * the Secret Service on Linux (GNOME Keyring, KWallet, KeePassXC), the Keychain on macOS, the
 * Credential Manager on Windows. A profile's key is one entry, service "fraudctl" and an account
 * naming the profile and its URL (profiles/values.ts); the config file records the account.
 *
 * This module is small and part of the client's code; the library (JavaScript and a native
 * binary, about 4 ms to load) is required only when the store is opened: a command whose key
 * comes from FRAUDCTL_API_KEY or the config file never loads it (bench:startup). Required, not
 * import()ed: it is CommonJS, and an ESM import of CommonJS first runs Node's export lexer,
 * which costs Node 20 about 5 ms more (WebAssembly compiled at first use).
 *
 * The library's synchronous Entry is used: its constructor already connects to the store on the
 * calling thread (so AsyncEntry would save nothing), and login and logout change the store and
 * the config file under one lock (profiles/config-file.ts: updateConfigFile takes a sync change).
 */

type Keyring = typeof import('@napi-rs/keyring');

/** The store is not usable, or an operation on it failed: `why` is said in a message. */
export class CredentialStoreError extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'CredentialStoreError';
  }
}

export interface CredentialStore {
  /** Stores (or replaces) the key under `account`. */
  set(account: string, key: string): void;
  /** The key under `account`, or null when there is no such entry. */
  get(account: string): string | null;
  /** Removes the entry; false when there was none. */
  delete(account: string): boolean;
}

/** What the store is called on this platform, for messages. */
export function credentialStoreName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'the macOS Keychain';
  if (platform === 'win32') return 'the Windows Credential Manager';
  return 'the Secret Service keyring';
}

/** Loads the library; every operation after it may still fail (no session bus, a locked store). */
export async function openCredentialStore(): Promise<CredentialStore> {
  let keyring: Keyring;
  try {
    const { createRequire } = process.getBuiltinModule('node:module');
    keyring = createRequire(import.meta.url)('@napi-rs/keyring') as Keyring;
  } catch (error) {
    // No prebuilt binary for this platform, or an install without optional dependencies.
    throw new CredentialStoreError(`its library could not be loaded on this system (${detail(error)})`);
  }
  const entry = (account: string) =>
    attempt(
      // On Linux, only the Secret Service: the library's other choice, the kernel keyring, is
      // in memory only (a key there would be gone after a reboot) and would be chosen silently.
      () => new keyring.Entry(CREDENTIAL_SERVICE, account, { linux: { store: 'secret-service' } }),
    );
  return {
    set: (account, key) => attempt(() => entry(account).setPassword(key), key),
    get: (account) => attempt(() => entry(account).getPassword()),
    delete: (account) => attempt(() => entry(account).deleteCredential()),
  };
}

function attempt<T>(operation: () => T, key?: string): T {
  try {
    return operation();
  } catch (error) {
    if (error instanceof CredentialStoreError) throw error;
    throw new CredentialStoreError(reason(error, key));
  }
}

/** The library's message, shown inert, shortened, and never holding the key being stored. */
function detail(error: unknown, key?: string): string {
  let text = error instanceof Error ? error.message : String(error);
  if (key) text = text.split(key).join('[redacted]');
  return terminalSafe(truncate(text.replace(/\s+/g, ' ').trim(), 200));
}

/** Why the store could not be used, in words a user can act on (the library's own words otherwise). */
function reason(error: unknown, key?: string): string {
  const text = detail(error, key);
  if (/DBUS_SESSION_BUS_ADDRESS|autolaunch/i.test(text)) {
    return 'this session has no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), as in an SSH login, a cron job or a container';
  }
  if (/not provided by any \.service files|ServiceUnknown|NameHasNoOwner/i.test(text)) return 'no Secret Service (GNOME Keyring, KWallet) answers on this session\'s D-Bus';
  if (/Failed to connect to socket|NoServer|Connection refused/i.test(text)) return 'the D-Bus session bus named by DBUS_SESSION_BUS_ADDRESS cannot be reached';
  if (/prompt was dismissed|locked/i.test(text)) return 'the keyring is locked, and could not be unlocked from here';
  return `the store failed: ${text}`;
}

/**
 * The key of `profile`, read from its entry: the one place a stored key is read. Anything that
 * goes wrong is one line saying where the key should be, why it could not be read, and the way
 * out, exit 3; never another key in its place.
 */
export async function readStoredKey(profile: string, account: string): Promise<string> {
  const where = `${credentialStoreName()} (entry ${quote(CREDENTIAL_SERVICE)}, account ${quote(account)})`;
  const login = `fraudctl login --profile ${profile}`;
  let key: string | null;
  try {
    key = (await openCredentialStore()).get(account);
  } catch (error) {
    if (!(error instanceof CredentialStoreError)) throw error;
    const locked = /locked/.test(error.why);
    throw new CliError(
      `cannot read the API key of profile ${quote(profile)} from ${where}: ${error.why}`,
      ExitCode.AUTH,
      locked
        ? `unlock the keyring (log in to the desktop, or open its keyring manager), or set FRAUDCTL_API_KEY for this session`
        : `set FRAUDCTL_API_KEY for this session (an SSH login cannot reach the desktop's keyring), or run ${login} where the store is reachable`,
    );
  }
  if (key === null) {
    throw new CliError(`the API key of profile ${quote(profile)} is not in ${where}: the entry was removed`, ExitCode.AUTH, `store it again: ${login} (or set FRAUDCTL_API_KEY)`);
  }
  if (!checkApiKey(key).ok) {
    // Someone else's value under our entry; never quoted back.
    throw new CliError(`the entry for profile ${quote(profile)} in ${where} does not hold a usable API key`, ExitCode.AUTH, `store it again: ${login}`);
  }
  return key;
}
