import type { LogRecord } from './log-records.js';

/*
 * The figures of `fraudctl report`, from log records and what a GET of each decided event says
 * now. Pure: the work (run.ts) reads the files and the events; this decides what counts.
 *
 * - A decision is an `ok` line of approve, decline, escalate, fraud or set-state. A decision
 *   sent in two steps (fraud from a state that cannot go to FRAUD_CONFIRMED at once: DECLINED,
 *   then FRAUD_CONFIRMED, change-rules.ts) has an ok line per step: only the last step's counts.
 *   Refused, failed and conflict lines are not decisions (nothing was changed).
 * - Unknown outcome: a decision's `sending` line with no outcome line after it from the same
 *   session for the same event, action and state (the run ended before the answer).
 * - Time to decision: from the analyst's last `ok` claim of the event (the review queue's) to the
 *   decision; decisions without a claim before them (set-state) have none. A release gives the
 *   claim back: a decision after it is not timed from it.
 * - Age at decision: the decision's time less the event's eventDate (from the GET).
 * - Overturned: the event's state now differs from the state the decision set.
 * - Median and p90 by nearest rank (the value at rank ceil(p × n) of the sorted samples): a value
 *   that was observed, as a spreadsheet's PERCENTILE.INC would not give.
 * - --since/--until select decisions (and unknown outcomes) by the time of their line; a claim
 *   before --since still times a decision after it.
 *
 * Tallied as the records stream by (in time order): per analyst, counts and the times from claim
 * to decision; per decision only what the GETs complete (its event, analyst, state set and time,
 * four array slots); each decided event once. Memory grows with the decisions and the events,
 * not with the lines (claims and sendings are held only until their decision or outcome).
 */

export const DECISION_ACTIONS: ReadonlySet<string> = new Set(['approve', 'decline', 'escalate', 'fraud', 'set-state']);

/** One analyst's counts, kept as the records come. */
export interface AnalystTally {
  analyst: string;
  decisions: number;
  /** approve, decline, escalate, fraud, or `set-state:STATE`. */
  byKind: Record<string, number>;
  byReason: Record<string, number>;
  unknownOutcome: number;
  /** ms from claim to decision, one per decision that had a claim before it. */
  sinceClaim: number[];
  /** Decisions whose line breaks the log's hash chain (read only with --include-unverified). */
  unverified: number;
}

/** The decisions and unknown outcomes in [since, until), from records given in time order. */
export class TeamTally {
  readonly analysts = new Map<string, AnalystTally>();
  /** The decided events, each once: what is read now. */
  readonly events: string[] = [];
  /** Per decision (parallel arrays): its event's index in `events`, its analyst, the state it set, its time. */
  readonly decisionEvent: number[] = [];
  readonly decisionAnalyst: AnalystTally[] = [];
  readonly decisionTo: (string | null)[] = [];
  readonly decisionTime: number[] = [];
  /** Decisions per hour (ms since the epoch / 1 h, floored). */
  readonly hours = new Map<number, number>();
  private readonly eventIndex = new Map<string, number>();
  /** One string per state and reason, not one per line. */
  private readonly words = new Map<string, string>();
  private readonly claims = new Map<string, number>();
  private readonly sending = new Map<string, LogRecord>();

  constructor(
    private readonly since: number = -Infinity,
    private readonly until: number = Infinity,
  ) {}

  get decisions(): number {
    return this.decisionEvent.length;
  }

  add(record: LogRecord): void {
    const claimKey = `${record.analyst}\0${record.eventId}`;
    if (record.action === 'claim' || record.action === 'release') {
      if (record.outcome !== 'ok') return;
      if (record.action === 'claim') this.claims.set(claimKey, record.time);
      else this.claims.delete(claimKey);
      return;
    }
    if (!DECISION_ACTIONS.has(record.action)) return;
    const key = `${record.session}\0${record.eventId}\0${record.action}\0${record.to ?? ''}`;
    if (record.outcome === 'sending') {
      this.sending.set(key, record);
      return;
    }
    this.sending.delete(key);
    if (record.outcome !== 'ok') return;
    // The first step of a two-step fraud decision is not the decision.
    if (record.action === 'fraud' && record.to !== 'FRAUD_CONFIRMED') return;
    if (!this.within(record.time)) return;
    const claimed = this.claims.get(claimKey);
    if (claimed !== undefined) this.claims.delete(claimKey);
    const a = this.analyst(record.analyst);
    a.decisions++;
    bump(a.byKind, record.action === 'set-state' ? `set-state:${record.to ?? 'none'}` : record.action);
    bump(a.byReason, record.reason ?? 'none');
    if (claimed !== undefined) a.sinceClaim.push(record.time - claimed);
    if (record.unverified) a.unverified++;
    let event = this.eventIndex.get(record.eventId);
    if (event === undefined) {
      event = this.events.push(record.eventId) - 1;
      this.eventIndex.set(record.eventId, event);
    }
    this.decisionEvent.push(event);
    this.decisionAnalyst.push(a);
    this.decisionTo.push(record.to === null ? null : this.word(record.to));
    this.decisionTime.push(record.time);
    const hour = Math.floor(record.time / 3_600_000);
    this.hours.set(hour, (this.hours.get(hour) ?? 0) + 1);
  }

