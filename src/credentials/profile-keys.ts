import { CliError, ExitCode } from '../errors/cli-error.js';
import {
  readConfigFile,
  updateConfigFile,
  type CredentialStoreEntry,
  type ProfileConfig,
} from '../profiles/config-file.js';
import { saveApiKey, unsetSetting } from '../profiles/stored-profiles.js';
import { CREDENTIAL_SERVICE, credentialAccount, ownProfile, quote } from '../profiles/value-rules.js';
import { shellCommand } from '../render/shell-command.js';
import {
  CredentialStoreError,
  credentialStoreName,
  keyringTimeoutMs,
  openCredentialStore,
  type CredentialStore,
} from './credential-store.js';

/*
 * Where `login` keeps a profile's key, and how `logout` forgets it: in the operating system's
 * credential store when one is usable, else (or with --insecure-storage) in the config file.
 * A key is kept in one place only: storing it in one place removes it from the other; when the
 * other place cannot be changed, nothing is.
 *
 * The store's calls are asynchronous and may take up to their time limit (credential-store.ts),
 * longer than the config file's lock may be held (config-lock.ts takes over a lock 10 s old), so
 * they are made before the file is changed under its lock, never under it:
 *   - into the store: the entry is written, then the file records it (and drops a key it held);
 *     if the file cannot be written, the entry made for it is removed again;
 *   - into the file, from the store: the entry is removed, then the file gets the key;
 *   - logout: the entry is removed, then the file forgets it.
 * A store that answers that it cannot be used (no session bus, no keyring) sends a login's key
 * to the file, with a note. A store that does not answer in time changes nothing in the file
 * (exit 3): it may yet carry the call out, so the key is not put in the file as if it could not
 * have been stored, and the profile is not made to name an entry that may not exist.
 */

export type KeyPlace = 'credential-store' | 'file';

export interface SavedKey {
  place: KeyPlace;
  /** Why the credential store was not used, when it was wanted (no --insecure-storage). */
  storeUnusable?: string;
  /** Something the user should know that did not stop the login. */
  warning?: string;
}

export interface KeyToSave {
  profile: string;
  key: string;
  /** The URL given to this login, to record in the profile. */
  newBaseUrl?: string;
  /** The profile's URL, normalised (null: the embedded sandbox): part of the store entry's account. */
  baseUrl: string | null;
  insecureHttp: boolean;
  /** --insecure-storage: the config file, on purpose. */
  insecureStorage: boolean;
}

/**
 * Opens the credential store: the system's (systemCredentialStore), or a test's own. A store that
 * cannot be used throws a CredentialStoreError saying why.
 */
export type OpenCredentialStore = () => Promise<CredentialStore>;

/** The operating system's store, with the time limit FRAUDCTL_KEYRING_TIMEOUT gives its calls. */
export const systemCredentialStore =
  (env: NodeJS.ProcessEnv): OpenCredentialStore =>
  () =>
    openCredentialStore(keyringTimeoutMs(env));

type StoreOpening = { store: CredentialStore } | { unusable: string };

async function openStore(open: OpenCredentialStore): Promise<StoreOpening> {
  try {
    return { store: await open() };
  } catch (error) {
    if (error instanceof CredentialStoreError) return { unusable: error.why };
    throw error;
  }
}

/** The store's failure (a CredentialStoreError), or the error itself thrown again when it is another. */
function storeFailure(error: unknown): CredentialStoreError {
  if (error instanceof CredentialStoreError) return error;
  throw error;
}

/** The login command again, with this one's service flags, and `--insecure-storage`: a way past a store that does not answer. */
function insecureLogin(toSave: KeyToSave): string {
  const words = ['fraudctl', 'login', '--profile', toSave.profile];
  if (toSave.newBaseUrl !== undefined) words.push('--base-url', toSave.newBaseUrl);
  if (toSave.insecureHttp) words.push('--insecure-http');
  return shellCommand([...words, '--insecure-storage']);
}

