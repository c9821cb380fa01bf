import { count } from './counts.js';
import { sym } from './symbols.js';

/*
 * Text that came from the service, made harmless for a terminal.
 *
 * Approach (one, for every control): each character that a terminal could act on is replaced
 * by a printable escape of itself (`\x1b`, `\x9b`, `\u202e`, `\n`, `\t`), and nothing else is
 * touched. An escape *sequence* therefore stays visible but inert: `ESC[31m` is shown as the
 * seven printable characters `\x1b[31m`, an OSC title change `ESC]0;pwned BEL` as
 * `\x1b]0;pwned\x07`. A terminal only starts acting on ESC (0x1B) or an 8-bit C1 introducer
 * (0x80-0x9F); with every one of those gone, what follows them is plain printable text. This
 * is simpler to prove complete than parsing sequences to strip them, and the analyst sees both
 * that something odd was there and what it was — no data is dropped.
 *
 * A literal backslash in the input is left as it is, so a string may *look* like it held an
 * escape it did not; that can mislead a reader a little but cannot act on the terminal.
 */

/*
 * What gets escaped:
 *  - C0 controls U+0000-U+001F (includes ESC, BEL, CR, LF, TAB), DEL U+007F, C1 U+0080-U+009F
 *    (8-bit CSI U+009B, OSC U+009D, DCS U+0090, ...);
 *  - bidi controls: ALM U+061C, LRM/RLM U+200E/U+200F, embeddings and overrides U+202A-U+202E,
 *    isolates U+2066-U+2069 (they reorder what is shown, "Trojan Source");
 *  - line and paragraph separators U+2028/U+2029, so that a cell stays on one line;
 *  - lone surrogates (with the `u` flag a class of surrogates only matches unpaired ones): they
 *    would reach the terminal as U+FFFD, hiding what the service sent.
 */
// One class, two regexes: a global regex keeps lastIndex between .test() calls, so the
// fast-path check gets its own non-global copy.
const UNSAFE_CLASS =
  '[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]';
const UNSAFE = new RegExp(UNSAFE_CLASS, 'u');
const UNSAFE_ALL = new RegExp(UNSAFE_CLASS, 'gu');

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

function escapeControl(ch: string): string {
  if (ch === '\n') return '\\n';
  if (ch === '\t') return '\\t';
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
}

/** The string with every terminal-active character shown as a printable escape (see above). */
export function terminalSafe(value: string): string {
  // Common case: nothing to do, no new string.
  if (!UNSAFE.test(value)) return value;
  return value.replace(UNSAFE_ALL, escapeControl);
}

/**
 * At most `max` code points of `value`, then a marker saying how many were cut:
 * `abc… (+98,765 chars)`. Counts and cuts by code point, so a surrogate pair is never split
 * (a grapheme made of several code points, e.g. an emoji with a skin tone, may be).
 */
export function truncate(value: string, max: number): string {
  const limit = Number.isNaN(max) ? 0 : Math.max(0, Math.floor(max));
  // Code points <= UTF-16 units, so a string this short cannot be over the limit.
  if (value.length <= limit) return value;
  let kept = 0;
  let cut = 0;
  for (const ch of value) {
    if (kept === limit) break;
    kept += 1;
    cut += ch.length;
  }
  if (cut === value.length) return value;
  return `${value.slice(0, cut)}${sym.ellipsis} (+${count(codePointsFrom(value, cut))} chars)`;
}

/** How many code points `value` has from UTF-16 index `start` on (a surrogate pair is one). */
function codePointsFrom(value: string, start: number): number {
  let count = 0;
  for (let i = start; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    count += 1;
  }
  return count;
}

/*
 * What JSON.stringify leaves raw but a terminal could act on or reorder: DEL, C1, the bidi
 * controls, and U+2028/U+2029. (JSON.stringify already escapes C0 and lone surrogates.)
 */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON for a terminal: `JSON.stringify` (2-space indent when `pretty`), then every character in
 * JSON_UNSAFE written as `\uXXXX`. The result parses back to a value deep-equal to the input.
 *
 * Replacing over the whole serialised text is correct: outside string literals JSON has only
 * ASCII punctuation, digits, `true`/`false`/`null` and the whitespace space, tab, LF and CR, so
 * these characters can only occur inside a string, where `\uXXXX` is a valid escape that parses
 * to the same character.
 *
 * Follows JSON.stringify otherwise: a value it cannot represent at the top (undefined, a
 * function) gives `null`; a cycle or a BigInt throws its TypeError. Parsed service answers have
 * neither.
 */
export function jsonForTerminal(value: unknown, pretty: boolean): string {
  const text = JSON.stringify(value, null, pretty ? 2 : undefined) as string | undefined;
  if (text === undefined) return 'null';
  return text.replace(JSON_UNSAFE, (ch) => `\\u${hex(ch.charCodeAt(0), 4)}`);
}
