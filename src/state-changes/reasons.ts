import { closest, distance } from 'fastest-levenshtein';
import { UsageError } from '../errors/cli-error.js';
import type { ReasonCode } from '../profiles/reason-codes.js';
import { terminalSafe } from '../render/terminal-text.js';
import { shellCommand } from '../render/shell-command.js';

/*
 * `set-state --reason CODE`: the code checked against the profile's list
 * (`config set reasons`) and the state the change goes to, before anything is sent; and the one
 * form in which it reaches the service, at the head of the comment added:
 *   [reason: CODE] the comment        (or `[reason: CODE]` alone when there is no comment)
 * When the event's comment is kept (--append-comment), the reason heads the part added after it.
 * The action log carries the code in its own field, `reason`.
 */

/** What the check needs of the run's settings. */
export interface ReasonRules {
  profile: string;
  reasons: readonly ReasonCode[];
  requireReason: boolean;
}

/** The comment as sent with a reason: `[reason: CODE] ` then the comment (the documented form). */
export function withReason(reason: string | null, comments: string | null | undefined): string | undefined {
  const text = comments ?? undefined;
  if (reason === null) return text;
  return text === undefined || text.trim() === '' ? `[reason: ${reason}]` : `[reason: ${reason}] ${text}`;
}

/** The codes that apply to a change to `target` (undefined/null: no change of state, only a comment: the codes for any change). */
export function codesFor(rules: ReasonRules, target: string | null | undefined): string[] {
  return rules.reasons
    .filter((r) => r.states === null || (target != null && r.states.includes(target)))
    .map((r) => r.code);
}

/**
 * What to run when a profile lacks the codes a change needs: two commands that work as written
 * (a `config set reasons` line with placeholders would fail, and with real codes would replace
 * the team's list): the list as it is, and the format to add to it.
 */
export function reasonsHint(profile: string): string {
  return `see the profile's codes: ${listCommand(profile)}; how to add one: fraudctl help config`;
}

/** The most codes a message names: a team's list may have a thousand. */
export const MAX_CODES_NAMED = 5;

/**
 * `codes` as a message names them: all of them when they are few; else the few nearest `typed`
 * (by edit distance, then by name), or the first few, with how many there are.
 */
function namedCodes(codes: readonly string[], typed: string | null): string {
  if (codes.length <= MAX_CODES_NAMED) return codes.join(', ');
  const nearest = (t: string) => [...codes].sort((a, b) => distance(t, a) - distance(t, b) || a.localeCompare(b, 'en'));
  const few = (typed === null ? codes : nearest(typed)).slice(0, MAX_CODES_NAMED);
  const which = typed === null ? 'the first' : 'the nearest';
  return `${few.join(', ')} (${which} ${MAX_CODES_NAMED} of ${codes.length.toLocaleString('en-US')})`;
}

/** The command that lists every code of the profile. */
function listCommand(profile: string): string {
  return shellCommand(['fraudctl', 'config', 'get', 'reasons', '--profile', profile]);
}

/**
 * The reason to send, checked: `typed` must be one of the profile's codes, and one for `target`;
 * without one, a profile that requires a reason refuses a change of state. Usage errors (exit 2)
 * naming the codes.
 */
export function checkedReason(
  rules: ReasonRules,
  typed: string | undefined,
  target: string | null | undefined,
): string | null {
  const profile = JSON.stringify(rules.profile);
  const listHint = reasonsHint(rules.profile);
  if (typed === undefined) {
    if (!rules.requireReason || target == null) return null;
    const codes = codesFor(rules, target);
    if (codes.length === 0)
      throw new UsageError(
        `profile ${profile} requires a reason for a change of state, and has no code for ${terminalSafe(target)}: nothing was sent`,
        listHint,
      );
    const all = codes.length > MAX_CODES_NAMED ? `; all of them: ${listCommand(rules.profile)}` : '';
    throw new UsageError(
      `profile ${profile} requires a reason for a change of state: add --reason CODE ` +
        `(for ${terminalSafe(target)}: ${namedCodes(codes, null)}); nothing was sent`,
      all === '' ? undefined : all.slice(2),
    );
  }
  if (rules.reasons.length === 0)
    throw new UsageError(`--reason: profile ${profile} has no reason codes: nothing was sent`, listHint);
  const known = rules.reasons.find((r) => r.code === typed);
  if (known === undefined) {
    const near = closest(
      typed,
      rules.reasons.map((r) => r.code),
    );
    // A typo is a few characters off; a code further away is not worth a guess.
    const guess = distance(typed, near) <= Math.max(2, Math.floor(near.length / 3)) ? `: did you mean "${near}"?` : '';
    const codes = rules.reasons.map((r) => r.code);
    const all = codes.length > MAX_CODES_NAMED ? `; all of them: ${listCommand(rules.profile)}` : '';
    throw new UsageError(
      `unknown reason "${terminalSafe(typed)}"${guess} (nothing was sent)`,
      `the codes of profile ${profile}: ${namedCodes(codes, typed)}${all}`,
    );
  }
  if (known.states !== null && (target == null || !known.states.includes(target))) {
    const codes = codesFor(rules, target);
    const what = target == null ? 'a comment without a change of state' : terminalSafe(target);
    const all = codes.length > MAX_CODES_NAMED ? `; all of them: ${listCommand(rules.profile)}` : '';
    throw new UsageError(
      `reason "${known.code}" is for ${known.states.join(', ')}, not ${what}: nothing was sent`,
      codes.length > 0 ? `the codes for ${what}: ${namedCodes(codes, typed)}${all}` : undefined,
    );
  }
  return known.code;
}
