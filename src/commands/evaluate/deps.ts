import type { CliContext } from '../../process/cli-context.js';
import type { ApiClient } from '../../api/api-client.js';
import type { Session } from '../../session.js';

/*
 * All that `evaluate` takes from outside: two output streams, the few environment facts it
 * renders by, a clock, stdin (for --from -), and the service's client, made only when an event
 * must be read. evaluateDeps builds the real ones from the process's context and the run's
 * session; a test builds its own (its streams, a sandbox on port 0, a fixed clock).
 */

export interface OutputStream {
  write(text: string): void;
  readonly isTTY: boolean;
  /** The terminal's width; null off a terminal. */
  readonly columns: number | null;
}

/** The environment variables evaluate renders by: colour (NO_COLOR, FORCE_COLOR, TERM) and the locale's marks. */
export type EnvFacts = Partial<
  Record<'NO_COLOR' | 'FORCE_COLOR' | 'TERM' | 'COLORTERM' | 'LANG' | 'LC_ALL' | 'LC_CTYPE', string>
>;

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

const stream = (s: CliContext['stdout']): OutputStream => ({
  write: (text) => void s.write(text),
  isTTY: Boolean(s.isTTY),
  columns: s.isTTY ? s.columns || 80 : null,
});

/** The real ones: the process's streams and environment, the wall clock, the session's client. */
export function evaluateDeps(context: CliContext, session: Session): EvaluateDeps {
  const { NO_COLOR, FORCE_COLOR, TERM, COLORTERM, LANG, LC_ALL, LC_CTYPE } = context.env;
  const env = Object.fromEntries(
    Object.entries({ NO_COLOR, FORCE_COLOR, TERM, COLORTERM, LANG, LC_ALL, LC_CTYPE }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  let client: Promise<EventReader> | undefined;
  return {
    stdout: stream(context.stdout),
    stderr: stream(context.stderr),
    get stdin() {
      return context.stdin;
    },
    env,
    platform: context.platform ?? process.platform,
    now: () => Date.now(),
    // One client for the run: learning the base currency, reading events and a replay share it.
    events: (connections) => (client ??= session.client({ connections })),
  };
}
