import { stringify, type Cast, type Options } from 'csv-stringify/sync';
import { EVENT_ID_PATTERN } from '../contract/limits.js';
import type { EventRow } from './event-row.js';
import { listValues } from './event-list.js';
import { isFields } from '../render/json-fields.js';
import { terminalSafe } from '../render/terminal-text.js';

/*
 * The list as CSV for spreadsheets (`show --csv`): RFC 4180 (CRLF line ends, fields with a
 * comma, quote or line break quoted, quotes doubled) with a header row, by csv-stringify.
 *
 * The table's columns (the age, `2d`, as of when the row is written), except that the amount is a plain number with its currency in a column
 * of its own, so that a spreadsheet can add amounts up; `error` says `not found` or the error
 * type. Values are the table's: terminal-safe text (controls shown as escapes, so no cell holds
 * a line break or starts with a tab or CR), never cut.
 *
 * Formula injection (OWASP "CSV Injection"): a value starting with `=`, `+`, `-`, `@` (or their
 * full-width forms, a tab or a CR) is prefixed with `'`, so a spreadsheet shows it as text
 * instead of running it, and every text field is quoted. A number from the service is written as
 * a number (a negative one is not a formula). An id the contract allows (`[A-Za-z0-9._:-]`)
 * cannot hold a formula, so `-1234` stays `-1234` (a lookup by id in the sheet finds it); an id
 * that is not one (a malformed line of the input) is text like any other.
 */

// `age` last: a script that reads the columns by position keeps its columns where they were.
const HEADER = [
  'id',
  'state',
  'decision',
  'score',
  'amount',
  'currency',
  'email',
  'event date',
  'comments',
  'error',
  'age',
];

const EVENT_ID = new RegExp(EVENT_ID_PATTERN);

/** A cell with options of its own (csv-stringify merges them over the record's; its types name fewer than it takes). */
type CellWithOptions = Exclude<ReturnType<Cast<string>>, string | null>;

/** The id column (the first) as it is when it is an id. */
const idAsItIs: Cast<string> = (value, context) =>
  context.index === 0 && EVENT_ID.test(value) ? ({ value, escape_formulas: false } as CellWithOptions) : value;

const OPTIONS: Options = {
  escape_formulas: true,
  quoted_string: true,
  record_delimiter: 'windows',
  eof: true,
  cast: { string: idAsItIs },
};

/** A score or amount the service sent as a JSON number stays a number (neither quoted nor prefixed); anything else is text. */
function numberOr(raw: unknown, shown: string): string | number {
  return typeof raw === 'number' && Number.isFinite(raw) ? raw : shown;
}

export function csvHeader(): string {
  return stringify([HEADER], OPTIONS);
}

/** One row as one CSV record, CRLF included. */
export function csvRow(row: EventRow, now: number = Date.now()): string {
  const v = listValues(row, now);
  // A line of the input without an id has none to show: where it was stands in for it.
  const id = row.kind === 'invalid' && row.id === null ? `(${terminalSafe(row.where)})` : v.id;
  const summary = row.kind === 'found' && isFields(row.summary) ? row.summary : {};
  const record = [
    id,
    v.state,
    v.decision,
    numberOr(summary.totalScore, v.score),
    numberOr(summary.amount, v.amount),
    v.currency,
    v.email,
    v.eventDate,
    v.comments,
    v.error,
    v.age,
  ];
  return stringify([record], OPTIONS);
}
