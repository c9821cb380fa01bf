import Table from 'cli-table3';
import type { Style } from './colours.js';
import { cell, dash, keyEqualsValue } from './cell-text.js';
import { displayWidth, wrapToWidth } from './display-width.js';
import { isFields, unknownKeys, type Fields } from './json-fields.js';
import { sym } from './symbols.js';

/*
 * cli-table3 as the renderers use it. Borders and heads are never coloured by cli-table3
 * (its own colours ignore our colour level); headings are coloured through Style, and every
 * cell handed in here is already safe text.
 */

type Row = Table.HorizontalTableRow;

export function createTable(
  head: readonly string[] | undefined,
  style: Style,
  colAligns?: Table.HorizontalAlignment[],
): Table.Table {
  return new Table({
    ...(head ? { head: head.map((h) => style.bold(h)) } : {}),
    ...(colAligns ? { colAligns } : {}),
    // compact: no rule between rows, only under the head.
    style: { head: [], border: [], compact: true },
    // ASCII where the locale is not UTF-8 (symbols.ts).
    chars: { ...sym.tableChars },
    truncate: sym.ellipsis,
  });
}

/** Narrowest a column of free text is made to fit a terminal: room for a few characters and the cell's padding. */
const MIN_COLUMN = 8;

/** How a table may be fitted beyond the default: per column, the least width (padding included) and a shorter head. */
export interface TableFit {
  /** A column that shows something that must stay whole (an amount, an id) is never made narrower than this. */
  floors?: readonly (number | undefined)[];
  /** A head used when the column ends up too narrow for a word of its own (`quantity` → `qty`). */
  shortHeads?: readonly (string | undefined)[];
  /**
   * A column whose whole part may be broken over lines rather than cut (an id), when the floors
   * alone leave the table too wide: its cells then wrap anywhere, not at spaces only.
   */
  breakable?: readonly boolean[];
}

/**
 * The table as text; on a terminal (style.columns set), fitted to its width as gh's table
 * printer does: while the table is too wide, the widest column that can still give way gives up
 * a column, so the long free-text columns (names, descriptions, comments) shrink first; their
 * cells wrap at word boundaries (and longer words are cut with …). A column with a floor (money,
 * ids) stops there, whole; one with a short head gives way before the others, its head taking the
 * short form when a word of it no longer fits. Off a
 * terminal nothing is cut. cli-table3 sizes columns from their content when rendering, so the
 * natural widths are read off a first rendering's border line (its own computed widths leave out
 * spanning cells).
 */
export function tableText(table: Table.Table, style: Style, fit: TableFit = {}): string {
  const natural = table.toString();
  const columns = style.columns;
  if (columns === null) return natural;
  const { border: isBorder, between } = borderShapes();
  const borders = natural.split('\n').filter((line) => isBorder.test(line));
  if (borders.length === 0 || borders[0]!.length <= columns) return natural;
  // The border with the most column separators has every column (spanning rows hide some).
  const border = borders.reduce((a, b) => (b.split(between).length > a.split(between).length ? b : a));
  const widths = border
    .slice(1, -1)
    .split(between)
    .map((segment) => segment.length);
  const floors = widths.map((w, i) => Math.min(w, fit.floors?.[i] ?? MIN_COLUMN));
  let total = widths.reduce((sum, w) => sum + w, 0) + widths.length + 1;
  // A column whose head has a short form gives way first (its head shortens: `quantity` → `qty`),
  // then the widest that can.
  const widestOf = (candidates: (i: number) => boolean) => {
    const shrinkable = widths.map((w, i) => (candidates(i) && w > Math.max(floors[i]!, 1) ? w : -1));
    const widest = shrinkable.indexOf(Math.max(...shrinkable));
    return shrinkable[widest]! < 0 ? -1 : widest;
  };
  while (total > columns) {
    let widest = widestOf((i) => fit.shortHeads?.[i] !== undefined);
    if (widest === -1) widest = widestOf(() => true);
    if (widest === -1) break;
    widths[widest]!--;
    total--;
  }
  // Still too wide: a breakable column gives up its floor, and its cells wrap anywhere.
  const broken = new Set<number>();
  while (total > columns) {
    const candidates = widths.map((w, i) => (fit.breakable?.[i] && w > MIN_COLUMN ? w : -1));
    const widest = candidates.indexOf(Math.max(...candidates));
    if (candidates[widest]! < 0) break;
    widths[widest]!--;
    total--;
    broken.add(widest);
  }
  // Its cells are wrapped here, words longer than the column broken inside (cli-table3 would cut them).
  for (const row of table as unknown as Table.Cell[][]) {
    for (const i of broken) {
      const content = row[i];
      if (typeof content === 'string') row[i] = wrapToWidth(content, widths[i]! - 2).join('\n');
    }
  }
  const head = table.options.head;
  fit.shortHeads?.forEach((short, i) => {
    const full = head[i];
    if (short === undefined || full === undefined) return;
    const longestWord = Math.max(
      ...stripColour(full)
        .split(/\s+/)
        .map((word) => word.length),
    );
    if (longestWord > widths[i]! - 2) head[i] = style.bold(short);
  });
  // The first rendering filled in colWidths and rowHeights: fix the widths, and let the heights grow with the wrapping.
  Object.assign(table.options, { colWidths: widths, rowHeights: [], wordWrap: true, wrapOnWordBoundary: true });
  return table.toString();
}

