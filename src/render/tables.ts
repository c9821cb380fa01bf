import Table from 'cli-table3';
import type { Style } from './colours.js';
import { cell, dash, keyEqualsValue } from './cells.js';
import { isFields, unknownKeys, type Fields } from './records.js';

/*
 * cli-table3 as the renderers use it. Borders and heads are never coloured by cli-table3
 * (its own colours ignore our colour level); headings are coloured through Style, and every
 * cell handed in here is already safe text.
 */

type Row = Table.HorizontalTableRow;

export function createTable(head: readonly string[] | undefined, style: Style, colAligns?: Table.HorizontalAlignment[]): Table.Table {
  return new Table({
    ...(head ? { head: head.map((h) => style.bold(h)) } : {}),
    ...(colAligns ? { colAligns } : {}),
    // compact: no rule between rows, only under the head.
    style: { head: [], border: [], compact: true },
  });
}

/** Narrowest a column is made to fit a terminal: room for a few characters and the cell's padding. */
const MIN_COLUMN = 8;

/**
 * The table as text; on a terminal (style.columns set), fitted to its width as gh's table
 * printer does: while the table is too wide, the widest column gives up a column, so the long
 * free-text columns (names, descriptions, comments) shrink first; their cells wrap at word
 * boundaries (and longer words are cut with …). Off a terminal nothing is cut. cli-table3 sizes
 * columns from their content when rendering, so the natural widths are read off a first
 * rendering's border line (its own computed widths leave out spanning cells).
 */
export function tableText(table: Table.Table, style: Style): string {
  const natural = table.toString();
  const columns = style.columns;
  if (columns === null) return natural;
  const borders = natural.split('\n').filter((line) => /^[┌├└][─┬┼┴]+[┐┤┘]$/.test(line));
  if (borders.length === 0 || borders[0]!.length <= columns) return natural;
  // The border with the most column separators has every column (spanning rows hide some).
  const border = borders.reduce((a, b) => (b.split(/[┬┼┴]/).length > a.split(/[┬┼┴]/).length ? b : a));
  const widths = border.slice(1, -1).split(/[┬┼┴]/).map((segment) => segment.length);
  let total = widths.reduce((sum, w) => sum + w, 0) + widths.length + 1;
  while (total > columns) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= MIN_COLUMN) break;
    widths[widest]!--;
    total--;
  }
  // The first rendering filled in colWidths and rowHeights: fix the widths, and let the heights grow with the wrapping.
  Object.assign(table.options, { colWidths: widths, rowHeights: [], wordWrap: true, wrapOnWordBoundary: true });
  return table.toString();
}

/** A row spanning a two-column table: a section heading in it, or '' for a blank line. */
export function sectionRow(title: string, style: Style): Row {
  return [{ colSpan: 2, content: title === '' ? '' : style.heading(title) }];
}

/** One column of a table of records: which keys it shows, and how. */
export interface Column {
  head: string;
  keys: readonly string[];
  show(fields: Fields, style: Style): string;
  align?: Table.HorizontalAlignment;
}

/** A column showing one key as a plain cell. */
export function column(head: string, key: string, align?: Table.HorizontalAlignment): Column {
  return { head, keys: [key], show: (fields, style) => cell(fields[key], style), ...(align ? { align } : {}) };
}

/**
 * Records as a table with the given columns. Keys no column knows, and entries that are not
 * records at all, are not dropped: they appear in an extra "other" column (as key=value, or as
 * the value itself).
 */
export function recordTable(entries: readonly unknown[], columns: readonly Column[], style: Style): string {
  const known = new Set(columns.flatMap((c) => c.keys));
  const extras = entries.map((e) => (isFields(e) ? unknownKeys(e, known) : []));
  const needOther = entries.some((e, i) => !isFields(e) || extras[i]!.length > 0);
  const head = columns.map((c) => c.head);
  const aligns = columns.map((c) => c.align ?? 'left');
  if (needOther) {
    head.push('other');
    aligns.push('left');
  }
  const table = createTable(head, style, aligns);
  entries.forEach((entry, i) => {
    const row = isFields(entry)
      ? columns.map((c) => c.show(entry, style))
      : columns.map(() => dash(style));
    if (needOther) row.push(isFields(entry) ? keyEqualsValue(entry, extras[i]!, style) : cell(entry, style));
    table.push(row);
  });
  return tableText(table, style);
}

/** Blocks of output (tables, lines) one blank line apart; empty blocks left out. */
export function joinBlocks(blocks: readonly string[]): string {
  return blocks.filter((b) => b !== '').join('\n\n');
}
