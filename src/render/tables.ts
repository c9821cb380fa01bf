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
  return table.toString();
}

/** Blocks of output (tables, lines) one blank line apart; empty blocks left out. */
export function joinBlocks(blocks: readonly string[]): string {
  return blocks.filter((b) => b !== '').join('\n\n');
}
