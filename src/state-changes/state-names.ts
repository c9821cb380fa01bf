import { matchState } from '../contract/state-names.js';
import { KNOWN_STATES } from '../contract/states.js';
import { UsageError } from '../errors/cli-error.js';
import { terminalSafe } from '../render/terminal-text.js';

/*
 * A state as a person types it (`approved`, `in-review`, `Escalated`) matched to the state the
 * service knows, or the nearest known one to suggest when it matches none (`aproved`). Every
 * option that takes a state (`set-state --state`, `show --watch --until`) goes through
 * `stateFromTyped`, so they accept and refuse the same words. The match itself is the contract's
 * (src/contract/state-names.ts), so that the settings floor matches states without this one.
 */

// Its callers here (set-state, the bulk change) ask this file for both.
export { matchState } from '../contract/state-names.js';

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
