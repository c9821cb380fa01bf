import type { CliContext } from '../../process/cli-context.js';
import type { ApiClient } from '../../api/api-client.js';
import type { Settings } from '../../profiles/settings.js';
import { credentialStoreName } from '../../credentials/credential-store.js';
import type { Session } from '../../session.js';

/*
 * All that `doctor` takes from outside: its two output streams, the environment (the config
 * file's place, proxies, CA files), the settings in force, the key (read from the credential
 * store when it is kept there) and the service's client. doctorDeps builds them from the
 * process's context and the run's session; a test gives a session a credential store of its own
 * (the system's keyring library reads the session bus from this process's environment).
 */

export interface DoctorDeps {
  stdout: CliContext['stdout'];
  stderr: CliContext['stderr'];
  env: NodeJS.ProcessEnv;
  /** The settings of this run; a CliError says what is wrong with them (a check that fails). */
  settings(): Promise<Settings>;
  /** The key in force, read from the credential store when it is kept there; a CliError when it cannot be. */
  apiKey(): Promise<string>;
  /** The service's client (the embedded sandbox started when no URL is set); a CliError when it cannot be made. */
  client(): Promise<ApiClient>;
  /** What the store is called here, for the key's check. */
  storeName: string;
}

export function doctorDeps(context: CliContext, session: Session): DoctorDeps {
  return {
    stdout: context.stdout,
    stderr: context.stderr,
    env: context.env,
    settings: () => session.settings(),
    apiKey: () => session.apiKey(),
    client: () => session.client(),
    storeName: credentialStoreName(),
  };
}
