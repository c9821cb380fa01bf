import stringWidth from 'string-width';
import { cutToWidth } from './display-width.js';
import type { EventRow } from '../event-lists/event-row.js';
import { createStyle, type Style } from './colours.js';
import { money } from './cells.js';
import { isFields } from './records.js';
import { jsonForTerminal, terminalSafe } from './terminal-text.js';

/*
 * Many events, one row each (`show ID ID…`, `show --from`): a compact table that streams, so
 * its columns have widths fixed before the first row (cli-table3 sizes a table from all its
 * rows, which a stream does not have). On a terminal each row is cut to fit its width (the id
 * never: it overflows rather than becoming ambiguous); off a terminal nothing is cut. Also the
 * row's values for CSV (event-list-csv.ts); the JSON line is event-list-json.ts's.
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

function errorText(row: Exclude<EventRow, { kind: 'found' }>): string {
  if (row.kind === 'not-found') return 'not found';
  const { errorType, errorCodes } = row.error;
  return `${terminalSafe(errorType)}${errorCodes.length > 0 ? ` (${errorCodes.map(terminalSafe).join(', ')})` : ''}`;
}

/** A row's values, read tolerantly from the summary and the risk assessment (any field may be missing or of another type). */
export function listValues(row: EventRow): ListValues {
  const blank = { state: '', decision: '', score: '', amount: '', currency: '', email: '', eventDate: '', comments: '' };
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
  id: { head: 'id', min: 8, preferred: 20, align: 'left' },
  state: { head: 'state', min: 15, preferred: 15, align: 'left' },
  decision: { head: 'decision', min: 8, preferred: 8, align: 'left' },
  score: { head: 'score', min: 5, preferred: 5, align: 'right' },
  amount: { head: 'amount', min: 12, preferred: 16, align: 'right' },
  email: { head: 'email', min: 12, preferred: 28, align: 'left' },
  eventDate: { head: 'event date', min: 20, preferred: 20, align: 'left' },
} as const satisfies Record<string, Column>;
type Sized = keyof typeof COLUMNS;
const SIZED = Object.keys(COLUMNS) as Sized[];
/** The last column (comments) takes the rest of the line; on a terminal it shares the room as if it wanted this much. */
const COMMENTS = { min: 10, preferred: 50 };

export type Widths = Record<Sized, number>;

/**
 * Column widths for a terminal `columns` wide (null: off a terminal, the preferred widths).
 * From the minimums, the room left is shared among the columns that can grow and the comments,
 * in proportion to how much each wants, up to its preferred width; the comments get the rest.
 * On a terminal too narrow for the minimums, lines are cut at its edge.
 */
export function columnWidths(columns: number | null): Widths {
  const widths = Object.fromEntries(SIZED.map((k) => [k, columns === null ? COLUMNS[k].preferred : COLUMNS[k].min])) as Widths;
  if (columns === null) return widths;
  const used = SIZED.reduce((sum, k) => sum + widths[k] + GAP.length, 0) + COMMENTS.min;
  const want = (k: Sized) => COLUMNS[k].preferred - COLUMNS[k].min;
  const wanted = SIZED.reduce((sum, k) => sum + want(k), 0) + COMMENTS.preferred - COMMENTS.min;
  const room = Math.max(0, columns - used);
  for (const k of SIZED) widths[k] += Math.min(want(k), Math.floor((room * want(k)) / wanted));
  return widths;
}


export interface ListTable {
  /** The heading line. */
  header(): string;
  /** One row as one line (no newline). */
  row(row: EventRow): string;
}

/** `columns`: the terminal's width, or null off a terminal (nothing cut). */
export function createListTable(style: Style, columns: number | null): ListTable {
  const widths = columnWidths(columns);
  const fit = (value: string, width: number, align: 'left' | 'right', cutToFit = true): string => {
    const shown = cutToFit && columns !== null ? cutToWidth(value, width) : value;
    const pad = ' '.repeat(Math.max(0, width - stringWidth(shown)));
    return align === 'right' ? pad + shown : shown + pad;
  };
  /**
   * The cells, then `last` cut to what is left of the terminal's width, without trailing blanks.
   * An id wider than its column pushes the rest on; the line is then cut to the width (the id,
   * first, is cut only if it is wider than the terminal itself: then the line wraps).
   */
  const line = (cells: readonly string[], last: string): string => {
    const start = cells.join(GAP) + (last !== '' ? GAP : '');
    if (columns === null) return (start + last).trimEnd();
    const left = columns - stringWidth(start);
    if (left >= 2) return start + cutToWidth(last, left);
    return cutToWidth((start + last).trimEnd(), Math.max(columns, stringWidth(cells[0] ?? '')));
  };
  const cell = (value: string, k: Sized, colour?: (s: string) => string): string => {
    if (value === '') return style.dim(fit('–', widths[k], COLUMNS[k].align));
    const fitted = fit(value, widths[k], COLUMNS[k].align);
    return colour ? colour(fitted) : fitted;
  };
  return {
    header: () => line(SIZED.map((k) => style.bold(fit(COLUMNS[k].head, widths[k], COLUMNS[k].align))), style.bold('comments')),
    row(row) {
      const v = listValues(row);
      // The id is never cut: a row must say which event it is.
      const id = row.kind === 'invalid' && row.id === null ? style.dim(fit(`(${terminalSafe(row.where)})`, widths.id, 'left', false)) : fit(v.id, widths.id, 'left', false);
      if (row.kind === 'not-found') return line([id], style.dim(v.error));
      if (row.kind === 'invalid') return line([id], `${style.review('invalid')} ${v.error}`);
      if (row.kind === 'error') return line([id], `${style.decline('error')} ${v.error}`);
      const summary = isFields(row.summary) ? row.summary : {};
      const amount = summary.amount === null || summary.amount === undefined ? '' : money(summary.amount, summary.currency, PLAIN);
      return line(
        [
          id,
          cell(v.state, 'state'),
          cell(v.decision, 'decision', (s) => style.action(v.decision, s)),
          cell(v.score, 'score'),
          cell(amount, 'amount'),
          cell(v.email, 'email'),
          cell(v.eventDate, 'eventDate'),
        ],
        v.comments === '' ? style.dim('–') : v.comments,
      );
    },
  };
}
