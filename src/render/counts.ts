/*
 * How a count is written for a person: digits grouped as `12,345` (en-US whatever the locale,
 * so output and tests read the same everywhere), a fraction rounded away, and `1 event` /
 * `2 events`. The one place a number of things becomes text.
 */

// Made on first use: creating an Intl formatter loads ICU data, and most runs never write a
// count (docs/decisions/number-format-on-first-use.md).
let grouped: Intl.NumberFormat | undefined;

/** `12,345`; a fraction (a rate) is rounded to a whole number. */
export function count(n: number): string {
  return (grouped ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })).format(n);
}

/** `1 event`, `2 events`: a count and its noun, singular for one. */
export function plural(n: number, one: string, many: string): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}
