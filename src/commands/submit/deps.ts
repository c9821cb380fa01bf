import type { ApiClient } from '../../api/api-client.js';
import type { CliContext } from '../../process/cli-context.js';
import { serviceNamed } from '../../profiles/service-name.js';
import type { Session } from '../../session.js';
import type { BatchDeps } from '../../submit-batch/run-submit-batch.js';
import { envFacts, outputStream, type PrintDeps } from '../room-deps.js';

/*
 * All that `submit` takes from outside. One event: the output streams and colour facts, stdin,
 * the client (with the signal a Ctrl-C aborts it by) and the wait for that Ctrl-C. A batch: the
 * process's streams and signal hooks as the pool uses them, the pool's client and the settings it
 * reads (src/submit-batch/run-submit-batch.ts BatchDeps). submitDeps builds the real ones from the
 * process's context and the run's session; a test builds its own (a sandbox on port 0).
 */

/** What one event takes of the client: the POST, and the GET of an event the service had already. */
export type EventClient = Pick<ApiClient, 'submitEventText' | 'getEvent'>;

export interface SubmitDeps extends PrintDeps, BatchDeps {
  /** The client for one event, made at the call (a key read, the embedded sandbox started). */
  client(options: { signal: AbortSignal }): Promise<EventClient>;
}

export function submitDeps(context: CliContext, session: Session): SubmitDeps {
  return {
    stdout: outputStream(context.stdout),
    stderr: outputStream(context.stderr),
    env: envFacts(context.env),
    // The context itself: its stdin is read (or fstat'ed) only when the input is `-`.
    streams: context,
    client: (options) => session.client(options),
    poolClient: (options) => session.client(options),
    service: async () => serviceNamed((await session.settings()).baseUrl, context.env),
    retries: async () => (await session.settings()).retries,
    serviceFlags: session.serviceFlags(),
  };
}
