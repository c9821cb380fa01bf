import type { CliContext } from '../../process/cli-context.js';
import type { ApiClientOptions } from '../../api/api-client.js';
import type { Session } from '../../session.js';
import type { EventReader, WatchClock } from '../../events/watch-event.js';
import { envFacts, outputStream, type PrintDeps } from '../room-deps.js';

/*
 * All that `show` takes from outside: the output streams and the environment facts it prints by;
 * the process's own streams for the list (stdin for --from -, stdout's back-pressure and height,
 * stderr's progress line); the service's client, made at the first call with the options of the
 * form (the list's pool, the watch's pacing and abort); the shutdown signal (Ctrl-C); and the
 * watch's clock. showDeps builds the real ones; a test builds its own (its streams, a client of
 * a sandbox on port 0, a clock it steps).
 */

export type ClientOptions = Pick<ApiClientOptions, 'connections' | 'control' | 'signal'>;

export interface ShowDeps extends PrintDeps {
  streams: Pick<CliContext, 'stdin' | 'stdout' | 'stderr'>;
  /** The service's client, made at the first call (a key read, the embedded sandbox started). */
  client(options?: ClientOptions): Promise<EventReader>;
  /** Ctrl-C, SIGTERM or a hang-up. */
  waitForShutdown(): Promise<NodeJS.Signals>;
  clock: WatchClock;
}

export function showDeps(context: CliContext, session: Session): ShowDeps {
  return {
    stdout: outputStream(context.stdout),
    stderr: outputStream(context.stderr),
    env: envFacts(context.env),
    streams: {
      get stdin() {
        return context.stdin;
      },
      stdout: context.stdout,
      stderr: context.stderr,
    },
    client: (options) => session.client(options),
    waitForShutdown: () => context.waitForShutdown(),
    clock: { now: () => Date.now(), sleep },
  };
}

/** The wait between checks: `ms`, or less when `signal` aborts (the watch then sees it); its timer cleared either way. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const end = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', end);
      resolve();
    };
    const timer = setTimeout(end, ms);
    signal.addEventListener('abort', end, { once: true });
  });
}
