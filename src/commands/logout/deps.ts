import type { CliContext } from '../../process/cli-context.js';
import { credentialStoreName } from '../../credentials/credential-store.js';
import { systemCredentialStore, type OpenCredentialStore } from '../../credentials/profile-keys.js';

/*
 * All that `logout` takes from outside: where its notes go, the environment (where the config
 * file is, the active profile, FRAUDCTL_API_KEY) and the credential store. logoutDeps builds the
 * real ones from the process's context; a test gives its own (a temporary config directory, a
 * store of its own instead of the desktop's keyring).
 */

export interface LogoutDeps {
  stderr: { write(text: string): void };
  env: NodeJS.ProcessEnv;
  credentialStore: OpenCredentialStore;
  /** What the store is called here, for the message. */
  storeName: string;
}

export function logoutDeps(context: CliContext): LogoutDeps {
  return {
    stderr: { write: (text) => void context.stderr.write(text) },
    env: context.env,
    credentialStore: systemCredentialStore(context.env),
    storeName: credentialStoreName(),
  };
}
