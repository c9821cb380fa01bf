import type { CliContext } from '../../process/cli-context.js';
import type { ApiClient } from '../../api/api-client.js';
import type { Session } from '../../session.js';
import { envFacts, outputStream, type PrintDeps } from '../room-deps.js';

/*
 * All that `report` takes from outside: the output streams and the environment facts it renders
 * by, which service this run reads (its URL, to tell its lines from other services', and the
 * flags that chose it, for a hint's command to reach the same one), the client the decided events
 * are read through, and the shutdown signal that ends those reads. reportDeps builds the real
 * ones from the process and the session; a test builds its own (a sandbox on port 0).
 */

export interface ReportDeps extends PrintDeps {
  /** The flags of this run that chose the service (--profile, --base-url, --insecure-http). */
  serviceFlags: readonly string[];
  /** The URL of the service this run reads; null: the embedded sandbox. */
  serviceUrl(): Promise<string | null>;
  /** The service's client, made once before the reads; the signal ends the reads in flight. */
  client(options: { signal: AbortSignal }): Promise<Pick<ApiClient, 'getEvent'>>;
  /** Resolves at Ctrl-C (or a SIGTERM): the reads end, and the report says it was interrupted. */
  waitForShutdown: CliContext['waitForShutdown'];
}

export function reportDeps(context: CliContext, session: Session): ReportDeps {
  return {
    stdout: outputStream(context.stdout),
    stderr: outputStream(context.stderr),
    env: envFacts(context.env),
    serviceFlags: session.serviceFlags(),
    serviceUrl: async () => (await session.settings()).baseUrl,
    client: (options) => session.client(options),
    waitForShutdown: () => context.waitForShutdown(),
  };
}
