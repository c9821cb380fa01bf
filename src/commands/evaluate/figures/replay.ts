import { ACTION_TYPES, type ActionType } from '../../../contract/decision.js';
import { cents, outcomeOf, type EvaluatedEvent } from './evaluated-event.js';
import type { DecisionMatrix, MatrixSummary } from './matrix.js';
import type { RuleFigure } from './per-rule.js';
import type { SweepPoint } from './sweep.js';

/*
 * What a candidate configuration would have done: for each event its decision today and under
 * the candidate, tallied as a decision shift (from → to, by count, fraud, legit and amount), and
 * the candidate's own figures beside today's. Outcomes stay as reported: an event the candidate
 * approves that was declined today still has an unknowable outcome.
 */

export interface ShiftCell {
  count: number;
  fraud: number;
  legit: number;
  unknown: number;
  amount: number;
}

/** from (today) → to (the candidate) → cell; only the pairs that occur. */
export type DecisionShift = Partial<Record<ActionType, Partial<Record<ActionType, ShiftCell>>>>;

export interface CandidateFigures {
  decisions: DecisionMatrix;
  summary: MatrixSummary;
  rules: RuleFigure[];
  sweep: SweepPoint[];
}

export interface ReplayReport {
  /** The candidate configuration's file. */
  candidate: string;
  /** Where the payloads came from: --events files, or each event read from the service. */
  payloads: 'files' | 'service';
  /** Events replayed: every evaluated event that could be read. */
  events: number;
  /** Evaluated events that could not be read (or scored; with --events, not in the files): left out of the replay. */
  unread: number;
  /** Events whose decision changes. */
  changed: number;
  shift: DecisionShift;
  /** What velocity rules could count. */
  velocityNote: string;
  /** The figures of the replayed events, today's and the candidate's, side by side. */
  today: CandidateFigures;
  candidateFigures: CandidateFigures;
}

export class ShiftTally {
  readonly shift: DecisionShift = {};
  changed = 0;
  events = 0;

  add(today: EvaluatedEvent, candidate: ActionType): void {
    this.events++;
    if (candidate !== today.actionType) this.changed++;
    const row = (this.shift[today.actionType] ??= {});
    const cell = (row[candidate] ??= { count: 0, fraud: 0, legit: 0, unknown: 0, amount: 0 });
    cell.count++;
    cell[outcomeOf(today)]++;
    cell.amount = cents(cell.amount + today.amount);
  }
}

/** The shift in a fixed order (APPROVE, REVIEW, DECLINE), for rendering. */
export function shiftRows(shift: DecisionShift): { from: ActionType; to: ActionType; cell: ShiftCell }[] {
  return ACTION_TYPES.flatMap((from) =>
    ACTION_TYPES.flatMap((to) => (shift[from]?.[to] ? [{ from, to, cell: shift[from][to] }] : [])),
  );
}
