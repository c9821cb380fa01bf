import { displayWidth, wrapToWidth } from '../render/display-width.js';
import { terminalSafe } from '../render/terminal-text.js';
import { keyBar, keyContext } from './keymap.js';
import type { Model, Mode } from './queue-model.js';

/*
 * The measures of the screen that update() needs as well as view(): how the position and id
 * wrap, how the key bar wraps, and so how many rows of tables a page of `v` shows. Both take
 * them from here, so a page scrolled is a page drawn, and update() imports nothing of the view.
 */

/** The most of an id the screen wraps: beyond the contract's 128 characters it names no event anyway. */
export const MAX_ID_SHOWN = 256;

/** The first `n` code points of `value`: enough for `n` columns, without sanitising 100 KB to show 80. */
export function head(value: string, n: number): string {
  if (value.length <= n) return value;
  let end = 0;
  for (let count = 0; count < n && end < value.length; count++) {
    const code = value.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff && end + 1 < value.length ? 2 : 1;
  }
  // One more, so the cut that follows still sees that there was more.
  return value.slice(0, end + 1);
}

/** `3/5`: where the event is in the queue. */
export function positionOf(model: Model): string {
  return `${Math.min(model.index + 1, model.entries.length)}/${model.entries.length}`;
}

/** The key bar's entries in rows that fit the width: `a approve  d decline …`. */
export function keyBarRows(mode: Mode, width: number): { key: string; label: string }[][] {
  const context = keyContext(mode);
  if (context === null) return [];
  const rows: { key: string; label: string }[][] = [];
  let row: { key: string; label: string }[] = [];
  let used = 0;
  for (const entry of keyBar(context)) {
    const w = displayWidth(entry.key) + 1 + displayWidth(entry.label);
    if (used > 0 && used + 2 + w > width) {
      rows.push(row);
      row = [];
      used = 0;
    }
    row.push(entry);
    used += (used > 0 ? 2 : 0) + w;
  }
  if (row.length > 0) rows.push(row);
  return rows;
}

/** Rows of the view screen that show the tables: what the id (whole) and the key bar leave. */
export function viewPageSize(model: Model, width: number, height: number): number {
  const w = Math.max(20, width);
  const idRows = model.current
    ? wrapToWidth(terminalSafe(head(model.current.id, MAX_ID_SHOWN)), w - displayWidth(positionOf(model)) - 2).length
    : 1;
  return Math.max(
    1,
    Math.max(4, height) - idRows - keyBarRows({ name: 'view', lines: null, scroll: 0, page: 0 }, w).length,
  );
}
