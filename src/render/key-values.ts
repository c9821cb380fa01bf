import type { Style } from './colours.js';
import { cell, safeText } from './cell-text.js';
import { isFields, unknownKeys, type Fields } from './json-fields.js';
import { column, createTable, recordTable, tableText } from './tables.js';

/*
 * The generic renderer: any JSON value, shape unknown, shown without losing anything. Used
 * whole for answers the CLI does not recognise, and for the fields a known shape did not
 * expect ("other fields").
 */

/**
 * An object as a key/value table (a field holding a list of objects gets its own table under a
 * heading, its columns the union of the objects' keys); an array as a table of its entries; a
 * scalar as itself; null as a dash. Never throws for a JSON value. No trailing newline.
 */
export function renderKeyValues(value: unknown, style: Style): string {
  if (Array.isArray(value)) return renderList(value, style);
  if (isFields(value)) return renderFields(value, Object.keys(value), style);
  return cell(value, style);
}

/** The named fields of `fields`, as renderKeyValues shows an object. */
export function renderFields(fields: Fields, keys: readonly string[], style: Style): string {
  if (keys.length === 0) return style.dim('(no fields)');
  const table = createTable(undefined, style);
  const lists: string[] = [];
  for (const key of keys) {
    const value = fields[key];
    if (isListOfRecords(value)) lists.push(`${style.heading(safeText(key))}\n${recordsByUnionOfKeys(value, style)}`);
    else table.push([safeText(key), cell(value, style)]);
  }
  return [...(table.length > 0 ? [tableText(table, style)] : []), ...lists].join('\n\n');
}

function renderList(list: readonly unknown[], style: Style): string {
  if (list.length === 0) return style.dim('(empty list)');
  if (isListOfRecords(list)) return recordsByUnionOfKeys(list, style);
  const table = createTable(['#', 'value'], style, ['right', 'left']);
  list.forEach((entry, i) => table.push([String(i), cell(entry, style)]));
  return tableText(table, style);
}

function isListOfRecords(value: unknown): value is Fields[] {
  return Array.isArray(value) && value.length > 0 && value.every(isFields);
}

/** A table whose columns are every key any of the records has, in first-seen order. */
function recordsByUnionOfKeys(records: readonly Fields[], style: Style): string {
  const keys = [...new Set(records.flatMap((r) => Object.keys(r)))];
  if (keys.length === 0) return style.dim(`(${records.length} empty ${records.length === 1 ? 'object' : 'objects'})`);
  return recordTable(
    records,
    keys.map((k) => column(safeText(k), k)),
    style,
  );
}

/** The fields of `fields` not in `known`, under an "Other fields" heading; '' when none. */
export function renderOtherFields(fields: Fields, known: ReadonlySet<string>, style: Style): string {
  const keys = unknownKeys(fields, known);
  if (keys.length === 0) return '';
  return `${style.heading('Other fields')}\n${renderFields(fields, keys, style)}`;
}
