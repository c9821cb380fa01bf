import type { Style } from './colours.js';
import { jsonForTerminal, terminalSafe, truncate } from './terminal-text.js';
import type { Fields } from './json-fields.js';
import { sym } from './symbols.js';

/*
 * One value from the service → the text of one table cell. Every string from the input goes
 * through here (values and keys alike): made terminal-safe first, then cut to CELL_MAX, so
 * that the limit bounds what the terminal gets (an escape such as `\u202e` may be cut through
 * at the limit; it stays printable text).
 */

/** The most code points of service text a table cell shows before `… (+N chars)`. */
export const CELL_MAX = 200;

/** Service text (a value or a key) made safe and bounded for a cell. */
export function safeText(value: string, max = CELL_MAX): string {
  return truncate(terminalSafe(value), max);
}

/** What an absent value (null, undefined) looks like. */
export function dash(style: Style): string {
  return style.dim(sym.dash);
}

/**
 * Any value as cell text: a dash for null/undefined, strings as they are, numbers and
 * booleans as JavaScript writes them, objects and arrays as compact JSON — all made safe.
 */
export function cell(value: unknown, style: Style): string {
  if (value === null || value === undefined) return dash(style);
  if (typeof value === 'string') return safeText(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return safeText(compactJson(value));
}

function compactJson(value: unknown): string {
  try {
    return jsonForTerminal(value, false);
  } catch {
    // A cycle or a BigInt inside: not from a parsed answer, but never let a render throw.
    return Object.prototype.toString.call(value);
  }
}

const MONEY = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * An amount with its currency: `1,520.00 EUR`; the number alone when the currency is absent,
 * a dash for the number when the amount is (`– EUR`). A non-number amount is shown as it came.
 */
export function money(amount: unknown, currency: unknown, style: Style): string {
  const number = typeof amount === 'number' ? MONEY.format(amount) : cell(amount, style);
  if (currency === null || currency === undefined) return number;
  return `${number} ${cell(currency, style)}`;
}

/** Present parts joined by `separator`; a dash when none is present. */
export function joinPresent(parts: readonly unknown[], separator: string, style: Style): string {
  const present = parts.filter((p) => p !== null && p !== undefined);
  if (present.length === 0) return dash(style);
  return present.map((p) => cell(p, style)).join(separator);
}

/** Extra fields of a record as `key=value` pairs, for an "other" column. */
export function keyEqualsValue(fields: Fields, keys: readonly string[], style: Style): string {
  return keys.map((k) => `${safeText(k)}=${cell(fields[k], style)}`).join(' ');
}
