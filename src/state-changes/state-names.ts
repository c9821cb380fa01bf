import { distance } from 'fastest-levenshtein';
import { KNOWN_STATES, type KnownState } from '../contract/states.js';
import { UsageError } from '../errors/cli-error.js';
import { terminalSafe } from '../render/terminal-text.js';

/*
 * A state as a person types it (`approved`, `in-review`, `Escalated`) matched to the state the
 * service knows, or the nearest known one to suggest when it matches none (`aproved`). Every
 * option that takes a state (`set-state --state`, `show --watch --until`) goes through
 * `stateFromTyped`, so they accept and refuse the same words.
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

/**
 * The state `typed` names: a known state in any case and separators, or with `force` the text as
 * typed (a real service may have states of its own). Otherwise a usage error with the nearest
 * known state and how to force it; `purpose` says what the state is for ("send", "watch for").
 */
export function stateFromTyped(typed: string, force: boolean, purpose: string): string {
  const match = matchState(typed);
  if (match.state) return match.state;
  if (force) return typed.trim();
  const guess = match.suggestion ? `: did you mean ${match.suggestion}?` : '';
  throw new UsageError(
    `unknown state "${terminalSafe(typed)}"${guess}`,
    `known states: ${KNOWN_STATES.join(', ')}; to ${purpose} a state this build does not know, add --force-state`,
  );
}