/** A border line of the tables drawn now, and what separates its columns (UTF-8 or ASCII: symbols.ts). */
function borderShapes(): { border: RegExp; between: RegExp } {
  const c = sym.tableChars;
  const any = (...chars: string[]) => `[${[...new Set(chars)].map((ch) => ch.replace(/[-\\\]^]/g, '\\$&')).join('')}]`;
  return {
    border: new RegExp(
      `^${any(c['top-left'], c['left-mid'], c['bottom-left'])}${any(c.top, c.mid, c.bottom, c['top-mid'], c['mid-mid'], c['bottom-mid'])}+${any(c['top-right'], c['right-mid'], c['bottom-right'])}$`,
    ),
    between: new RegExp(any(c['top-mid'], c['mid-mid'], c['bottom-mid'])),
  };
}

// eslint-disable-next-line no-control-regex -- our own colour sequences around a head
const stripColour = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

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
  /** What of a cell must stay whole on a narrow terminal (an amount, an id); by default the whole cell is free text. */
  whole?(fields: Fields, style: Style): string;
  /** A shorter head for a narrow column (`qty`). */
  short?: string;
  /** The whole part is an id: on a terminal too narrow for it, it is broken over lines (never cut). */
  breakable?: boolean;
  /** Free text that, when the table cannot fit the terminal otherwise, goes under the first column's text as `head: value`. */
  foldable?: boolean;
}

/** A column showing one key as a plain cell. */
export function column(head: string, key: string, align?: Table.HorizontalAlignment): Column {
  return { head, keys: [key], show: (fields, style) => cell(fields[key], style), ...(align ? { align } : {}) };
}

/** How many cuts (… or ... by the locale) a rendering has. */
function ellipses(text: string): number {
  return text.split(sym.ellipsis).length - 1;
}

/** Cell padding, in columns. */
const CELL_PADDING = 2;

/**
 * Records as a table with the given columns. Keys no column knows, and entries that are not
 * records at all, are not dropped: they appear in an extra "other" column (as key=value, or as
 * the value itself). On a terminal too narrow for every column with its whole parts, the
 * foldable columns (and "other") go, last first, under the first column's text; only when that
 * is not enough are ids broken over lines.
 */
export function recordTable(entries: readonly unknown[], columns: readonly Column[], style: Style): string {
  const known = new Set(columns.flatMap((c) => c.keys));
  const other: Column = {
    head: 'other',
    keys: [],
    show: (fields, s) => keyEqualsValue(fields, unknownKeys(fields, known), s),
    foldable: true,
  };
  const needOther = entries.some((e) => !isFields(e) || unknownKeys(e, known).length > 0);
  const all = needOther ? [...columns, other] : [...columns];
  /** A column's text for an entry, or null when it has nothing to show. */
  const textOf = (c: Column, entry: unknown): string | null => {
    if (!isFields(entry)) return c === other ? cell(entry, style) : null;
    if (c === other) return unknownKeys(entry, known).length > 0 ? c.show(entry, style) : null;
    return c.keys.some((k) => entry[k] !== null && entry[k] !== undefined) ? c.show(entry, style) : null;
  };
  /** The table with `folded` columns under the first one's text; `breakIds`: ids may be broken over lines. */
  const layout = (folded: ReadonlySet<Column>, breakIds: boolean) => {
    const shown = all.filter((c) => !folded.has(c));
    const floors: (number | undefined)[] = shown.map((c) => (c.whole || c.short ? 0 : undefined));
    const table = createTable(
      shown.map((c) => c.head),
      style,
      shown.map((c) => c.align ?? 'left'),
    );
    for (const entry of entries) {
      table.push(
        shown.map((c, i) => {
          if (c.whole && isFields(entry))
            floors[i] = Math.max(floors[i]!, displayWidth(c.whole(entry, style)) + CELL_PADDING);
          const text = textOf(c, entry) ?? (isFields(entry) ? c.show(entry, style) : dash(style));
          if (i > 0 || folded.size === 0) return text;
          const under = all
            .filter((f) => folded.has(f))
            .flatMap((f) => {
              const value = textOf(f, entry);
              return value === null ? [] : [`${style.dim(`${f.head}:`)} ${value}`];
            });
          return [text, ...under].join('\n');
        }),
      );
    }
    shown.forEach((c, i) => {
      if (c.short !== undefined) floors[i] = Math.max(floors[i] ?? 0, displayWidth(c.short) + CELL_PADDING);
    });
    const natural = table.toString();
    const text = tableText(table, style, {
      floors,
      shortHeads: shown.map((c) => c.short),
      breakable: shown.map((c) => breakIds && c.breakable === true),
    });
    const fits = style.columns === null || text.split('\n').every((line) => displayWidth(line) <= style.columns!);
    return { text, fits, cuts: ellipses(text) - ellipses(natural) };
  };
  if (style.columns === null) return layout(new Set(), false).text;
  // Folding one more column each time (the last foldable first), then, all folded, breaking ids: the first
  // layout that fits the terminal and cuts nothing, or else the one that fits and cuts least.
  const foldable = all.filter((c, i) => i > 0 && c.foldable === true).reverse();
  let best: { text: string; cuts: number } | null = null;
  let last = '';
  const tries = [
    ...foldable.map((_, n) => ({ n, breakIds: false })),
    { n: foldable.length, breakIds: false },
    { n: foldable.length, breakIds: true },
  ];
  for (const { n, breakIds } of tries) {
    const { text, fits, cuts } = layout(new Set(foldable.slice(0, n)), breakIds);
    if (fits && cuts <= 0) return text;
    if (fits && (best === null || cuts < best.cuts)) best = { text, cuts };
    last = text;
  }
  return best?.text ?? last;
}

/** Blocks of output (tables, lines) one blank line apart; empty blocks left out. */
export function joinBlocks(blocks: readonly string[]): string {
  return blocks.filter((b) => b !== '').join('\n\n');
}
