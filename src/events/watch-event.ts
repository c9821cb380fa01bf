import type { ApiClient, RequestControl } from '../api/api-client.js';
import { classifyFailure, type FailureKind } from '../failures/failure-kind.js';
import { isKnownState, TRANSITIONS } from '../contract/states.js';
import { CliError, ExitCode } from '../errors/cli-error.js';
import { changed, renderWatchChange, renderWatchStart, timestamp, type Watched } from '../render/event-changes.js';
import { renderEventSummary } from '../render/event-tables.js';
import { jsonForTerminal, terminalSafe } from '../render/terminal-text.js';
import type { Session } from '../session.js';
import { abortOnShutdown } from '../cli-context.js';

/*
 * `show ID --watch`: the summary once, then a timestamped line each time the event's state,
 * decision or comments change, until it reaches a final state (or --until's), or Ctrl-C.
 *
 * - Final: APPROVED, DECLINED, FRAUD_CONFIRMED, and any state this build does not know (a change
 *   worth showing, and nothing here can say what follows it). With --until, only that state.
 * - Every check is GET /event/{id} and GET /event/{id}/risk-assessment (the decision) through the
 *   one client, with its retry policy. When a check still fails, the watch goes on: a line on
 *   stderr, and the next check after a longer wait (the interval doubled per failure, up to a
 *   minute, and never sooner than a Retry-After the service sent). A refused key, or an event or
 *   URL that is not there (4xx), ends it: nothing will change that.
 * - The first check is `show`'s: off a terminal a failure ends the watch as it would end `show`
 *   (a script gets show's exit code). On a terminal a failure that may pass (the service down,
 *   a 503, a timeout) is said at once, without the client's own retries, with when the next
 *   check is; the summary comes with the first check that succeeds.
 * - --json: the summary as one JSON line at the start and each time state or comments change
 *   (the decision is not fetched: the line is the service's summary, which has none).
 */

export interface WatchOptions {
  intervalSeconds: number;
  /** Stop at this state instead of at any final state. */
  until: string | null;
}

const FINAL_STATES: ReadonlySet<string> = new Set(['APPROVED', 'DECLINED', 'FRAUD_CONFIRMED']);
const MAX_BACKOFF_MS = 60_000;

interface Snapshot extends Watched {
  summary: unknown;
}

/** Why the watch is over at this state (safe text), or null to go on. */
function reason(state: unknown, until: string | null): string | null {
  if (until !== null) return state === until ? `reached ${terminalSafe(until)}` : null;
  if (state === null || state === undefined) return null;
  if (typeof state !== 'string') return 'is in a state this build does not know';
  if (FINAL_STATES.has(state)) return `reached ${state}, a final state`;
  return isKnownState(state) ? null : `is in ${terminalSafe(state)}, a state this build does not know`;
}

/**
 * With --until: the event is in a state the contract lets nothing follow (FRAUD_CONFIRMED), so
 * the state waited for can no longer come. Watching on would never end: it ends as a failure.
 */
function unreachable(id: string, state: unknown, until: string | null): CliError | null {
  if (until === null || typeof state !== 'string' || state === until || !isKnownState(state) || TRANSITIONS[state].length > 0) return null;
  return new CliError(`${id} reached ${terminalSafe(state)}, which no state follows: ${terminalSafe(until)} can no longer come`, ExitCode.FAILURE);
}

/** Failures after which checking again is pointless: the key, the id or the URL is wrong, or the proxy refuses (not merely down). */
function endsTheWatch(error: unknown): boolean {
  const failure = classifyFailure(error);
  if (failure.kind === 'proxy') return failure.exitCode !== ExitCode.UNAVAILABLE;
  return ENDING_KINDS.has(failure.kind);
}

/** The service said no (not a 408 or 429: those pass), or the key or the URL is wrong. */
const ENDING_KINDS: ReadonlySet<FailureKind> = new Set(['auth', 'not-the-service', 'not-found', 'invalid', 'refused']);