  /** After the last record: the sendings never answered count as unknown outcomes. */
  finish(): void {
    for (const record of this.sending.values()) {
      if (this.within(record.time)) this.analyst(record.analyst).unknownOutcome++;
    }
    this.sending.clear();
    this.claims.clear();
  }

  /** Every decision's time from claim to decision, of the whole team. */
  claimTimes(): number[] {
    return [...this.analysts.values()].flatMap((a) => a.sinceClaim);
  }

  private analyst(name: string): AnalystTally {
    let a = this.analysts.get(name);
    if (a === undefined) {
      a = {
        analyst: name,
        decisions: 0,
        byKind: { approve: 0, decline: 0, escalate: 0, fraud: 0 },
        byReason: {},
        unknownOutcome: 0,
        sinceClaim: [],
        unverified: 0,
      };
      this.analysts.set(name, a);
    }
    return a;
  }

  private word(text: string): string {
    let kept = this.words.get(text);
    if (kept === undefined) this.words.set(text, (kept = text));
    return kept;
  }

  private within(time: number): boolean {
    return time >= this.since && time < this.until;
  }
}

/** What a GET of a decided event says now; `failed` when it could not be read (not found, an error). */
export type EventNow = { state: string | null; eventDate: number | null } | { failed: string };

export interface Spread {
  count: number;
  median: number | null;
  p90: number | null;
}

export interface AnalystFigures {
  analyst: string;
  decisions: number;
  byKind: Record<string, number>;
  byReason: Record<string, number>;
  unknownOutcome: number;
  timeToDecision: Spread;
  ageAtDecision: Spread;
  /** Decisions made when the event was older than --sla; null without --sla. */
  pastSla: number | null;
  overturned: number;
  /** Decisions whose event could not be read now (overturned and age unknown). */
  unchecked: number;
  /** Decisions read from lines that break the log's hash chain. */
  unverified: number;
}

/** The value at rank ceil(p × n) of sorted samples (nearest rank). */
export function nearestRank(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

function spread(samples: number[]): Spread {
  // A typed array sorts as numbers, in place, without a comparator call per pair.
  const sorted = Float64Array.from(samples).sort();
  return { count: sorted.length, median: nearestRank(sorted, 0.5), p90: nearestRank(sorted, 0.9) };
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** The figures per analyst, by name; `now` is what was read of each of `tally.events`, by index. */
export function analystFigures(
  tally: TeamTally,
  now: (event: number) => EventNow | undefined,
  slaMs: number | null,
): AnalystFigures[] {
  const checks = new Map<AnalystTally, { ages: number[]; overturned: number; unchecked: number; pastSla: number }>();
  for (const a of tally.analysts.values()) checks.set(a, { ages: [], overturned: 0, unchecked: 0, pastSla: 0 });
  for (let i = 0; i < tally.decisions; i++) {
    const c = checks.get(tally.decisionAnalyst[i]!)!;
    const event = now(tally.decisionEvent[i]!);
    if (event === undefined || 'failed' in event) {
      c.unchecked++;
      continue;
    }
    if (event.state !== tally.decisionTo[i]) c.overturned++;
    if (event.eventDate !== null) {
      const age = tally.decisionTime[i]! - event.eventDate;
      c.ages.push(age);
      if (slaMs !== null && age > slaMs) c.pastSla++;
    }
  }
  return [...tally.analysts.values()]
    .sort((x, y) => x.analyst.localeCompare(y.analyst, 'en'))
    .map((a) => {
      const c = checks.get(a)!;
      return {
        analyst: a.analyst,
        decisions: a.decisions,
        byKind: a.byKind,
        byReason: a.byReason,
        unknownOutcome: a.unknownOutcome,
        timeToDecision: spread(a.sinceClaim),
        ageAtDecision: spread(c.ages),
        pastSla: slaMs === null ? null : c.pastSla,
        overturned: c.overturned,
        unchecked: c.unchecked,
        unverified: a.unverified,
      };
    });
}
