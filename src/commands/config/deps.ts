import type { CliContext } from '../../process/cli-context.js';
import type { Prompter } from '../../prompter/prompter.js';
import { Session, type GlobalOptions } from '../../session.js';
import { credentialStoreName } from '../../credentials/credential-store.js';
import { systemCredentialStore, type OpenCredentialStore } from '../../credentials/profile-keys.js';

/*
 * All that `config` takes from outside: its two output streams, the environment (where the
 * config file is, FRAUDCTL_* in the shell, colour), a prompter when there is a terminal, and the
 * credential store (unset api-key and delete forget a key). configDeps builds the real ones; a
 * test gives its own streams and store.
 */

export interface ConfigDeps {
  stdout: CliContext['stdout'];
  stderr: CliContext['stderr'];
  env: NodeJS.ProcessEnv;
  /** A terminal on both ends, and no --no-input: a question may be asked. */
  canPrompt: boolean;
  prompter(): Promise<Prompter>;
  credentialStore: OpenCredentialStore;
  /** What the store is called here, for messages. */
  storeName: string;
}

export function configDeps(context: CliContext, globals: GlobalOptions): ConfigDeps {
  const session = new Session(context, globals);
  return {
    stdout: context.stdout,
    stderr: context.stderr,
    env: context.env,
    canPrompt: session.canPrompt,
    prompter: () => session.prompter(),
    credentialStore: systemCredentialStore(context.env),
    storeName: credentialStoreName(),
  };
}
