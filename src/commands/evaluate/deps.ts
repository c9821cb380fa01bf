import type { CliContext } from '../../process/cli-context.js';
import type { ApiClient } from '../../api/api-client.js';
import type { Session } from '../../session.js';
import { envFacts, outputStream, type EnvFacts, type OutputStream } from '../room-deps.js';

/*
 * All that `evaluate` takes from outside: two output streams, the few environment facts it
 * renders by, a clock, stdin (for --from -), and the service's client, made only when an event
 * must be read. evaluateDeps builds the real ones from the process's context and the run's
 * session; a test builds its own (its streams, a sandbox on port 0, a fixed clock).
 */

/** What reading an event takes of the client. */
export type EventReader = Pick<ApiClient, 'getEvent' | 'getRiskAssessment'>;

export interface EvaluateDeps {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: CliContext['stdin'];
  env: EnvFacts;
  platform: NodeJS.Platform;
  now(): number;
  /** The service's client, made at the first call (a key read, the embedded sandbox started). */
  events(connections: number): Promise<EventReader>;
}

/** The real ones: the process's streams and environment, the wall clock, the session's client. */
export function evaluateDeps(context: CliContext, session: Session): EvaluateDeps {
  let client: Promise<EventReader> | undefined;
  return {
    stdout: outputStream(context.stdout),
    stderr: outputStream(context.stderr),
    get stdin() {
      return context.stdin;
    },
    env: envFacts(context.env),
    platform: context.platform ?? process.platform,
    now: () => Date.now(),
    // One client for the run: learning the base currency, reading events and a replay share it.
    events: (connections) => (client ??= session.client({ connections })),
  };
}
