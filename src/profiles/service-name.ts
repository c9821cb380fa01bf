import { defaultSandboxDb } from '../paths/xdg-paths.js';
import { normalisedBaseUrl } from './value-rules.js';

/*
 * Which service a run talks to, in the words a results file's header records it
 * (src/results-file/run-binding.ts binds a --resume to it): never the key.
 */

/**
 * The service a run talks to, as a header records it: the settings' base URL (normalised), or
 * (null) the embedded sandbox and its database, found by the environment.
 */
export function serviceNamed(baseUrl: string | null, env: NodeJS.ProcessEnv): string {
  if (baseUrl === null) return `embedded sandbox (${defaultSandboxDb(env)})`;
  // The one normalisation of a profile's URL (case of scheme and host, default port, trailing slash).
  return normalisedBaseUrl(baseUrl);
}
