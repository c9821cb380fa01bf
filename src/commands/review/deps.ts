import type { CliContext } from '../../process/cli-context.js';
import type { Session } from '../../session.js';
import type { LogContext } from '../../action-log/action-log.js';
import { logContextFor } from '../../action-log/log-context.js';
import type { QueueClient } from '../../review-queue/queue-effects.js';
import type { ReasonChoices } from '../../review-queue/queue-model.js';
import { openKeyStream, openTerminal, type Terminal } from '../../review-queue/terminal-screen.js';
import { envFacts, outputStream, type PrintDeps } from '../room-deps.js';

/*
 * All that `review` takes from outside: the output streams and colour facts, stdin (for
 * --from -), a clock, the shutdown signal, the terminal (keys and screen), the three calls of
 * the service's client the queue makes, the profile's reason codes, who and where the --log
 * lines name, and the flags a hint repeats to reach the same service. reviewDeps builds the real
 * ones from the process's context and the run's session; a test builds its own (its streams, a
 * screen that keeps its frames and keys it sends, a client of a sandbox on port 0).
 */

/** The terminal's keys, opened before any work; `enter` then takes the screen (raw mode, alternate screen). */
export interface OpenedTerminal {
  enter(): Terminal;
  /** Gives back what was opened, when the screen was never entered. */
  close(): void;
}

/** Why there is no terminal: the device that could not be opened, and what it was for. */
export interface NoTerminal {
  unavailable: string;
  for: 'keys' | 'screen';
}

export interface ReviewDeps extends PrintDeps {
  stdin: CliContext['stdin'];
  now(): number;
  /** Settles at Ctrl-C from outside, SIGTERM or a hang-up. */
  waitForShutdown(): Promise<unknown>;
  /** Takes over what happens when stdout's reader goes away, until the function returned is called. */
  onStdoutClosed(handler: () => void): () => void;
  terminal(): OpenedTerminal | NoTerminal;
  /** The service's client, made at the call (a key read, the embedded sandbox started). */
  client(): Promise<QueueClient>;
  /** The profile's reason codes, offered after a decision key. */
  reasons(): Promise<ReasonChoices>;
  /** Who, where and which build the --log lines name. */
  logContext(): Promise<LogContext>;
  /** The flags of this run that chose the service (--profile, --base-url, …), for the summary's hints. */
  serviceFlags: string[];
}

export function reviewDeps(context: CliContext, session: Session): ReviewDeps {
  return {
    stdout: outputStream(context.stdout),
    stderr: outputStream(context.stderr),
    env: envFacts(context.env),
    get stdin() {
      return context.stdin;
    },
    now: () => Date.now(),
    waitForShutdown: () => context.waitForShutdown(),
    onStdoutClosed: (handler) => context.onStdoutClosed(handler),
    terminal: () => {
      const keys = openKeyStream(context);
      if ('unavailable' in keys) return keys;
      return { enter: () => openTerminal(context, keys), close: () => keys.close() };
    },
    client: () => session.client(),
    reasons: async () => {
      const settings = await session.settings();
      return { profile: settings.profile, codes: settings.reasons, required: settings.requireReason };
    },
    // The adapter to action-log's reader of the session (shared with set-state): only the log's context passes.
    logContext: async () => logContextFor(await session.settings(), context.env),
    serviceFlags: session.serviceFlags(),
  };
}
