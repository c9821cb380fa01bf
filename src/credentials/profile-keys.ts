import { CliError, ExitCode } from '../errors/cli-error.js';
import { readConfigFile, updateConfigFile, type CredentialStoreEntry, type ProfileConfig } from '../profiles/config-file.js';
import { saveApiKey, unsetSetting } from '../profiles/config-commands.js';
import { CREDENTIAL_SERVICE, credentialAccount, ownProfile, quote } from '../profiles/values.js';
import { CredentialStoreError, openCredentialStore, type CredentialStore } from './credential-store.js';

/*
 * Where `login` keeps a profile's key, and how `logout` forgets it: in the operating system's
 * credential store when one is usable, else (or with --insecure-storage) in the config file.
 * A key is kept in one place only: storing it in one place removes it from the other, in the
 * same locked update of the config file; when the other place cannot be changed, nothing is.
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

type StoreOpening = { store: CredentialStore } | { unusable: string };

async function openStore(): Promise<StoreOpening> {
  try {
    return { store: await openCredentialStore() };
  } catch (error) {
    if (error instanceof CredentialStoreError) return { unusable: error.why };
    throw error;
  }
}

/** The message of a store failure (CredentialStoreError), or the error itself when it is another. */
function whyOf(error: unknown): string {
  if (error instanceof CredentialStoreError) return error.why;
  throw error;
}

export async function saveProfileKey(env: NodeJS.ProcessEnv, toSave: KeyToSave): Promise<SavedKey> {
  const { profile, key, insecureStorage } = toSave;
  const before = ownProfile(readConfigFile(env).profiles, profile);
  // The store is opened when the key goes there, or when it must leave it.
  const opening: StoreOpening | null = !insecureStorage || before?.credentialStore !== undefined ? await openStore() : null;
  const store = opening && 'store' in opening ? opening.store : null;
  let storeUnusable = opening && 'unusable' in opening ? opening.unusable : undefined;
  const account = credentialAccount(profile, toSave.baseUrl);
  let place = 'file' as KeyPlace;
  let storedNow = false;
  let previousEntry: string | undefined;

  const inStore = (previous: ProfileConfig): CredentialStoreEntry | undefined => {
    previousEntry = previous.credentialStore?.account;
    place = 'file';
    if (!insecureStorage && store) {
      try {
        store.set(account, key);
        [place, storedNow] = ['credential-store', true];
      } catch (error) {
        storeUnusable = whyOf(error);
      }
    }
    if (place === 'credential-store') return { service: CREDENTIAL_SERVICE, account };
    if (previousEntry !== undefined) {
      // The key moves to the file: its entry in the store goes first, or nothing is saved.
      let why: string | undefined = storeUnusable ?? 'it could not be opened';
      if (store) {
        try {
          store.delete(previousEntry);
          why = undefined;
        } catch (error) {
          why = whyOf(error);
        }
      }
      if (why !== undefined) {
        throw new CliError(
          `nothing was saved: profile ${quote(profile)} keeps its key in the credential store (account ${quote(previousEntry)}), which cannot be changed from here, and a key is kept in one place only: ${why}`,
          ExitCode.AUTH,
          `run this login where the store can be reached (the desktop session), or set FRAUDCTL_API_KEY for this session`,
        );
      }
    }
    return undefined;
  };

  try {
    saveApiKey(env, profile, key, toSave.newBaseUrl, toSave.insecureHttp, inStore);
  } catch (error) {
    // The file was not written: an entry made by this call must not outlive it.
    if (storedNow && store && previousEntry !== account) {
      try {
        store.delete(account);
      } catch {
        // The first error is the one to report.
      }
    }
    throw error;
  }

  let warning: string | undefined;
  if (place === 'credential-store' && store && previousEntry !== undefined && previousEntry !== account) {
    // The profile's entry was under its earlier URL: the new one is recorded, the old one goes.
    try {
      store.delete(previousEntry);
    } catch (error) {
      warning = `the profile's earlier entry in the credential store (account ${quote(previousEntry)}) could not be removed (${whyOf(error)}): remove it with the store's own tool`;
    }
  }
  return { place, ...(place === 'file' && !insecureStorage && storeUnusable !== undefined ? { storeUnusable } : {}), ...(warning ? { warning } : {}) };
}

/** What logout found: where the key was, and whether the store still had its entry. */
export interface ForgottenKey {
  place: KeyPlace | null;
  /** For the store: false when the entry had already been removed. */
  entryWasThere?: boolean;
}

/**
 * Forgets a profile's key, wherever it is kept. A key in the store that cannot be removed from
 * here is an error (exit 3), and the profile is left as it was.
 */
export async function forgetProfileKey(env: NodeJS.ProcessEnv, profile: string): Promise<ForgottenKey> {
  const stored = ownProfile(readConfigFile(env).profiles, profile);
  if (stored?.credentialStore === undefined) {
    // unsetSetting also says "no profile" (exit 2) when the profile does not exist at all.
    unsetSetting(env, profile, 'api-key');
    return { place: stored?.apiKey !== undefined ? 'file' : null };
  }
  const opening = await openStore();
  const cannot = (why: string) =>
    new CliError(
      `cannot remove the API key of profile ${quote(profile)} from the credential store (account ${quote(stored.credentialStore!.account)}): ${why}; nothing was changed`,
      ExitCode.AUTH,
      `run fraudctl logout --profile ${profile} where the store can be reached (the desktop session)`,
    );
  if ('unusable' in opening) throw cannot(opening.unusable);
  let result: ForgottenKey = { place: null };
  updateConfigFile(env, (file) => {
    const now = ownProfile(file.profiles, profile);
    if (now === undefined) return false;
    const { apiKey, credentialStore, ...rest } = now;
    if (credentialStore !== undefined) {
      let deleted: boolean;
      try {
        deleted = opening.store.delete(credentialStore.account);
      } catch (error) {
        throw cannot(whyOf(error));
      }
      result = { place: 'credential-store', entryWasThere: deleted };
    } else if (apiKey !== undefined) {
      result = { place: 'file' };
    } else {
      return false;
    }
    file.profiles[profile] = rest;
  });
  return result;
}
