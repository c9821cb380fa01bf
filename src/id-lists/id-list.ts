import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { Parser, type CsvError } from 'csv-parse';
import { parse as parseCsv } from 'csv-parse/sync';
import type { CliContext } from '../process/cli-context.js';
import { UsageError } from '../errors/cli-error.js';
import { fileFailure } from '../files/file-errors.js';
import { lineKind } from '../results-file/read-results.js';
import { checkIdArguments, isEventId, splitIds } from './id-arguments.js';
import { sym } from '../render/symbols.js';
import { terminalSafe } from '../render/terminal-text.js';

/*
 * The ids a command works through (`show ID…`, `review`): ids given as arguments, then those of
 * `--from FILE` or `--from -` (stdin). The file is recognised from its content:
 *   - a results file written by `submit --out` (JSON Lines, each a line's result): its ids,
 *     all of them or only those whose decision the caller asked for;
 *   - CSV (a spreadsheet's export, `show --csv`): a file named *.csv, or one whose first line is
 *     a header naming an id column (`id`, `eventId`, `event_id`, `Event ID`, in any case). The
 *     ids are that column's; a header without one (its first cell cannot be an id: `Order no`)
 *     gives the first column's, and so does a file without a header. Parsed by csv-parse
 *     (quotes, a cell across lines, a byte order mark, CRLF); a row of empty cells is layout;
 *   - otherwise a list of ids, one or more per line (pasted lists are split: id-arguments.ts);
 *     blank lines and `#` comments are skipped.
 * Streamed a line at a time, so a list of a million ids costs no more memory than ten.
 */

/** Where an entry came from, for messages: `argument 2`, `ids.txt:14`, `stdin:3`. */
export interface IdListEntry {
  where: string;
  /** The id, or null when the line names none. */
  id: string | null;
  /** Why the line gives no id (a results line that is not JSON, or has no id); null when id is set. */
  problem: string | null;
  /** The same as a code for machines (`show --json`'s errorCodes), with the problem; absent when id is set. */
  problemCode?: IdProblemCode;
  /** The score a results line recorded (its `totalRiskScore`), so `review --sort score` need not read the event; absent otherwise. */
  score?: number;
}

export type IdProblemCode = 'NOT_JSON' | 'NOT_AN_OBJECT' | 'NO_ID';

/**
 * Which lines of a results file to take:
 * - `every`: every line (a line without an id is an entry with a problem, so it is counted);
 * - `review`: the lines decided `REVIEW`;
 * - `decided`: every decided line.
 * Lines left out are skipped silently: they were not asked for. A line that cannot be read (not
 * JSON, not an object) is always an entry with its problem, so that it is never dropped unseen.
 */
export type ResultsSelection = 'every' | 'review' | 'decided';

export interface IdListOptions {
  args: readonly string[];
  /** A path, `-` for stdin, or undefined for arguments only. */
  from?: string | undefined;
  results: ResultsSelection;
  /**
   * Stops the reading: the list ends at once (after what was already read), even while waiting
   * for a line that may never come (ids trickling in on stdin), and stdin is no longer read.
   */
  signal?: AbortSignal;
}

export type IdListFormat = 'ids' | 'results' | 'csv';

