import { CredentialStoreError, type CredentialStore } from '../../src/credentials/credential-store.js';
import type { OpenCredentialStore } from '../../src/credentials/profile-keys.js';

/*
 * A credential store of the test's own, for a command's run in-process: the system's keyring
 * library finds the session bus in this process's environment, so a test must not open it (on a
 * desktop it would store the test's key in the developer's keyring). Its entries are a Map to
 * look at; `unusable` makes opening it fail as a store with no session bus does.
 */
export interface FakeCredentialStore {
  entries: Map<string, string>;
  open: OpenCredentialStore;
}

export function fakeCredentialStore(options: { unusable?: string } = {}): FakeCredentialStore {
  const entries = new Map<string, string>();
  const store: CredentialStore = {
    set: async (account, key) => void entries.set(account, key),
    get: async (account) => entries.get(account) ?? null,
    delete: async (account) => entries.delete(account),
  };
  return {
    entries,
    open: async () => {
      if (options.unusable !== undefined) throw new CredentialStoreError(options.unusable);
      return store;
    },
  };
}