/** Waits `ms`, or less when `signal` aborts; leaves no timer behind. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function watchEvent(session: Session, eventId: string, options: WatchOptions): Promise<void> {
  const { context } = session;
  const output = await session.output();
  const abort = new AbortController();
  // The longest Retry-After the service sent since the last check (the client honours it within a call; this carries it over to the next).
  let retryAfterMs = 0;
  // On a terminal the first check gives up at its first failure, so that it is said at once.
  const patient = context.stderr.isTTY !== true;
  let started = false;
  const control: RequestControl = {
    beforeAttempt: () => Promise.resolve(),
    onAnswer: () => {},
    retryWait: (wait) => wait,
    allowRetry: () => 0,
    wantsRetries: () => patient || started,
    onThrottle: (ms) => {
      retryAfterMs = Math.max(retryAfterMs, ms ?? 0);
    },
    onSettled: () => {},
  };
  const client = await session.client({ control, signal: abort.signal });
  const id = terminalSafe(eventId);
  const note = (text: string) => output.note(`${output.style.dim(timestamp(new Date()))}  ${text}`);

  const shutdown = abortOnShutdown(context, abort);
  // A reader that goes away (`| head`) ends the process at once and quietly (main.ts).

  const check = async (c: ApiClient): Promise<Snapshot> => {
    const { body: summary } = await c.getEvent(eventId);
    const fields = (typeof summary === 'object' && summary !== null ? summary : {}) as Record<string, unknown>;
    const decision = output.json ? undefined : ((await c.getRiskAssessment(eventId)).body as { actionType?: unknown } | undefined)?.actionType;
    return { summary, state: fields.state, decision, comments: fields.comments };
  };
  const show = (before: Snapshot | null, now: Snapshot) => {
    if (output.json) return output.print(jsonForTerminal(now.summary, false));
    if (before === null) return output.print(`${renderEventSummary(now.summary, output.style)}\n\n${renderWatchStart(new Date(), now, output.style, output.columns)}`);
    output.print(renderWatchChange(new Date(), before, now, output.style, output.columns));
  };

  /** The first summary: shown, and whether there is anything to watch. */
  const begin = (first: Snapshot): boolean => {
    show(null, first);
    const over = reason(first.state, options.until);
    if (over) {
      output.note(`${id} ${over}: nothing to watch`);
      return false;
    }
    const dead = unreachable(id, first.state, options.until);
    if (dead) throw dead;
    const target = options.until !== null ? options.until : 'APPROVED, DECLINED or FRAUD_CONFIRMED';
    output.note(`watching ${id} every ${options.intervalSeconds} s until ${terminalSafe(target)} (Ctrl-C to stop)`);
    if (options.until !== null && !isKnownState(options.until)) output.note(`${terminalSafe(options.until)} is not a state this build knows; watching for it all the same`);
    return true;
  };

  try {
    const intervalMs = options.intervalSeconds * 1000;
    let failures = 0;
    let delay = intervalMs;
    /** A failed check: the watch ends (off a terminal at the first check, or when nothing will change), or says so and waits longer. */
    const failed = (error: unknown) => {
      if (endsTheWatch(error) || (last === null && patient)) throw error;
      failures++;
      delay = Math.max(Math.min(intervalMs * 2 ** failures, Math.max(MAX_BACKOFF_MS, intervalMs)), retryAfterMs);
      retryAfterMs = 0;
      // "check failed", not "no answer": a 503 is an answer (and may say how long to wait).
      note(`check failed: ${(error as Error).message}; next check in ${Math.ceil(delay / 1000)} s`);
    };
    let last: Snapshot | null = null;
    try {
      last = await check(client);
    } catch (error) {
      if (shutdown.interrupted) return stop();
      failed(error);
    }
    started = true;
    if (last !== null && !begin(last)) return;
    for (;;) {
      await sleep(delay, abort.signal);
      if (abort.signal.aborted) return stop();
      let now: Snapshot;
      try {
        now = await check(client);
      } catch (error) {
        if (abort.signal.aborted) return stop();
        failed(error);
        continue;
      }
      failures = 0;
      delay = intervalMs;
      retryAfterMs = 0;
      if (last === null) {
        last = now;
        if (!begin(now)) return;
        continue;
      }
      const wasChanged = output.json ? !sameJson(last.state, now.state) || !sameJson(last.comments, now.comments) : changed(last, now);
      if (wasChanged) show(last, now);
      last = now;
      const over = reason(now.state, options.until);
      if (over) return output.note(`${id} ${over}`);
      const ended = unreachable(id, now.state, options.until);
      if (ended) throw ended;
    }
  } finally {
    shutdown.done();
  }

  function stop(): void {
    throw new CliError(`stopped watching ${id}`, ExitCode.INTERRUPTED);
  }
}

const sameJson = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
