import type { CliContext } from '../../process/cli-context.js';
import type { ApiClient } from '../../api/api-client.js';
import type { Session } from '../../session.js';
import { envFacts, outputStream, type PrintDeps } from '../room-deps.js';

/*
 * All that `alerts` takes from outside: the output streams and the environment facts it renders
 * by, and the one call of the service's client it makes. alertsDeps builds the real ones; a test
 * builds its own (its streams, a client of a sandbox on port 0).
 */

export interface AlertsDeps extends PrintDeps {
  /** The service's client, made at the call (a key read, the embedded sandbox started). */
  client(): Promise<Pick<ApiClient, 'getRiskAssessment'>>;
}

export function alertsDeps(context: CliContext, session: Session): AlertsDeps {
  return {
    stdout: outputStream(context.stdout),
    stderr: outputStream(context.stderr),
    env: envFacts(context.env),
    client: () => session.client(),
  };
}
