import stringWidth from 'string-width';
import { breakToWidth, cutToWidth } from '../render/display-width.js';
import type { EventRow } from './event-row.js';
import { createStyle, type Style } from '../render/colours.js';
import { money } from '../render/cell-text.js';
import { isFields } from '../render/json-fields.js';
import { jsonForTerminal, terminalSafe } from '../render/terminal-text.js';
import { sym } from '../render/symbols.js';
import { ageMs, compactAge } from '../render/ages.js';

/*
 * Many events, one row each (`show ID ID…`, `show --from`): a compact table that streams, so
 * its columns have widths fixed before the first row (cli-table3 sizes a table from all its
 * rows, which a stream does not have): from the terminal's width and the ids of the first
 * screenful (listLayout). On a terminal a column that does not fit is left out whole, the
 * free text (email, comments) is cut with …, and the id never: an id wider than its column goes
 * on a line of its own, its row below it, so that every row lines up under the header. Off a
 * terminal nothing is cut. The age column (now - eventDate: `45m`, `3h`, `2d`) is the least
 * wanted: on a terminal it is shown only when the other columns have their preferred widths
 * beside it, so it never takes room from the id or an email. Also the row's values for CSV (event-list-csv.ts); the JSON line is
 * event-list-json.ts's.
 *
 * Every string from the service or the input passes terminalSafe before it is measured, cut
 * or written; widths are display columns (string-width: wide characters count two), cuts are
 * cli-truncate's.
 */

/** The values of a row, each safe text (uncut), in column order; also what CSV writes. */
export interface ListValues {
  id: string;
  state: string;
  decision: string;
  score: string;
  amount: string;
  currency: string;
  email: string;
  eventDate: string;
  /** now - eventDate in its largest whole unit (`45m`, `3h`, `2d`); '' without a date that can be read. */
  age: string;
  comments: string;
  /** `not found`, the error type (and codes), or '' for an event found. */
  error: string;
}

/** A JSON value as one line of safe text: strings as they are, anything else as compact JSON; '' for null or absent. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return terminalSafe(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return jsonForTerminal(value, false);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function age(eventDate: unknown, now: number): string {
  const ms = ageMs(eventDate, now);
  return ms === null ? '' : compactAge(ms);
}

function errorText(row: Exclude<EventRow, { kind: 'found' }>): string {
  if (row.kind === 'not-found') return 'not found';
  const { errorType, errorCodes } = row.error;
  return `${terminalSafe(errorType)}${errorCodes.length > 0 ? ` (${errorCodes.map(terminalSafe).join(', ')})` : ''}`;
}

/** A row's values as of `now`, read tolerantly from the summary and the risk assessment (any field may be missing or of another type). */
export function listValues(row: EventRow, now: number = Date.now()): ListValues {
  const blank = {
    state: '',
    decision: '',
    score: '',
    amount: '',
    currency: '',
    email: '',
    eventDate: '',
    age: '',
    comments: '',
  };
  if (row.kind !== 'found') return { id: row.id === null ? '' : terminalSafe(row.id), ...blank, error: errorText(row) };
  const s = isFields(row.summary) ? row.summary : {};
  const a = isFields(row.assessment) ? row.assessment : {};
  return {
    id: terminalSafe(row.id),
    state: text(s.state),
    decision: text(a.actionType),
    score: text(s.totalScore),
    amount: text(s.amount),
    currency: text(s.currency),
    email: text(s.userEmail),
    eventDate: text(s.eventDate),
    age: age(s.eventDate, now),
    comments: text(s.comments),
    error: '',
  };
}

interface Column {
  head: string;
  /** Narrowest on a terminal, and the width it grows to when there is room (and has off a terminal). */
  min: number;
  preferred: number;
  align: 'left' | 'right';
}

const GAP = '  ';
/** money() writes its dash through a Style; the amount is measured and cut before any colour. */
const PLAIN = createStyle(0);
const COLUMNS = {
  state: { head: 'state', min: 15, preferred: 15, align: 'left' },
  decision: { head: 'decision', min: 8, preferred: 8, align: 'left' },
  score: { head: 'score', min: 5, preferred: 5, align: 'right' },
  amount: { head: 'amount', min: 12, preferred: 16, align: 'right' },
  email: { head: 'email', min: 12, preferred: 28, align: 'left' },
  eventDate: { head: 'event date', min: 20, preferred: 20, align: 'left' },
  age: { head: 'age', min: 4, preferred: 4, align: 'right' },
} as const satisfies Record<string, Column>;
type Sized = keyof typeof COLUMNS;
const SIZED = Object.keys(COLUMNS) as Sized[];
/** The id column: at least this wide, and grows to `preferred` (or the widest id of the first screenful) when there is room. */
const ID = { min: 8, preferred: 20 };
/** The last column (comments) takes the rest of the line; on a terminal it shares the room as if it wanted this much. */
const COMMENTS = { min: 10, preferred: 50 };
/**
 * On a terminal too narrow for every column, which are kept, most wanted first (then shown in
 * table order). The id column gives way to the first three: an id too wide to leave them room
 * goes on a line of its own.
 */
