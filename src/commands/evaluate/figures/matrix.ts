import { ACTION_TYPES, type ActionType } from '../../../contract/decision.js';
import { cents, outcomeOf, ratio, type EvaluatedEvent } from './evaluated-event.js';

/*
 * The decision × outcome matrix: each decision against fraud reported, no fraud reported, and
 * (declined events) unknowable, by count and by amount; and the few numbers a team lead reads
 * off it. Folded one event at a time, so a million events cost no more memory than ten.
 */

export interface DecisionCell {
  fraud: number;
  /** No fraud reported where one could have come (0 for DECLINE: see `unknown`). */
  legit: number;
  /** Declined and not reported: whether it was fraud cannot be known. */
  unknown: number;
  fraudAmount: number;
  legitAmount: number;
  unknownAmount: number;
}

export type DecisionMatrix = Record<ActionType, DecisionCell>;

export interface MatrixSummary {
  events: number;
  fraud: number;
  /** Fraud reported / events; null without events. */
  fraudRate: number | null;
  fraudDeclined: { count: number; amount: number };
  fraudInReview: { count: number; amount: number };
  fraudLetThrough: { count: number; amount: number };
  /** Good customers declined: at most this many (declined, no fraud reported: unknowable). */
  declinedNotReported: { count: number; amount: number };
  reviewLoad: { count: number; share: number | null };
}

const emptyCell = (): DecisionCell => ({
  fraud: 0,
  legit: 0,
  unknown: 0,
  fraudAmount: 0,
  legitAmount: 0,
  unknownAmount: 0,
});

export class MatrixTally {
  private readonly cells: DecisionMatrix = { APPROVE: emptyCell(), REVIEW: emptyCell(), DECLINE: emptyCell() };

  add(event: EvaluatedEvent): void {
    const cell = this.cells[event.actionType];
    const outcome = outcomeOf(event);
    cell[outcome]++;
    cell[`${outcome}Amount`] += event.amount;
  }

  matrix(): DecisionMatrix {
    const round = (c: DecisionCell): DecisionCell => ({
      ...c,
      fraudAmount: cents(c.fraudAmount),
      legitAmount: cents(c.legitAmount),
      unknownAmount: cents(c.unknownAmount),
    });
    return { APPROVE: round(this.cells.APPROVE), REVIEW: round(this.cells.REVIEW), DECLINE: round(this.cells.DECLINE) };
  }
}

export function matrixSummary(m: DecisionMatrix): MatrixSummary {
  const total = (c: DecisionCell) => c.fraud + c.legit + c.unknown;
  const events = ACTION_TYPES.reduce((n, a) => n + total(m[a]), 0);
  const fraud = ACTION_TYPES.reduce((n, a) => n + m[a].fraud, 0);
  const fraudOf = (a: ActionType) => ({ count: m[a].fraud, amount: m[a].fraudAmount });
  return {
    events,
    fraud,
    fraudRate: ratio(fraud, events),
    fraudDeclined: fraudOf('DECLINE'),
    fraudInReview: fraudOf('REVIEW'),
    fraudLetThrough: fraudOf('APPROVE'),
    declinedNotReported: { count: m.DECLINE.unknown, amount: m.DECLINE.unknownAmount },
    reviewLoad: { count: total(m.REVIEW), share: ratio(total(m.REVIEW), events) },
  };
}

/** The matrix of a list of events (tests, replay). */
export function decisionMatrix(events: Iterable<EvaluatedEvent>): DecisionMatrix {
  const tally = new MatrixTally();
  for (const e of events) tally.add(e);
  return tally.matrix();
}