/** Keeps a login's key, already checked against the service, in one place: the parts below, in the order they run. */
export async function saveProfileKey(
  env: NodeJS.ProcessEnv,
  toSave: KeyToSave,
  open: OpenCredentialStore = systemCredentialStore(env),
): Promise<SavedKey> {
  const { profile, insecureStorage } = toSave;
  const previousEntry = ownProfile(readConfigFile(env).profiles, profile)?.credentialStore?.account;
  // The store is opened when the key goes there, or when it must leave it.
  const opening: StoreOpening | null = !insecureStorage || previousEntry !== undefined ? await openStore(open) : null;
  const store = opening && 'store' in opening ? opening.store : null;
  const account = credentialAccount(profile, toSave.baseUrl);
  const placed =
    !insecureStorage && store ? await putInStore(store, account, toSave, previousEntry) : { place: 'file' as const };
  const storeUnusable = placed.storeUnusable ?? (opening && 'unusable' in opening ? opening.unusable : undefined);
  if (placed.place === 'file' && previousEntry !== undefined)
    await takeOutOfStore(store, previousEntry, storeUnusable, profile);
  const entryAtLock = await recordInFile(env, toSave, { place: placed.place, account, previousEntry, store });
  const warning =
    placed.place === 'credential-store' && store
      ? await removeEarlierEntries(store, account, [previousEntry, entryAtLock])
      : undefined;
  return {
    place: placed.place,
    ...(placed.place === 'file' && !insecureStorage && storeUnusable !== undefined ? { storeUnusable } : {}),
    ...(warning ? { warning } : {}),
  };
}

/** Where a login's key went: the store, or the file with why the store could not take it. */
type Placed = { place: 'credential-store'; storeUnusable?: undefined } | { place: 'file'; storeUnusable?: string };

/**
 * The key into the store, under `account`. A store that refuses sends the key to the file (with
 * why); a store that does not answer in time saves nothing (exit 3): it may yet store the key.
 */
async function putInStore(
  store: CredentialStore,
  account: string,
  toSave: KeyToSave,
  previousEntry: string | undefined,
): Promise<Placed> {
  try {
    await store.set(account, toSave.key);
    return { place: 'credential-store' };
  } catch (error) {
    const failure = storeFailure(error);
    if (!failure.unanswered) return { place: 'file', storeUnusable: failure.why };
    throw new CliError(
      `nothing was saved: the key could not be stored in ${credentialStoreName()}: ${failure.why}`,
      ExitCode.AUTH,
      previousEntry === undefined
        ? `unlock the keyring and run this login again, or keep the key in the config file: ${insecureLogin(toSave)}`
        : `unlock the keyring and run this login again (the profile's key is in the store, and only there can it be changed)`,
    );
  }
}

/**
 * The key moves to the file: the profile's entry in the store goes first, or nothing is saved
 * (a key is kept in one place only). `store` null: it could not be opened, for `unusable`.
 */
async function takeOutOfStore(
  store: CredentialStore | null,
  entry: string,
  unusable: string | undefined,
  profile: string,
): Promise<void> {
  const why = store ? await deletionFailure(store, entry) : (unusable ?? 'it could not be opened');
  if (why === undefined) return;
  throw new CliError(
    `nothing was saved: profile ${quote(profile)} keeps its key in the credential store (account ${quote(entry)}), which cannot be changed from here, and a key is kept in one place only: ${why}`,
    ExitCode.AUTH,
    `run this login where the store can be reached and answers (the desktop session, the keyring unlocked), or set FRAUDCTL_API_KEY for this session`,
  );
}

/**
 * Records the key in the profile, under the file's lock: in the file, or as the store's entry
 * (`where.place`). Returns the entry the profile named at that moment: another login may have
 * changed it meanwhile. If the file cannot be written, an entry made by this login must not
 * outlive it: it is removed again. (An entry the profile already named keeps the new key: the
 * file still names it, and the key works.)
 */