const KEPT_FIRST: readonly (Sized | 'comments')[] = [
  'state',
  'decision',
  'amount',
  'score',
  'email',
  'eventDate',
  'comments',
];
const BESIDE_ID: readonly Sized[] = ['state', 'decision', 'amount'];

/** The width of each column shown (a sized column left out has none), the id's and the comments' (null: not shown). */
export interface ListLayout {
  id: number;
  widths: Partial<Record<Sized, number>>;
  /** On a terminal the comments take what is left of the line; null when there is no room for them. */
  comments: number | null;
}

/**
 * The columns for a terminal `columns` wide (null: off a terminal, every column at its
 * preferred width), given the ids of the first screenful (as shown: safe text), so that the
 * id column fits them and the rows that follow line up under one header.
 *
 * The id column is as wide as the widest of those ids that still leaves room for the state,
 * the decision and the amount (at least 8); a wider id, then or later, goes on a line of its
 * own with its row below. On a terminal the other columns are taken most wanted first while
 * their narrowest width fits, whole or not at all (nothing is cut at the terminal's edge);
 * the room left is then shared among the columns that can grow, in proportion to how much
 * each wants, up to its preferred width; the comments get the rest of the line.
 */
export function listLayout(columns: number | null, firstIds: readonly string[]): ListLayout {
  const widest = (limit: number) =>
    firstIds.map((id) => stringWidth(id)).reduce((most, w) => (w <= limit ? Math.max(most, w) : most), ID.min);
  if (columns === null) {
    const widths = Object.fromEntries(SIZED.map((k) => [k, COLUMNS[k].preferred])) as Record<Sized, number>;
    return { id: Math.max(ID.preferred, widest(Infinity)), widths, comments: COMMENTS.preferred };
  }
  const besideId = BESIDE_ID.reduce((sum, k) => sum + GAP.length + COLUMNS[k].min, 0);
  const idMin = widest(columns - besideId);
  // Ids known (the first screenful): the column is as wide as they are, and the room goes to the
  // columns that are cut (an email), not to padding; none known yet: it may grow to 20.
  const id = { min: idMin, preferred: firstIds.length > 0 ? idMin : Math.max(ID.preferred, idMin) };
  let left = columns - id.min;
  const chosen = new Set<Sized | 'comments'>();
  for (const k of KEPT_FIRST) {
    const need = GAP.length + (k === 'comments' ? COMMENTS.min : COLUMNS[k].min);
    if (need <= left) {
      chosen.add(k);
      left -= need;
    }
  }
  const want = (c: Column | typeof ID | typeof COMMENTS) => c.preferred - c.min;
  // The age is the least wanted: shown only when the id and the columns kept have their
  // preferred widths beside it (the comments take what is left, as ever).
  const wantedBesideAge = want(id) + SIZED.filter((k) => chosen.has(k)).reduce((sum, k) => sum + want(COLUMNS[k]), 0);
  if (left - wantedBesideAge >= GAP.length + COLUMNS.age.min) {
    chosen.add('age');
    left -= GAP.length + COLUMNS.age.min;
  }
  const shown = SIZED.filter((k) => chosen.has(k));
  const wanted =
    want(id) + shown.reduce((sum, k) => sum + want(COLUMNS[k]), 0) + (chosen.has('comments') ? want(COMMENTS) : 0);
  const share = (c: Column | typeof ID | typeof COMMENTS) =>
    wanted === 0 ? 0 : Math.min(want(c), Math.floor((left * want(c)) / wanted));
  const widths = Object.fromEntries(shown.map((k) => [k, COLUMNS[k].min + share(COLUMNS[k])])) as Partial<
    Record<Sized, number>
  >;
  const idWidth = id.min + share(id);
  const used = idWidth + shown.reduce((sum, k) => sum + GAP.length + widths[k]!, 0);
  return { id: idWidth, widths, comments: chosen.has('comments') ? columns - used - GAP.length : null };
}

/** The id cell's text for an entry or row: the id made safe, or where the line without one was. */
export function idText(id: string | null, where: string): string {
  return id === null ? `(${terminalSafe(where)})` : terminalSafe(id);
}