/** The ids of the arguments, then of `--from`, in order. Closes the file when the caller stops early. */
export async function* readIdList(
  options: IdListOptions,
  context: Pick<CliContext, 'stdin'>,
): AsyncGenerator<IdListEntry> {
  checkIdArguments(options.args);
  for (const [i, arg] of options.args.entries()) {
    for (const id of splitIds(arg)) yield { where: `argument ${i + 1}`, id, problem: null };
  }
  if (options.from === undefined) return;
  const source = options.from;
  const name = source === '-' ? 'stdin' : source;
  let stream: NodeJS.ReadableStream;
  let close = async () => {};
  if (source === '-') {
    if (context.stdin.isTTY)
      throw new UsageError(
        'reading ids from stdin, but stdin is a terminal',
        `pipe the ids in (${sym.ellipsis} | fraudctl show --from -) or give a file`,
      );
    stream = context.stdin;
  } else {
    const handle = await open(source, 'r').catch((e: NodeJS.ErrnoException) => {
      throw openFailure(source, e);
    });
    try {
      if ((await handle.stat()).isDirectory()) throw openFailure(source, { code: 'EISDIR' } as NodeJS.ErrnoException);
    } catch (e) {
      await handle.close();
      throw e instanceof UsageError ? e : openFailure(source, e as NodeJS.ErrnoException);
    }
    // The handle is ours to close (never left to the garbage collector).
    stream = handle.createReadStream({ autoClose: false });
    close = () => handle.close();
  }
  // readline splits lines; a list of ids has short ones, so its unbounded line length is no worry here.
  const lines = createInterface({
    input: stream,
    crlfDelay: Infinity,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const read = lines[Symbol.asyncIterator]();
  let n = 0;
  const nextLine = async (): Promise<string | null> => {
    const next = await read.next();
    if (next.done) return null;
    n++;
    return n === 1 ? next.value.replace(/^\uFEFF/, '') : next.value;
  };
  let format: IdListFormat | null = null;
  try {
    for (let line = await nextLine(); line !== null; line = await nextLine()) {
      const text = line.trim();
      if (text === '' || (format === null && text.startsWith('#'))) continue;
      format ??= layoutOf(text, source);
      const where = `${name}:${n}`;
      if (format === 'csv') {
        yield* csvEntries(name, n, line, nextLine);
        return;
      }
      if (format === 'ids') {
        for (const id of splitIds(text, true)) yield { where, id, problem: null };
        continue;
      }
      const entry = resultsEntry(text, where, options.results);
      if (entry) yield entry;
    }
  } finally {
    lines.close();
    await close();
  }
}

/** How the file is laid out, from its first line that is not blank or a comment. */
function layoutOf(first: string, source: string): IdListFormat {
  if (first.startsWith('{')) return 'results';
  if (/\.csv$/i.test(source)) return 'csv';
  let cells: string[];
  try {
    cells = (parseCsv(first, CSV_OPTIONS) as string[][])[0] ?? [];
  } catch {
    return 'ids';
  }
  return cells.some(namesIdColumn) ? 'csv' : 'ids';
}

const CSV_OPTIONS = {
  relax_quotes: true,
  relax_column_count: true,
  skip_empty_lines: true,
  trim: true,
  comment: '#',
  comment_no_infix: true,
} as const;

/** A header cell that names the id column: `id`, `eventId`, `event_id`, `Event ID`, in any case. */
const namesIdColumn = (cell: string) => ['id', 'eventid'].includes(cell.toLowerCase().replace(/[\s_.-]/g, ''));

/** A record as csv-parse gives it with `info` and `raw`: its cells, its text, and the line it ends on. */
interface CsvRow {
  record: string[];
  raw: string;
  info: { lines: number };
}

/**
 * The ids of a CSV file's id column, from its line `firstNo` (`first`) on; the lines before it
 * were blank or comments. The parser is given blank lines in their place, so that its line
 * numbers (for rows and errors) are the file's.
 */
async function* csvEntries(
  name: string,
  firstNo: number,
  first: string,
  nextLine: () => Promise<string | null>,
): AsyncGenerator<IdListEntry> {
  async function* text(): AsyncGenerator<string> {
    yield `${'\n'.repeat(firstNo - 1)}${first}\n`;
    for (let line = await nextLine(); line !== null; line = await nextLine()) yield `${line}\n`;
  }
  const parser = Readable.from(text()).pipe(new Parser({ ...CSV_OPTIONS, info: true, raw: true }));
  let column: number | null = null;
  try {
    for await (const row of parser as AsyncIterable<CsvRow>) {
      const cells = row.record;
      // Where the row starts: the line it ends on, less the line breaks within it (blank lines before it left out).
      const where = `${name}:${row.info.lines - (row.raw.replace(/^[\r\n]+/, '').match(/\n/g)?.length ?? 0) + 1}`;
      if (column === null) {
        const named = cells.findIndex(namesIdColumn);
        column = named >= 0 ? named : 0;
        // A header: it names the id column, or its first cell cannot be an id (`Order no`).
        if (named >= 0 || !isEventId(cells[0] ?? '')) continue;
      }
      if (cells.every((cell) => cell === '')) continue;
      const id = cells[column] ?? '';
      if (id !== '') yield { where, id, problem: null };
      else yield { where, id: null, problem: `no id (column ${column + 1} is empty)`, problemCode: 'NO_ID' };
    }
  } catch (error) {
    if ((error as CsvError).code === undefined) throw error;
    throw new UsageError(
      `${name} cannot be read as CSV: ${terminalSafe((error as Error).message)}`,
      'a quote opens a cell that runs to the next quote: check the quotes on that line',
    );
  } finally {
    parser.destroy();
  }
}

/** One line of a results file as an entry, or null when the selection leaves it out. */
function resultsEntry(text: string, where: string, selection: ResultsSelection): IdListEntry | null {
  const line = lineKind(text);
  if (line.kind === 'not-json')
    return {
      where,
      id: null,
      problem: 'not JSON (a results file holds one JSON object per line)',
      problemCode: 'NOT_JSON',
    };
  if (line.kind === 'not-an-object')
    return { where, id: null, problem: 'not a JSON object', problemCode: 'NOT_AN_OBJECT' };
  // The run's own records (its header, first; a `sending` record before a send) name no event.
  if (line.kind === 'run-record') return null;
  const record = line.value as {
    id?: unknown;
    outcome?: unknown;
    actionType?: unknown;
    totalRiskScore?: unknown;
  };
  const decided = record.outcome === undefined ? typeof record.actionType === 'string' : record.outcome === 'DECIDED';
  if (selection === 'review' && !(decided && record.actionType === 'REVIEW')) return null;
  if (selection === 'decided' && !decided) return null;
  if (typeof record.id !== 'string' || record.id === '')
    return { where, id: null, problem: 'no id (an event that was never stored has none)', problemCode: 'NO_ID' };
  const score =
    typeof record.totalRiskScore === 'number' && Number.isFinite(record.totalRiskScore)
      ? { score: record.totalRiskScore }
      : {};
  return { where, id: record.id, problem: null, ...score };
}

function openFailure(path: string, e: NodeJS.ErrnoException): UsageError {
  const { message, hint } = fileFailure(path, e, 'id list');
  return new UsageError(message, hint);
}
