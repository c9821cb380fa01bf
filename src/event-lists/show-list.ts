import { setMaxListeners } from 'node:events';
import { pMapIterable } from 'p-map';
import { CliError, ExitCode } from '../errors/cli-error.js';
import { readIdList, type IdListEntry } from '../id-lists/id-list.js';
import { abortOnShutdown } from '../process/cli-context.js';
import type { CliContext } from '../process/cli-context.js';
import type { ApiClient } from '../api/api-client.js';
import type { Output } from '../render/output.js';
import { fetchRow, type EventRow } from './event-row.js';
import { count } from '../render/counts.js';
import { drainedOrClosed } from '../render/stream-pace.js';
import { ListCounts } from './list-counts.js';
import { createProgressLine } from './progress-line.js';

/*
 * `show` for many ids: a row per id, in input order, as a compact table, JSON Lines or CSV.
 *
 * Ids stream from the id reader into p-map's pMapIterable, which runs `concurrency` fetches at
 * once through the one API client (a pool of as many connections, the retry policy of any
 * `show`) and hands rows back in input order. A row is written as soon as every earlier one
 * is: at most 2 × concurrency ids are between the reader and stdout (in flight or waiting for
 * an earlier one; the table first reads a screenful of ids ahead, for its id column's width,
 * or fewer when they come slowly), and a slow stdout holds the fetching back, so memory stays
 * flat however long the list.
 *
 * Stops early for a refused key or a URL that is not the service (every id would fail the
 * same way), for Ctrl-C (requests in flight are abandoned: a GET is safe to drop; no more ids
 * are read, even while waiting for one on stdin; rows are written up to the first one not
 * finished, exit 130), and for a closed stdout (`| head`).
 */

export type ListFormat = 'table' | 'json' | 'csv';

export interface ShowListOptions {
  ids: readonly string[];
  /** `--from`: a file, `-` for stdin, or undefined. */
  from: string | undefined;
  format: ListFormat;
  concurrency: number;
}

/** What the list takes from outside (src/commands/show/deps.ts builds it for a run). */
export interface ShowListDeps {
  /** The process's streams: stdin for --from -, stdout's back-pressure and height, stderr's progress line. */
  streams: Pick<CliContext, 'stdin' | 'stdout' | 'stderr'>;
  /** The table's style and width (the terminal's; null off one). */
  output: Pick<Output, 'style' | 'columns'>;
  /** The client: a pool of `connections`, every request ended by `signal` (Ctrl-C). */
  client(options: {
    connections: number;
    signal: AbortSignal;
  }): Promise<Pick<ApiClient, 'getEvent' | 'getRiskAssessment'>>;
  waitForShutdown(): Promise<NodeJS.Signals>;
}

interface RowWriter {
  /** The text of one row, newline included; the header goes before the first. */
  row(row: EventRow): string;
  /** The header alone, for a list without rows ('' when there is none to write). */
  header(): string;
}

async function rowWriter(
  output: ShowListDeps['output'],
  format: ListFormat,
  first: readonly IdListEntry[],
): Promise<RowWriter> {
  if (format === 'json') {
    const { listJsonLine } = await import('./event-list-json.js');
    return { header: () => '', row: (row) => `${listJsonLine(row)}\n` };
  }
  if (format === 'csv') {
    const { csvHeader, csvRow } = await import('./event-list-csv.js');
    return { header: csvHeader, row: csvRow };
  }
  const { createListTable, idText } = await import('./event-list.js');
  const table = createListTable(
    output.style,
    output.columns,
    first.map((entry) => idText(entry.id, entry.where)),
  );
  return { header: () => `${table.header()}\n`, row: (row) => `${table.row(row)}\n` };
}

/** The ids read ahead for the table's id column when stdout is not a terminal (which has its height). */
const SCREENFUL = 24;

/**
 * How long the read-ahead waits for more ids: it ends when no new id has come for QUIET_MS, and
 * at the latest LONGEST_MS after the first id, even with a screenful not yet read. Ids from a
 * file, from arguments or from a program that writes them as fast as it can come in bursts (a
 * screenful takes a millisecond or less, and the gaps between a pipe's writes are milliseconds
 * even with the machine busy), so the whole screenful sizes the id column as before; only a
 * producer stalled for longer sizes it from fewer ids, and a longer id after them then follows
 * the rules for one (its own line on a terminal, a wider column off one). Ids that trickle in
 * (`tail -f`, a script that finds one every few seconds) would otherwise hold back rows that
 * could be shown: 250 ms is a pause a person hardly notices, and the 1 s bound (where attention
 * starts to wander) caps the wait for ids that come steadily but a little faster than one per
 * 250 ms. Before the first id there is nothing to show, so nothing is timed.
 */
const QUIET_MS = 250;
const LONGEST_MS = 1000;

/**
 * The first items of `source`, read ahead (at most `n`, and only while they keep coming: see
 * QUIET_MS), and all of its items (those first, then the rest, from the same iterator: nothing
 * read twice; an item still awaited when the read-ahead ended comes next). Stopping early closes
 * `source` (its file).
 */
