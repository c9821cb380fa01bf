import { TRANSITIONS, isKnownState, stateIn } from '../contract/states.js';
import { sym } from '../render/symbols.js';

/*
 * The one place that decides a state change, for the review queue (src/review-queue/) and for
 * `set-state` on many events (run-bulk-change.ts):
 * - which PATCHes a change to a state takes from the state read (stepsTo);
 * - whether an event read again just before the PATCH is still as it was seen (changedSince),
 *   and what changed, in words (changeWords);
 * - what comment is sent when one is added to an event that has one (commentToSend: kept or
 *   replaced; the service keeps one comment);
 * - whether a change asked for many events is sent to one of them, or passed over and why
 *   (decideChange): already there, outside --if-state, or a transition the known state machine
 *   does not allow (or a state this build does not know), unless forced.
 * Pure functions of what was read: no network, no terminal.
 */

/**
 * The states to set, in order, to bring an event from `state` to `target`. FRAUD_CONFIRMED
 * follows only a decision (APPROVED or DECLINED): from a review state, confirming fraud
 * declines first. A state this build does not know gets the change asked for, and the service
 * decides.
 */
export function stepsTo(target: string, state: string | null): string[] {
  if (
    target === 'FRAUD_CONFIRMED' &&
    state !== null &&
    isKnownState(state) &&
    !TRANSITIONS[state].includes('FRAUD_CONFIRMED') &&
    TRANSITIONS[state].includes('DECLINED')
  ) {
    return ['DECLINED', 'FRAUD_CONFIRMED'];
  }
  return [target];
}

/** What an event was seen as (state and comments), for the re-read before a change. */
export interface Seen {
  state: string | null;
  comments: string | null;
}

/** What a read of an event says (an answer without a string state or comments: null). */
export function seenIn(body: unknown): Seen {
  const comments = typeof body === 'object' && body !== null ? (body as { comments?: unknown }).comments : undefined;
  return { state: stateIn(body), comments: typeof comments === 'string' ? comments : null };
}

/** What a re-read says changed against what was seen: null when nothing did. */
export function changedSince(seen: Seen, now: Seen): Seen | null {
  if (now.state === seen.state && now.comments === seen.comments) return null;
  return now;
}

/**
 * What changed between two reads, in words, one part per field that changed:
 * `state PENDING_REVIEW → DECLINED`, `comment (none) → "fraud ring"`. Raw text from the
 * service: the caller makes it safe for its terminal.
 */
export function changeWords(seen: Seen, now: Seen): string[] {
  const words: string[] = [];
  if (now.state !== seen.state) words.push(`state ${seen.state ?? '(none)'} ${sym.arrow} ${now.state ?? '(none)'}`);
  const comment = (c: string | null) => (c === null || c === '' ? '(none)' : `"${c}"`);
  if (now.comments !== seen.comments)
    words.push(`comment ${comment(seen.comments)} ${sym.arrow} ${comment(now.comments)}`);
  return words;
}

/** Between the comment an event keeps and the one added after it (the service keeps one comment). */
export const KEPT_COMMENT_SEPARATOR = ' | ';

/**
 * The comment to send for `added` on an event whose comment is `existing`: with `keep`, the
 * existing one stays and `added` follows it; otherwise `added` replaces it.
 */
export function commentToSend(existing: string | null, added: string, keep: boolean): string {
  if (!keep || existing === null || existing.trim() === '') return added;
  return `${existing}${KEPT_COMMENT_SEPARATOR}${added}`;
}

/** True when sending `added` would replace a comment the event has (another, not empty). */
export function replacesComment(existing: string | null, added: string): boolean {
  return existing !== null && existing.trim() !== '' && existing !== added;
}

/** Why a change asked for many events passes one over. */
export type SkipReason =
  /** The event is in the target state already. */
  | 'already'
  /** --if-state names other states. */
  | 'not-listed'
  /** The known state machine does not allow the change from the state read. */
  | 'not-allowed'
  /** The event's state is one this build does not know (or it has none). */
  | 'unknown-state';

export type ChangeDecision = { send: true; steps: string[] } | { send: false; why: SkipReason };

export interface ChangeGuard {
  /** Only events in one of these states (canonical names), or null for any. */
  ifStates: readonly string[] | null;
  /** --force-state: send whatever the known state machine says (or does not know). */
  force: boolean;
}

/** Whether to change an event read in `state` to `target`, and with which PATCHes. */
export function decideChange(state: string | null, target: string, guard: ChangeGuard): ChangeDecision {
  if (state === target) return { send: false, why: 'already' };
  if (guard.ifStates !== null && (state === null || !guard.ifStates.includes(state)))
    return { send: false, why: 'not-listed' };
  const steps = stepsTo(target, state);
  if (guard.force) return { send: true, steps };
  if (state === null || !isKnownState(state)) return { send: false, why: 'unknown-state' };
  let from: string = state;
  for (const step of steps) {
    if (!isKnownState(from) || !(TRANSITIONS[from] as readonly string[]).includes(step))
      return { send: false, why: 'not-allowed' };
    from = step;
  }
  return { send: true, steps };
}
