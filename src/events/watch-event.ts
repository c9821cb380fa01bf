import type { ApiClient, RequestControl } from '../api/api-client.js';
import { classifyFailure } from '../failures/failure-kind.js';
import { isKnownState, KNOWN_STATES, TRANSITIONS, type KnownState } from '../contract/states.js';
import { CliError, ExitCode } from '../errors/cli-error.js';
import type { Watched } from '../render/event-changes.js';
import { terminalSafe } from '../render/terminal-text.js';
import { abortOnShutdown } from '../process/cli-context.js';

/*
 * `show ID --watch`: the summary once, then a timestamped line each time the event's state,
 * decision or comments change, until it reaches a final state (or --until's), or Ctrl-C.
 *
 * - Final: APPROVED, DECLINED, FRAUD_CONFIRMED, and any state this build does not know (a change
 *   worth showing, and nothing here can say what follows it). With --until, only that state;
 *   once the event is in a state from which the contract's transitions cannot lead there (an
 *   APPROVED event never comes back to IN_REVIEW), the watch ends at once, exit 1, saying so.
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
 *
 * The loop and what ends it are here; how each check is said is the command's (a WatchView:
 * src/commands/show/render-watch.ts). The waits go through WatchDeps.sleep, so a test steps them.
 */

export interface WatchOptions {
  intervalSeconds: number;
  /** Stop at this state instead of at any final state. */
  until: string | null;
  /** Each check also reads the decision (the table shows it; --json prints the summary alone). */
  withDecision: boolean;
  /** Off a terminal the first check is show's, with the client's retries; on one its first failure is said at once. */
  patient: boolean;
}

/** The watch's time: its waits between checks go through here, so that a test steps them instead of waiting. */
export interface WatchClock {
  /** The wall clock (ms since the epoch), for the lines' timestamps. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts; never rejects. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** What a check reads of the service's client. */
export type EventReader = Pick<ApiClient, 'getEvent' | 'getRiskAssessment'>;

export interface WatchDeps {
  /** The client, made with the watch's say over its calls (retries, Retry-After) and its abort. */
  client(options: { control: RequestControl; signal: AbortSignal }): Promise<EventReader>;
  sleep: WatchClock['sleep'];
  /** Ctrl-C, SIGTERM or a hang-up (src/process/cli-context.ts). */
  waitForShutdown(): Promise<NodeJS.Signals>;
}

/** How the watch is said (the command's rendering): what it was at each check, and its notes. */
export interface WatchView {
  /** The first check that succeeded: the summary. */
  first(now: Snapshot): void;
  /** The first check did not end the watch: it goes on, said so. */
  watching(): void;
  /** A later check: its change shown, if there is one. */
  next(before: Snapshot, now: Snapshot): void;
  /** The watch is over at this check (`why`, safe text): at the first, nothing was watched. */
  over(why: string, atFirst: boolean): void;
  /** A check failed (after the client's retries); the next one is in `delayMs`. */
  failed(error: unknown, delayMs: number): void;
}

const FINAL_STATES: ReadonlySet<string> = new Set(['APPROVED', 'DECLINED', 'FRAUD_CONFIRMED']);
const MAX_BACKOFF_MS = 60_000;

export interface Snapshot extends Watched {
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

/** The states an event in `state` can still come to by the contract's transitions, in the contract's order. */
function reachableFrom(state: KnownState): KnownState[] {
  const seen = new Set<KnownState>();
  const next = [...TRANSITIONS[state]];
  for (let s = next.pop(); s !== undefined; s = next.pop()) {
    if (seen.has(s)) continue;
    seen.add(s);
    next.push(...TRANSITIONS[s]);
  }
  return KNOWN_STATES.filter((s) => seen.has(s));
}

/**
 * With --until: the state waited for can no longer come, by the contract's transitions, from the
 * state the event is in (APPROVED leads only to DECLINED, FRAUD_CONFIRMED and back; nothing
 * follows FRAUD_CONFIRMED). Watching on would never end: it ends as a failure. A state this
 * build does not know, the event's or --until's (--force-state), is not ruled out, except after
 * a state that nothing follows.
 */
function unreachable(id: string, state: unknown, until: string | null, verb: 'is' | 'reached'): CliError | null {
  if (until === null || typeof state !== 'string' || state === until || !isKnownState(state)) return null;
  const reachable = reachableFrom(state);
  const gone = `${terminalSafe(until)} can no longer come`;
  if (reachable.length === 0) {
    return new CliError(`${id} ${verb} ${state}, which no state follows: ${gone}`, ExitCode.FAILURE);
  }
  if (!isKnownState(until) || reachable.includes(until)) return null;
  const follow = `${reachable.slice(0, -1).join(', ')}${reachable.length > 1 ? ' or ' : ''}${reachable.at(-1)}`;
  return new CliError(`${id} ${verb} ${state}, after which only ${follow} can come: ${gone}`, ExitCode.FAILURE);
}

/**
 * Failures after which checking again is pointless (src/failures/' `lasting`): the key, the id or
 * the URL is wrong, the service said no (not a 408 or 429: those pass), or the proxy refuses (not merely down).
 */
function endsTheWatch(error: unknown): boolean {
  return classifyFailure(error).lasting;
}

/**
 * What the watch carries from one check to the next, and its say over the client's calls: the
 * longest Retry-After the service sent since the last check (the client honours it within a
 * call; the watch carries it over to the next check), and, on a terminal, no retries within the
 * first check, so that a failure is said at once. Pacing and budgets are a batch's: none here.
 */
class CheckPacing {
  retryAfterMs = 0;
  started = false;
  constructor(private readonly patient: boolean) {}

