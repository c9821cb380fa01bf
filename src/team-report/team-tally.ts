import type { LogRecord } from './log-records.js';

/*
 * The figures of `fraudctl report`, from log records and what a GET of each decided event says
 * now. Pure: the work (run-report.ts) reads the files and the events; this decides what counts.
 *
 * - A decision is an `ok` line of approve, decline, escalate, fraud or set-state. A decision
 *   sent in two steps (fraud from a state that cannot go to FRAUD_CONFIRMED at once: DECLINED,
 *   then FRAUD_CONFIRMED, change-rules.ts) has an ok line per step: only the last step's counts.
 *   Refused, failed and conflict lines are not decisions (nothing was changed).
 * - Unknown outcome: a decision's `sending` line with no outcome line after it from the same
 *   session for the same event, action and state (the run ended before the answer).
 * - Time to decision: from the analyst's last `ok` claim of the event (the review queue's) to the
 *   decision; decisions without a claim before them (set-state) have none.
 * - Age at decision: the decision's time less the event's eventDate (from the GET).
 * - Overturned: the event's state now differs from the state the decision set.
 * - Median and p90 by nearest rank (the value at rank ceil(p × n) of the sorted samples): a value
 *   that was observed, as a spreadsheet's PERCENTILE.INC would not give.
 * - --since/--until select decisions (and unknown outcomes) by the time of their line; a claim
 *   before --since still times a decision after it.
 */

export const DECISION_ACTIONS: ReadonlySet<string> = new Set(['approve', 'decline', 'escalate', 'fraud', 'set-state']);

export interface Decision {
  analyst: string;
  eventId: string;
  /** approve, decline, escalate, fraud, or `set-state:STATE`. */
  kind: string;
  /** The state the decision set. */
  to: string | null;
  reason: string | null;
  time: number;
  /** ms from the analyst's claim of the event; null without a claim before it. */
  sinceClaim: number | null;
}

/** The decisions and unknown outcomes in [since, until), from records given in time order. */
export class TeamTally {
  readonly decisions: Decision[] = [];
  /** Unknown outcomes by analyst. */
  readonly unknown = new Map<string, number>();
  private readonly claims = new Map<string, number>();
  private readonly sending = new Map<string, LogRecord>();

  constructor(private readonly since: number = -Infinity, private readonly until: number = Infinity) {}

  add(record: LogRecord): void {
    if (record.action === 'claim') {
      if (record.outcome === 'ok') this.claims.set(`${record.analyst}\0${record.eventId}`, record.time);
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
    const claimKey = `${record.analyst}\0${record.eventId}`;
    const claimed = this.claims.get(claimKey);
    if (claimed !== undefined) this.claims.delete(claimKey);
    this.decisions.push({
      analyst: record.analyst,
      eventId: record.eventId,
      kind: record.action === 'set-state' ? `set-state:${record.to ?? 'none'}` : record.action,
      to: record.to,
      reason: record.reason,
      time: record.time,
      sinceClaim: claimed === undefined ? null : record.time - claimed,
    });
  }

  /** After the last record: the sendings never answered count as unknown outcomes. */
  finish(): void {
    for (const record of this.sending.values()) {
      if (this.within(record.time)) this.unknown.set(record.analyst, (this.unknown.get(record.analyst) ?? 0) + 1);
    }
    this.sending.clear();
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
}

/** The value at rank ceil(p × n) of sorted samples (nearest rank). */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

function spread(samples: number[]): Spread {
  const sorted = [...samples].sort((a, b) => a - b);
  return { count: sorted.length, median: nearestRank(sorted, 0.5), p90: nearestRank(sorted, 0.9) };
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** The figures per analyst, by name. */
export function analystFigures(tally: TeamTally, now: ReadonlyMap<string, EventNow>, slaMs: number | null): AnalystFigures[] {
  const names = [...new Set([...tally.decisions.map((d) => d.analyst), ...tally.unknown.keys()])].sort((a, b) => a.localeCompare(b, 'en'));
  return names.map((analyst) => {
    const mine = tally.decisions.filter((d) => d.analyst === analyst);
    const byKind: Record<string, number> = { approve: 0, decline: 0, escalate: 0, fraud: 0 };
    const byReason: Record<string, number> = {};
    const ages: number[] = [];
    let overturned = 0;
    let unchecked = 0;
    let pastSla = 0;
    for (const d of mine) {
      bump(byKind, d.kind);
      bump(byReason, d.reason ?? 'none');
      const event = now.get(d.eventId);
      if (event === undefined || 'failed' in event) {
        unchecked++;
        continue;
      }
      if (event.state !== d.to) overturned++;
      if (event.eventDate !== null) {
        const age = d.time - event.eventDate;
        ages.push(age);
        if (slaMs !== null && age > slaMs) pastSla++;
      }
    }
    return {
      analyst,
      decisions: mine.length,
      byKind,
      byReason,
      unknownOutcome: tally.unknown.get(analyst) ?? 0,
      timeToDecision: spread(mine.flatMap((d) => (d.sinceClaim === null ? [] : [d.sinceClaim]))),
      ageAtDecision: spread(ages),
      pastSla: slaMs === null ? null : pastSla,
      overturned,
      unchecked,
    };
  });
}
