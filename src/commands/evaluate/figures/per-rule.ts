import { cents, outcomeOf, ratio, type EvaluatedEvent } from './evaluated-event.js';

/*
 * Per rule: how often it fires, how often on reported fraud, its precision (of the hits whose
 * outcome can be known: declined events without a report are left out, and counted apart) and
 * recall (of all reported fraud), the fraud no other rule matched, and the rules it fires with.
 */

export interface RuleFigure {
  rule: string;
  hits: number;
  fraudHits: number;
  /** Hits on events with no fraud reported (that could have had one). */
  legitHits: number;
  /** Hits on declined events with no fraud reported: unknowable. */
  unknownHits: number;
  /** fraudHits / (fraudHits + legitHits); null when no hit has a knowable outcome. */
  precision: number | null;
  /** fraudHits / all reported fraud; null without fraud. */
  recall: number | null;
  /** Reported fraud that matched this rule and no other. */
  onlyRule: number;
  fraudAmount: number;
  /** The rules that matched the same events, most often first. */
  firesWith: { rule: string; count: number }[];
}

interface Counts {
  hits: number;
  fraud: number;
  legit: number;
  unknown: number;
  only: number;
  fraudAmount: number;
  with: Map<string, number>;
}

export class RuleTally {
  private readonly rules = new Map<string, Counts>();
  private fraud = 0;

  /** Rules that should be listed even when they never fire (a candidate configuration's). */
  constructor(known: Iterable<string> = []) {
    for (const rule of known) this.counts(rule);
  }

  private counts(rule: string): Counts {
    let c = this.rules.get(rule);
    if (!c)
      this.rules.set(rule, (c = { hits: 0, fraud: 0, legit: 0, unknown: 0, only: 0, fraudAmount: 0, with: new Map() }));
    return c;
  }

  add(event: EvaluatedEvent): void {
    const outcome = outcomeOf(event);
    if (outcome === 'fraud') this.fraud++;
    const ids = event.ruleIds;
    for (const rule of ids) {
      const c = this.counts(rule);
      c.hits++;
      c[outcome]++;
      if (outcome === 'fraud') {
        c.fraudAmount += event.amount;
        if (ids.length === 1) c.only++;
      }
      for (const other of ids) if (other !== rule) c.with.set(other, (c.with.get(other) ?? 0) + 1);
    }
  }

  /** Most fraud caught first, then most hits, then by id. */
  figures(): RuleFigure[] {
    return [...this.rules.entries()]
      .map(([rule, c]) => ({
        rule,
        hits: c.hits,
        fraudHits: c.fraud,
        legitHits: c.legit,
        unknownHits: c.unknown,
        precision: ratio(c.fraud, c.fraud + c.legit),
        recall: ratio(c.fraud, this.fraud),
        onlyRule: c.only,
        fraudAmount: cents(c.fraudAmount),
        firesWith: [...c.with.entries()]
          .map(([r, count]) => ({ rule: r, count }))
          .sort((a, b) => b.count - a.count || (a.rule < b.rule ? -1 : 1)),
      }))
      .sort((a, b) => b.fraudHits - a.fraudHits || b.hits - a.hits || (a.rule < b.rule ? -1 : 1));
  }
}

export function ruleFigures(events: Iterable<EvaluatedEvent>, known: Iterable<string> = []): RuleFigure[] {
  const tally = new RuleTally(known);
  for (const e of events) tally.add(e);
  return tally.figures();
}