  control(): RequestControl {
    return {
      beforeAttempt: () => Promise.resolve(),
      onAnswer: () => {},
      retryWait: (wait) => wait,
      allowRetry: () => 0,
      wantsRetries: () => this.patient || this.started,
      onThrottle: (ms) => {
        this.retryAfterMs = Math.max(this.retryAfterMs, ms ?? 0);
      },
      onSettled: () => {},
    };
  }

  /** The wait before the next check after `failures` failed ones in a row (at least 1): doubled per failure, up to a minute, never sooner than a Retry-After. */
  backoff(intervalMs: number, failures: number): number {
    const delay = Math.max(
      Math.min(intervalMs * 2 ** failures, Math.max(MAX_BACKOFF_MS, intervalMs)),
      this.retryAfterMs,
    );
    this.retryAfterMs = 0;
    return delay;
  }
}

/** One check: the summary, and (for the table) the decision. */
async function check(client: EventReader, eventId: string, withDecision: boolean): Promise<Snapshot> {
  const { body: summary } = await client.getEvent(eventId);
  const fields = (typeof summary === 'object' && summary !== null ? summary : {}) as Record<string, unknown>;
  const decision = withDecision
    ? ((await client.getRiskAssessment(eventId)).body as { actionType?: unknown } | undefined)?.actionType
    : undefined;
  return { summary, state: fields.state, decision, comments: fields.comments };
}

export async function watchEvent(
  deps: WatchDeps,
  eventId: string,
  options: WatchOptions,
  view: WatchView,
): Promise<void> {
  const abort = new AbortController();
  // On a terminal the first check gives up at its first failure, so that it is said at once.
  const { patient } = options;
  const pacing = new CheckPacing(patient);
  const client = await deps.client({ control: pacing.control(), signal: abort.signal });
  const id = terminalSafe(eventId);
  const stopped = () => new CliError(`stopped watching ${id}`, ExitCode.INTERRUPTED);
  // A reader that goes away (`| head`) ends the process at once and quietly (main.ts).
  const shutdown = abortOnShutdown(deps, abort);
  try {
    const intervalMs = options.intervalSeconds * 1000;
    let failures = 0;
    let delay = intervalMs;
    let last: Snapshot | null = null;
    for (let first = true; ; first = false) {
      if (!first) {
        pacing.started = true;
        // Ends early when the watch is stopped; leaves no timer behind.
        await deps.sleep(delay, abort.signal);
        if (abort.signal.aborted) throw stopped();
      }
      let now: Snapshot;
      try {
        now = await check(client, eventId, options.withDecision);
      } catch (error) {
        if (first ? shutdown.interrupted : abort.signal.aborted) throw stopped();
        // The watch ends when nothing will change (the key, the id or the URL is wrong), or off a terminal at the first check, as `show` would.
        if (endsTheWatch(error) || (last === null && patient)) throw error;
        failures++;
        delay = pacing.backoff(intervalMs, failures);
        view.failed(error, delay);
        continue;
      }
      failures = 0;
      delay = intervalMs;
      pacing.retryAfterMs = 0;
      const atFirst = last === null;
      if (last === null) view.first(now);
      else view.next(last, now);
      last = now;
      const over = reason(now.state, options.until);
      if (over) return view.over(over, atFirst);
      const dead = unreachable(id, now.state, options.until, atFirst ? 'is' : 'reached');
      if (dead) throw dead;
      if (atFirst) view.watching();
    }
  } finally {
    shutdown.done();
  }
}