export interface ListTable {
  /** The heading line. */
  header(): string;
  /**
   * One row, without a newline at the end: one line, or, on a terminal, for an id wider than its
   * column, the id on a line of its own (lines, on a terminal narrower than the id) and the row's
   * cells below it. Off a terminal always one line: the id column widens for a longer id.
   */
  row(row: EventRow): string;
}

/**
 * `columns`: the terminal's width, or null off a terminal (nothing cut). `firstIds`: the ids of
 * the first screenful, as `idText` gives them, for the id column's width. `now`: the clock of
 * the age column (now - eventDate when the row is written).
 */
export function createListTable(
  style: Style,
  columns: number | null,
  firstIds: readonly string[] = [],
  now: () => number = Date.now,
): ListTable {
  const layout = listLayout(columns, firstIds);
  const shown = SIZED.filter((k) => layout.widths[k] !== undefined);
  /** The id column; off a terminal it widens for a longer id (a row stays one line there). */
  let idWidth = layout.id;
  const fit = (value: string, width: number, align: 'left' | 'right'): string => {
    const cut = columns !== null ? cutToWidth(value, width) : value;
    const pad = ' '.repeat(Math.max(0, width - stringWidth(cut)));
    return align === 'right' ? pad + cut : cut + pad;
  };
  /** What follows the id column on a terminal: the cells, then the last (comments, or a message) in what is left of the line. */
  const rest = (cells: readonly string[], last: string | null): string => {
    const start = cells.map((c) => GAP + c).join('');
    if (last === null) return start;
    if (columns === null) return `${start}${GAP}${last}`;
    const left = columns - idWidth - stringWidth(start) - GAP.length;
    return left > 0 ? `${start}${GAP}${cutToWidth(last, left)}` : start;
  };
  /**
   * The id and the rest of its row. An id wider than its column is never cut: it goes on a line
   * of its own (broken at the terminal's edge when it is wider than the terminal), and the row
   * below it, indented to the column, so that every row's cells line up under the header.
   */
  const line = (id: string, colour: (s: string) => string, after: string): string => {
    const width = stringWidth(id);
    // Off a terminal a row stays one line, for grep and awk: the id column widens from here on.
    if (columns === null && width > idWidth) idWidth = width;
    if (width <= idWidth) return (colour(id + ' '.repeat(idWidth - width)) + after).trimEnd();
    return [...breakToWidth(id, columns ?? width).map(colour), (' '.repeat(idWidth) + after).trimEnd()].join('\n');
  };
  const cell = (value: string, k: Sized, colour?: (s: string) => string): string => {
    const width = layout.widths[k]!;
    if (value === '') return style.dim(fit(sym.dash, width, COLUMNS[k].align));
    const fitted = fit(value, width, COLUMNS[k].align);
    return colour ? colour(fitted) : fitted;
  };
  const plain = (s: string) => s;
  return {
    header: () =>
      line(
        'id',
        style.bold,
        rest(
          shown.map((k) => style.bold(fit(COLUMNS[k].head, layout.widths[k]!, COLUMNS[k].align))),
          layout.comments !== null ? style.bold('comments') : null,
        ),
      ),
    row(row) {
      const v = listValues(row, now());
      // The id is never cut: a row must say which event it is.
      const id = row.kind === 'invalid' && row.id === null ? idText(null, row.where) : v.id;
      const colour = row.kind === 'invalid' && row.id === null ? style.dim : plain;
      if (row.kind === 'not-found') return line(id, colour, rest([], style.dim(v.error)));
      if (row.kind === 'invalid') return line(id, colour, rest([], `${style.review('invalid')} ${v.error}`));
      if (row.kind === 'error') return line(id, colour, rest([], `${style.decline('error')} ${v.error}`));
      const summary = isFields(row.summary) ? row.summary : {};
      const amount =
        summary.amount === null || summary.amount === undefined ? '' : money(summary.amount, summary.currency, PLAIN);
      const values: Record<Sized, () => string> = {
        state: () => cell(v.state, 'state'),
        decision: () => cell(v.decision, 'decision', (s) => style.action(v.decision, s)),
        score: () => cell(v.score, 'score'),
        amount: () => cell(amount, 'amount'),
        email: () => cell(v.email, 'email'),
        eventDate: () => cell(v.eventDate, 'eventDate'),
        age: () => cell(v.age, 'age'),
      };
      return line(
        id,
        colour,
        rest(
          shown.map((k) => values[k]()),
          layout.comments === null ? null : v.comments === '' ? style.dim(sym.dash) : v.comments,
        ),
      );
    },
  };
}
