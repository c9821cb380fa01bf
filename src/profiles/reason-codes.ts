import { KNOWN_STATES } from '../contract/states.js';
import { matchState } from '../contract/state-names.js';
import type { Checked } from './value-rules.js';

/*
 * A profile's reason codes: `config set reasons stolen-card,friendly-fraud:DECLINED+FRAUD_CONFIRMED`.
 * The team's list of why a decision was made, so that decisions can be counted. The syntax, one
 * form for the command line, the config file and `config get`:
 *   CODE[:STATE+STATE…], … separated by commas
 * A code is 1 to 40 lower-case letters, digits and hyphens; after a colon, the states it applies
 * to (any case, `-` or `_`: `declined+fraud-confirmed`), kept canonical; without them, every
 * change. No code twice. Parsed here, checked the same when the config file is read.
 */

export interface ReasonCode {
  code: string;
  /** The target states the code applies to (canonical), or null: any change. */
  states: string[] | null;
}

const CODE = /^[a-z0-9-]{1,40}$/;
const CODE_RULE = 'must be 1 to 40 lower-case letters, digits and hyphens';

/** One entry, `CODE` or `CODE:STATE+STATE`; the problem names the entry. */
function parseEntry(entry: string): Checked<ReasonCode> {
  const [code = '', states, ...extra] = entry.split(':');
  const shown = JSON.stringify(entry);
  if (!CODE.test(code)) return { ok: false, problem: `reason code ${JSON.stringify(code)} ${CODE_RULE}` };
  if (extra.length > 0) return { ok: false, problem: `reason ${shown} has more than one ":" (CODE:STATE+STATE)` };
  if (states === undefined) return { ok: true, value: { code, states: null } };
  const named: string[] = [];
  for (const typed of states.split('+')) {
    const match = matchState(typed);
    if (match.state === null) {
      const guess =
        match.suggestion !== null ? `: did you mean ${match.suggestion}?` : ` (known: ${KNOWN_STATES.join(', ')})`;
      return { ok: false, problem: `reason ${shown} names an unknown state ${JSON.stringify(typed)}${guess}` };
    }
    if (!named.includes(match.state)) named.push(match.state);
  }
  return { ok: true, value: { code, states: named } };
}

/** `a,b:DECLINED+FRAUD_CONFIRMED` → the codes; spaces around entries are ignored. */
export function parseReasons(text: string): Checked<ReasonCode[]> {
  const entries = text.split(',').map((e) => e.trim());
  if (entries.length === 1 && entries[0] === '')
    return { ok: false, problem: 'needs at least one code (to remove them: fraudctl config unset reasons)' };
  const codes: ReasonCode[] = [];
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (!parsed.ok) return parsed;
    if (codes.some((c) => c.code === parsed.value.code))
      return { ok: false, problem: `reason code ${JSON.stringify(parsed.value.code)} is given twice` };
    codes.push(parsed.value);
  }
  return { ok: true, value: codes };
}

/** The codes in the form parseReasons reads (how the config file keeps them, and `config get reasons` prints them). */
export function formatReasons(codes: readonly ReasonCode[]): string {
  return codes.map((c) => (c.states === null ? c.code : `${c.code}:${c.states.join('+')}`)).join(',');
}

/** The config file's value (a string in the syntax above), checked as when set. */
export function checkStoredReasons(value: unknown): Checked<ReasonCode[]> {
  if (typeof value !== 'string') return { ok: false, problem: 'must be a string: CODE,CODE:STATE+STATE,...' };
  return parseReasons(value);
}

/** A profile's codes as the config file keeps them (checked when the file was read: config-file.ts). */
export function storedReasons(stored: { reasons?: string }): ReasonCode[] {
  if (stored.reasons === undefined) return [];
  const parsed = parseReasons(stored.reasons);
  return parsed.ok ? parsed.value : [];
}
