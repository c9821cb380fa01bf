import type { ActionType } from '../../../contract/decision.js';

/*
 * One screened event as every figure sees it: the service's decision and score, the rules that
 * matched, its amount in the base currency, its date, and whether fraud was reported for it.
 * What its outcome can tell: a declined event never reaches the card network, so no chargeback
 * or fraud report can come for it; its "no fraud reported" is unknowable, never "legit".
 */

export interface EvaluatedEvent {
  id: string;
  actionType: ActionType;
  /** totalRiskScore, 0–100. */
  score: number;
  ruleIds: readonly string[];
  /** In the service's base currency. */
  amount: number;
  /** eventDate, in ms since the epoch. */
  date: number;
  /** Listed as fraud in the outcomes file. */
  fraud: boolean;
}

/** fraud: reported; legit: no fraud reported where one could have come; unknown: declined and not reported. */
export type Outcome = 'fraud' | 'legit' | 'unknown';

export function outcomeOf(event: Pick<EvaluatedEvent, 'fraud' | 'actionType'>): Outcome {
  if (event.fraud) return 'fraud';
  return event.actionType === 'DECLINE' ? 'unknown' : 'legit';
}

/** a / b, or null when b is 0: a rate of nothing is no rate (never 0). */
export const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);

/** Money summed in floating point, shown to the cent. */
export const cents = (amount: number): number => Math.round(amount * 100) / 100;