async function recordInFile(
  env: NodeJS.ProcessEnv,
  toSave: KeyToSave,
  where: { place: KeyPlace; account: string; previousEntry: string | undefined; store: CredentialStore | null },
): Promise<string | undefined> {
  const { place, account, previousEntry, store } = where;
  let entryAtLock: string | undefined;
  const inStore = (now: ProfileConfig): CredentialStoreEntry | undefined => {
    entryAtLock = now.credentialStore?.account;
    if (place === 'credential-store') return { service: CREDENTIAL_SERVICE, account };
    if (entryAtLock !== undefined && entryAtLock !== previousEntry) {
      throw new CliError(
        `nothing was saved: profile ${quote(toSave.profile)} was given a key in the credential store while this login ran`,
        ExitCode.FAILURE,
        'run this login again',
      );
    }
    return undefined;
  };
  try {
    saveApiKey(env, toSave.profile, toSave.key, toSave.newBaseUrl, toSave.insecureHttp, inStore);
  } catch (error) {
    // The first error is the one to report: whatever removing the entry meets is dropped.
    if (place === 'credential-store' && store && account !== previousEntry)
      await deletionFailure(store, account).catch(() => undefined);
    throw error;
  }
  return entryAtLock;
}

/**
 * The profile's entries under an earlier URL, now that the new one is recorded: each is removed.
 * Returns the warning for one that could not be (the login stands).
 */
async function removeEarlierEntries(
  store: CredentialStore,
  account: string,
  earlier: (string | undefined)[],
): Promise<string | undefined> {
  let warning: string | undefined;
  for (const entry of new Set(earlier)) {
    if (entry === undefined || entry === account) continue;
    const why = await deletionFailure(store, entry);
    if (why !== undefined)
      warning = `the profile's earlier entry in the credential store (account ${quote(entry)}) could not be removed (${why}): remove it with the store's own tool`;
  }
  return warning;
}

/** Removes `entry` from the store: undefined when done (or it was not there), else why not. */
async function deletionFailure(store: CredentialStore, entry: string): Promise<string | undefined> {
  try {
    await store.delete(entry);
    return undefined;
  } catch (error) {
    return storeFailure(error).why;
  }
}

/** What logout found: where the key was, and whether the store still had its entry. */
export interface ForgottenKey {
  place: KeyPlace | null;
  /** For the store: false when the entry had already been removed. */
  entryWasThere?: boolean;
}

/**
 * Forgets a profile's key, wherever it is kept. A key in the store that cannot be removed from
 * here (or whose store does not answer in time) is an error (exit 3), and the profile is left
 * as it was.
 */
export async function forgetProfileKey(
  env: NodeJS.ProcessEnv,
  profile: string,
  open: OpenCredentialStore = systemCredentialStore(env),
): Promise<ForgottenKey> {
  const stored = ownProfile(readConfigFile(env).profiles, profile);
  if (stored?.credentialStore === undefined) {
    // unsetSetting also says "no profile" (exit 2) when the profile does not exist at all.
    unsetSetting(env, profile, 'api-key');
    return { place: stored?.apiKey !== undefined ? 'file' : null };
  }
  const { account } = stored.credentialStore;
  const cannot = (why: string) =>
    new CliError(
      `cannot remove the API key of profile ${quote(profile)} from the credential store (account ${quote(account)}): ${why}; nothing was changed`,
      ExitCode.AUTH,
      `run fraudctl logout --profile ${profile} where the store can be reached and answers (the desktop session, the keyring unlocked)`,
    );
  const opening = await openStore(open);
  if ('unusable' in opening) throw cannot(opening.unusable);
  let entryWasThere: boolean;
  try {
    entryWasThere = await opening.store.delete(account);
  } catch (error) {
    throw cannot(storeFailure(error).why);
  }
  updateConfigFile(env, (file) => {
    const now = ownProfile(file.profiles, profile);
    // Gone, or given another entry by a login meanwhile: that one is not this logout's to forget.
    if (now?.credentialStore?.account !== account) return false;
    const { apiKey: _apiKey, credentialStore: _credentialStore, ...rest } = now;
    file.profiles[profile] = rest;
  });
  return { place: 'credential-store', entryWasThere };
}
