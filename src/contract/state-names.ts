import { distance } from 'fastest-levenshtein';
import { KNOWN_STATES, type KnownState } from './states.js';

/*
 * A state as a person types it (`approved`, `in-review`, `Escalated`) matched to the state the
 * service knows, or the nearest known one to suggest when it matches none (`aproved`). Here,
 * beside the states, so that every floor that reads a state (the settings' reason codes, the
 * state changes) matches it the same way without importing the work above it; the words for a
 * state that matches none are src/state-changes/state-names.ts's.
 */

/** `approved`, `in review`, `In-Review` → `APPROVED`, `IN_REVIEW`: the form the service uses. */
export function canonicalState(typed: string): string {
  return typed
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_');
}

export type StateMatch = { state: KnownState } | { state: null; suggestion: KnownState | null };

export function matchState(typed: string): StateMatch {
  const canonical = canonicalState(typed);
  const known = KNOWN_STATES.find((s) => s === canonical);
  if (known) return { state: known };
  let best: KnownState | null = null;
  let bestDistance = Infinity;
  for (const state of KNOWN_STATES) {
    const d = distance(canonical, state);
    if (d < bestDistance) [best, bestDistance] = [state, d];
  }
  // A typo is a few characters off; a state of another service's vocabulary is not worth a guess.
  const close = best !== null && bestDistance <= Math.max(2, Math.floor(best.length / 3));
  return { state: null, suggestion: close ? best : null };
}
