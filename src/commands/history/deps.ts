import type { CliContext } from '../../process/cli-context.js';
import type { ApiClient } from '../../api/api-client.js';
import type { Session } from '../../session.js';
import { envFacts, outputStream, type PrintDeps } from '../room-deps.js';

/*
 * All that `history` takes from outside: the output streams and the environment facts it prints
 * by, which service this run reads (its URL, to compare with the logs', and the flags that chose
 * it, for a hint's command to reach the same one), and the one GET of the event now. historyDeps
 * builds the real ones from the session; a test builds its own (a sandbox on port 0).
 */

export interface HistoryDeps extends PrintDeps {
  /** The flags of this run that chose the service (--profile, --base-url, --insecure-http). */
  serviceFlags: readonly string[];
  /** The URL of the service this run reads; null: the embedded sandbox. */
  serviceUrl(): Promise<string | null>;
  /** The service's client, made at the call (a key read, the embedded sandbox started). */
  client(): Promise<Pick<ApiClient, 'getEvent'>>;
}

export function historyDeps(context: CliContext, session: Session): HistoryDeps {
  return {
    stdout: outputStream(context.stdout),
    stderr: outputStream(context.stderr),
    env: envFacts(context.env),
    serviceFlags: session.serviceFlags(),
    serviceUrl: async () => (await session.settings()).baseUrl,
    client: () => session.client(),
  };
}
