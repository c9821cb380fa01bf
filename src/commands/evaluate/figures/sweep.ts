import { cents, outcomeOf, ratio, type EvaluatedEvent } from './evaluated-event.js';

/*
 * The score sweep: for every threshold 0–100, the events a rule "flag at score >= t" would flag
 * (as the service decides: a score equal to a threshold meets it), exactly, from a histogram of
 * the scores by outcome. Precision and the false-positive rate count knowable outcomes only.
 */

export interface SweepPoint {
  threshold: number;
  flagged: number;
  fraudFlagged: number;
  legitFlagged: number;
  /** Flagged events that were declined without a fraud report: unknowable. */
  unknownFlagged: number;
  /** fraudFlagged / (fraudFlagged + legitFlagged); null when nothing knowable is flagged. */
  precision: number | null;
  /** fraudFlagged / all fraud; null without fraud. */
  recall: number | null;
  /** legitFlagged / all legit; null without legit events. */
  falsePositiveRate: number | null;
  /** Events below the threshold / all events; null without events. */
  approvalRate: number | null;
  fraudAmountCaught: number;
  /** The service's threshold this is, if any. */
  current: 'review' | 'decline' | null;
}

export interface Thresholds {
  review: number;
  decline: number;
}

const SCORES = 101;

export class SweepTally {
  private readonly counts = {
    fraud: new Float64Array(SCORES),
    legit: new Float64Array(SCORES),
    unknown: new Float64Array(SCORES),
  };
  private readonly fraudAmount = new Float64Array(SCORES);

  add(event: EvaluatedEvent): void {
    const score = Math.min(100, Math.max(0, Math.round(event.score)));
    const outcome = outcomeOf(event);
    this.counts[outcome][score]!++;
    if (outcome === 'fraud') this.fraudAmount[score]! += event.amount;
  }

  points(thresholds: Thresholds): SweepPoint[] {
    const total = (k: keyof SweepTally['counts']) => this.counts[k].reduce((a, b) => a + b, 0);
    const all = { fraud: total('fraud'), legit: total('legit'), unknown: total('unknown') };
    const events = all.fraud + all.legit + all.unknown;
    const points: SweepPoint[] = [];
    let fraud = 0;
    let legit = 0;
    let unknown = 0;
    let amount = 0;
    // From the top down: flagged at t = every score >= t.
    for (let t = 100; t >= 0; t--) {
      fraud += this.counts.fraud[t]!;
      legit += this.counts.legit[t]!;
      unknown += this.counts.unknown[t]!;
      amount += this.fraudAmount[t]!;
      const flagged = fraud + legit + unknown;
      points.push({
        threshold: t,
        flagged,
        fraudFlagged: fraud,
        legitFlagged: legit,
        unknownFlagged: unknown,
        precision: ratio(fraud, fraud + legit),
        recall: ratio(fraud, all.fraud),
        falsePositiveRate: ratio(legit, all.legit),
        approvalRate: ratio(events - flagged, events),
        fraudAmountCaught: cents(amount),
        current: t === thresholds.decline ? 'decline' : t === thresholds.review ? 'review' : null,
      });
    }
    return points.reverse();
  }
}

export function scoreSweep(events: Iterable<EvaluatedEvent>, thresholds: Thresholds): SweepPoint[] {
  const tally = new SweepTally();
  for (const e of events) tally.add(e);
  return tally.points(thresholds);
}
