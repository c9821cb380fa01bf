import type { CliContext } from '../../process/cli-context.js';
import type { Prompter } from '../../prompter/prompter.js';
import { Session, type GlobalOptions } from '../../session.js';
import { credentialStoreName } from '../../credentials/credential-store.js';
import { systemCredentialStore, type OpenCredentialStore } from '../../credentials/profile-keys.js';

/*
 * All that `login` takes from outside: where its notes go, stdin (a piped key), the environment
 * (the config file's place, FRAUDCTL_* in the shell), a prompter when there is a terminal, a
 * client for the profile being logged into (to check the key before it is kept), and the
 * credential store. loginDeps builds the real ones; a test gives its own store: the system's
 * keyring library finds the session bus in this process's environment, not in the run's.
 */

/** The profile being logged into, which may not exist yet: its URL (null: the embedded sandbox) and the key to check. */
export interface ProbeTarget {
  profile: string;
  baseUrl: string | null;
  apiKey: string;
  insecureHttp: boolean;
}

/** What checking a key takes of a client: one GET, and closing it (and the sandbox it may have started). */
export interface ProbeClient {
  getEvent(id: string): Promise<unknown>;
  close(): Promise<void>;
}

export interface LoginDeps {
  stderr: { write(text: string): void };
  stdin: CliContext['stdin'];
  env: NodeJS.ProcessEnv;
  /** A terminal on both ends, and no --no-input: the key and the question are asked there. */
  canPrompt: boolean;
  prompter(): Promise<Prompter>;
  /** A client for `target` with this run's timeout and retries: the key is checked through it. */
  probe(target: ProbeTarget): Promise<ProbeClient>;
  credentialStore: OpenCredentialStore;
  /** What the store is called here, for the message. */
  storeName: string;
}

/** The real ones: the process's streams and environment, its terminal, a session for the profile, the system's store. */
export function loginDeps(context: CliContext, globals: GlobalOptions): LoginDeps {
  const session = new Session(context, globals);
  return {
    stderr: { write: (text) => void context.stderr.write(text) },
    get stdin() {
      return context.stdin;
    },
    env: context.env,
    canPrompt: session.canPrompt,
    prompter: () => session.prompter(),
    probe: async (target) => {
      const probeSession = session.withSettingsOverride(target);
      const client = await probeSession.client();
      return { getEvent: (id) => client.getEvent(id), close: () => probeSession.close() };
    },
    credentialStore: systemCredentialStore(context.env),
    storeName: credentialStoreName(),
  };
}