async function readAhead<T>(source: AsyncGenerator<T>, n: number): Promise<{ first: T[]; all: AsyncIterable<T> }> {
  const first: T[] = [];
  /** The read still under way when the read-ahead stopped waiting for it. */
  let pending: Promise<IteratorResult<T>> | undefined;
  let deadline = Infinity;
  try {
    while (first.length < n) {
      const read = source.next();
      const next =
        first.length === 0 ? await read : await quietOrNext(read, Math.min(QUIET_MS, deadline - performance.now()));
      if (next === null) {
        pending = read;
        // Awaited by all() when the rows are read; a failure until then is not left unhandled.
        pending.catch(() => {});
        break;
      }
      if (next.done) break;
      if (first.length === 0) deadline = performance.now() + LONGEST_MS;
      first.push(next.value);
    }
  } catch (error) {
    await source.return(undefined);
    throw error;
  }
  async function* all(): AsyncGenerator<T> {
    try {
      yield* first;
      if (pending) {
        const next = await pending;
        if (next.done) return;
        yield next.value;
      }
      yield* { [Symbol.asyncIterator]: () => source };
    } finally {
      await source.return(undefined);
    }
  }
  return { first, all: all() };
}

/** What `read` gives, or null when it gives nothing within `ms`. */
async function quietOrNext<T>(read: Promise<T>, ms: number): Promise<T | null> {
  if (ms <= 0) return null;
  let timer: NodeJS.Timeout | undefined;
  const quiet = new Promise<null>((resolve) => {
    timer = setTimeout(resolve, ms, null);
  });
  try {
    return await Promise.race([read, quiet]);
  } finally {
    clearTimeout(timer);
  }
}

export async function showList(deps: ShowListDeps, options: ShowListOptions): Promise<void> {
  const context = deps.streams;
  const { stdout } = context;
  const abort = new AbortController();
  // Every request in flight listens for the abort (Ctrl-C): two per id for the table and CSV.
  setMaxListeners(2 * options.concurrency + 16, abort.signal);
  const client = await deps.client({ connections: options.concurrency, signal: abort.signal });
  const counts = new ListCounts();
  const progress = createProgressLine(context.stderr, { stdoutIsTerminal: Boolean(stdout.isTTY) });

  const shutdown = abortOnShutdown(deps, abort);
  // A reader that goes away (`| head`) ends the process at once and quietly (main.ts).
  let headerWritten = false;
  const write = async (text: string) => {
    if (!stdout.write(text)) await drainedOrClosed(stdout);
  };

  // Ctrl-C stops the reading too: it ends the list even while no id comes (a slow pipe).
  const entries = readIdList(
    { args: options.ids, from: options.from, results: 'every', signal: abort.signal },
    context,
  );
  const fetchOptions = { withDecision: options.format !== 'json', aborted: () => abort.signal.aborted };
  let fatal: CliError | undefined;
  try {
    // The table's id column fits the ids of the first screenful: they are read ahead (ids only:
    // no answer is waited for), so that the rows after them line up too; ids that come slowly
    // end the read-ahead early (QUIET_MS), so the first rows are not held back.
    const ahead = await readAhead(entries, options.format === 'table' ? stdout.rows || SCREENFUL : 0);
    const writer = await rowWriter(deps.output, options.format, ahead.first);
    const rows = pMapIterable(ahead.all, (entry) => fetchRow(client, entry, fetchOptions), {
      concurrency: options.concurrency,
      backpressure: options.concurrency * 2,
    });
    for await (const row of rows) {
      if (row.kind === 'interrupted') break;
      if (row.kind === 'fatal') {
        fatal = row.error;
        abort.abort();
        break;
      }
      progress.beforeRows();
      await write(headerWritten ? writer.row(row) : writer.header() + writer.row(row));
      headerWritten = true;
      counts.add(row);
      progress.update(counts);
    }
    // The progress line goes before the count line comes.
    progress.stop();
    if (fatal) throw fatal;
    if (!headerWritten) await write(writer.header());
    // The count line goes to stderr in every format, so stdout holds only rows (grep, awk, wc -l count events).
    const summary = shutdown.interrupted
      ? `interrupted after ${count(counts.total)} ids: ${counts.text()}`
      : counts.text();
    context.stderr.write(`${summary}\n`);
  } finally {
    shutdown.done();
    progress.stop();
  }

  if (shutdown.interrupted) throw new CliError(`interrupted after ${count(counts.total)} ids`, ExitCode.INTERRUPTED);
  if (counts.worst === ExitCode.OK) return;
  const words = [
    [counts.notFound, 'not found'],
    [counts.invalid, 'invalid'],
    [counts.errors, 'failed'],
  ] as const;
  const what = words.filter(([n]) => n > 0).map(([, w]) => w);
  const failed = counts.notFound + counts.invalid + counts.errors;
  const listed = what.length > 1 ? `${what.slice(0, -1).join(', ')} or ${what.at(-1)}` : what[0];
  throw new CliError(
    `${count(failed)} of ${count(counts.total)} ids ${listed}`,
    counts.worst,
    counts.errors > 0 || counts.invalid > 0 ? 'the rows say why' : undefined,
  );
}
