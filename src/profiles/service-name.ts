import { defaultSandboxDb } from '../paths/xdg-paths.js';
import type { Session } from '../session.js';
import { normalisedBaseUrl } from './value-rules.js';

/*
 * Which service a run talks to, in the words a results file's header records it
 * (src/results-file/run-binding.ts binds a --resume to it): never the key.
 */

/** The service a session talks to, as a header records it: the base URL (normalised), or the embedded sandbox and its database. */
export async function serviceOf(session: Session): Promise<string> {
  return serviceNamed((await session.settings()).baseUrl, session.context.env);
}

/** The same, from the settings' base URL (null: the embedded sandbox) and the environment its database is found by. */
export function serviceNamed(baseUrl: string | null, env: NodeJS.ProcessEnv): string {
  if (baseUrl === null) return `embedded sandbox (${defaultSandboxDb(env)})`;
  // The one normalisation of a profile's URL (case of scheme and host, default port, trailing slash).
  return normalisedBaseUrl(baseUrl);
}
