import { setMaxListeners } from 'node:events';
import { rmSync } from 'node:fs';
import { Semaphore } from 'async-mutex';
import type { ApiClient, ApiClientOptions } from '../api/api-client.js';
import type { CliContext } from '../process/cli-context.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { FileWriteError } from '../files/append-line.js';
import { terminalSafe } from '../render/terminal-text.js';
import { BatchControl } from './batch-control.js';
import { createProgress, type Progress, type ProgressView } from './batch-progress.js';
import { count } from '../render/counts.js';
import { drainedOrClosed } from '../render/stream-pace.js';
import { markClosed } from '../results-file/header.js';
import { LineFile } from '../results-file/line-file.js';
import {
  MAX_LINES_IN_PROGRESS,
  prepareResume,
  type PriorRun,
  type RecordedResult,
  type ResultReader,
} from '../results-file/prior-run.js';
import { sendingText } from '../results-file/sending.js';
import { capYoungGeneration } from './young-generation.js';

/*
 * The pool for items with results: it takes the items of a job in input order while one of
 * `concurrency` request slots is free, runs each, and writes its one result line at once. Two
 * jobs run on it: submitting events (src/submit-batch/) and changing states
 * (src/state-changes/). The pool owns what every such run needs alike:
 *
 * - reading is pulled by the pool, so at most MAX_LINES_IN_PROGRESS items are held however
 *   large the input; an item waiting to retry frees its request slot for the next one
 *   (batch-control.ts, through the API client's RequestControl);
 * - the results file, and --resume: items the earlier run settled are skipped, after checking
 *   that the input is the one the file was written for;
 * - the stops: a first Ctrl-C (no new item is taken, items in flight finish), a second one
 *   (requests in flight are aborted and their items left unrecorded: resume checks them before
 *   acting again), --max-errors, a spent retry budget, a refused key, a URL that is not the
 *   service, a proxy that fails, unreadable input, stdout closed while results go there, a file
 *   that cannot be written (the results file, --rejects, an audit --log: a full disk, a file
 *   deleted under the run): the file is kept whole (src/files/append-line.ts), nothing more is
 *   written to the results file, items in flight finish unrecorded (--resume checks them, as
 *   after a crash), and the error names the file, the cause and what to do;
 * - memory that stays flat over a long run: V8's young generation is capped (young-generation.ts).
 *
 * The job owns what an item is: how to start it (synchronously up to its first request, so a
 * --max-errors stop is exact for items settled without one), how to name its id and where it
 * is, its result line and how to read one back, its counts, and its summary.
 */

export type StopReason =
  | 'interrupted'
  | 'aborted'
  | 'max-errors'
  | 'retry-budget'
  | 'auth'
  | 'input'
  | 'wrong-input'
  | 'output-closed'
  | 'not-the-service'
  | 'proxy'
  | 'write-failed';

/** Where an item starts in the input: what --resume keys on (a list of ids: its place in the list, column 1). */
export interface ItemPosition {
  line: number;
  column: number;
}

/** An item's result, as its job settled it. */
export interface Settled<R> {
  result: R;
  /** Why the item did not get what was asked, in words, for the summary. */
  reason?: string;
  /** A failure that stops the whole pool: the key was refused, the URL is not the service, the proxy failed, or a file of the job's (an audit --log) could not be written. */
  fatal?: { error: CliError; stop: 'auth' | 'not-the-service' | 'proxy' | 'write-failed' };
}

/** The counts a job keeps that the pool reads and moves: errors (for --max-errors), items resume skipped. */
export interface PoolStats extends ProgressView {
  readonly errors: number;
  skipped: number;
  /** The clock starts when the first item is taken. */
  start(): void;
}

export interface PoolJob<I extends ItemPosition, R> {
  /** What an item is called in counts: `events`, `ids`. */
  readonly unit: string;
  /** What a first Ctrl-C lets finish, in words: `the lines in flight`. */
  readonly inFlight: string;
  readonly stats: PoolStats;
  /** The items in input order; the pool pulls them one at a time. */
  readonly items: AsyncIterable<I>;
  /** Counts the items before the run, for the progress bar's total (null: not known). */
  countItems(): Promise<number | null>;
  /**
   * Stops reading the input and closes it, also while a read waits for input that may never come
   * (ids trickling in on stdin), so that the pending read ends: called at the run's first stop
   * (a Ctrl-C, a refused key, --max-errors, …) and again at its end, whatever happened.
   */
  closeInput(): void;
  /** Reads one line of the job's results file back (--resume). */
  readResult: ResultReader;
  formatResult(result: R): string;
  /** The id an item names, read as its result records it: resume compares the two. */
  idOf(item: I): string | null;
  /** The item's place in words, for a results file of another input: `line 3`, `id 3`. */
  where(item: I): string;
  /**
   * Starts an item. `mayHaveRunBefore`: the run that wrote the results file may have acted on it
   * without recording it. A result returned at once (no request needed) is recorded before the
   * pool takes another item; a promise resolving to undefined means the pool was aborted mid-item
   * (or `sending` failed), which stays unrecorded. `sending`: called just before a request whose
   * effect nothing can check afterwards (an event without an id): it records that the item may
   * be sent from now on, so that a resume after a crash knows; false when that could not be
   * written (the run is stopping): the request must not go.
   */
  start(item: I, mayHaveRunBefore: boolean, sending: () => boolean): Settled<R> | Promise<Settled<R> | undefined>;
  /** An item was settled, its result about to be written: the job counts it and keeps it in its own files (submit's --rejects). */
  settled(item: I, settled: Settled<R>): void;
  /** When results go to stdout without a results file: an item's line there (absent: nothing is printed per item). */
  stdoutLine?(result: R): string;
  /** Opens the job's own files once the results file is open (closed by closeFiles); may throw a UsageError. `prior`: what --resume found. */
  openFiles?(resume: boolean, prior: PriorRun | null): Promise<void> | void;
  closeFiles?(): void;
}

export interface PoolOptions {
  maxErrors: number | null;
  /**
   * The results file, or null (results on stdout, or none). The job holds its lock
   * (files/exclusive-lock.ts) for the whole run: taken before it reads the file's header, starts
   * a client, or plans, so the pool never meets a second writer.
   */
  out: string | null;
  resume: boolean;
  quiet: boolean;
  /** The results file's first line (src/results-file/header.ts headerText): which run wrote it, for a later --resume. */
  header?: string;
}

/** The client and the controls of one or more pool runs (a bulk change plans, then changes, with one client). */
export interface PoolRuntime {
  client: ApiClient;
  control: BatchControl;
  /** Aborted at the second Ctrl-C: every request in flight ends. */
  abort: AbortController;
}

/** What a run came to, for the job's summary and exit. */
export interface PoolRun {
  stopped: StopReason | null;
  /** The failure that stopped the run (a refused key, not the service), if one did. */
  fatal: CliError | undefined;
  /** The input could not be read to its end, or belongs to another results file. */
  inputError: unknown;
  /** Results meant for stdout that could not be written (its reader went away). */
  unwritten: number;
  retries: number;
  throttled: number;
  /** --resume found a results file to continue. */
  resumed: boolean;
}

/** The client's options a pool sets: its connections, the pacing and retry slots, the abort at a second Ctrl-C. */
export type PoolClientOptions = Pick<ApiClientOptions, 'connections' | 'control' | 'signal'>;

/** Where the pool's client comes from: made once, with the pool's options (a room's deps give the Session's). */
export interface PoolClientSource {
  client(options: PoolClientOptions): Promise<ApiClient>;
}

/** What the pool takes of the process: the streams (progress, results on stdout) and the signal hooks. */
export type PoolStreams = Pick<CliContext, 'stdout' | 'stderr' | 'waitForShutdown' | 'onStdoutClosed'>;

export async function poolRuntime(
  source: PoolClientSource,
  options: { concurrency: number; rate: number | null },
): Promise<PoolRuntime> {
  const control = new BatchControl(options.rate, options.concurrency);
  const abort = new AbortController();
  // Every item waiting to retry listens for the abort (second Ctrl-C); requests in flight end
  // through the client, which listens once (api-client.ts).
  setMaxListeners(MAX_LINES_IN_PROGRESS + 16, abort.signal);
  const client = await source.client({ connections: options.concurrency, control, signal: abort.signal });
  return { client, control, abort };
}

/** Why the run stopped taking items, and what goes with it. The first reason stays, but an abort overrides an interrupt. */
class Stops {
  reason: StopReason | null = null;
  fatal: CliError | undefined;
  inputError: unknown;
  /** The first file that could not be written. */
  writeFailure: FileWriteError | undefined;
  /** A bug in an item's work: rethrown once the items in flight are done. */
  crash: { error: unknown } | undefined;

  /** `onStop`: the input stops being read at the first stop, so that a read waiting for input that may never come ends now. */
  constructor(private readonly onStop: () => void) {}

  stop(reason: StopReason): void {
    if (this.reason === null) {
      this.reason = reason;
      this.onStop();
    }
  }
}

/**
 * Results on stdout: a reader that goes away (`| head`) stops the run like a Ctrl-C would: no
 * new items are taken, those in flight finish, and their results are counted as unwritten.
 */
class StdoutResults {
  closed = false;
  unwritten = 0;
  private readonly release: () => void;
  /** The one wait for stdout to drain that every result written meanwhile shares: one set of listeners, however many wait. */
  private draining: Promise<void> | undefined;

  constructor(
    private readonly context: Pick<PoolStreams, 'stdout' | 'onStdoutClosed'>,
    active: boolean,
    onClosed: () => void,
  ) {
    this.release = active
      ? context.onStdoutClosed(() => {
          this.closed = true;
          onClosed();
        })
      : () => {};
  }

  async write(line: string, progress: Progress): Promise<void> {
    if (this.closed) {
      this.unwritten++;
      return;
    }
    const stdout = this.context.stdout;
    let written = true;
    // On a terminal the progress bar shares the screen: the line goes above it.
    progress.above(() => {
      written = stdout.write(`${line}\n`, (error) => {
        if (error) this.unwritten++;
      });
    });
    if (!written) await (this.draining ??= drainedOrClosed(stdout).finally(() => (this.draining = undefined)));
  }

  done(): void {
    this.release();
  }
}

/** The results file and the earlier run it continues. Until the run takes over, the input is this function's to close when anything fails. */
async function openResults<I extends ItemPosition, R>(job: PoolJob<I, R>, options: PoolOptions) {
  try {
    const prior: PriorRun | null =
      options.resume && options.out
        ? await prepareResume(options.out, job.readResult, options.header ?? null, job.unit === 'ids' ? 'id' : 'line')
        : null;
    const results = options.out ? LineFile.open(options.out, options.resume ? 'append' : 'create', '--out') : null;
    try {
      if (results && !options.resume && options.header !== undefined) results.write(options.header);
      await job.openFiles?.(options.resume, prior);
    } catch (error) {
      results?.close();
      if (!options.resume && options.out) rmSync(options.out, { force: true });
      throw error;
    }
    return { prior, results };
  } catch (error) {
    job.closeInput();
    throw error;
  }
}

/**
 * The first Ctrl-C stops the taking of items (those in flight finish); a second aborts the
 * requests in flight. Returns the function that says the run is over (a signal after it is not
 * the run's).
 */
function stopsOnShutdown(
  context: Pick<PoolStreams, 'waitForShutdown'>,
  stops: Stops,
  progress: Progress,
  abort: AbortController,
  inFlight: string,
): () => void {
  let finished = false;
  void (async () => {
    await context.waitForShutdown();
    if (finished) return;
    // Listening for the second before saying to press it: a second signal that came between the
    // words and the listener would meet none, and end the process where it stands.
    const second = context.waitForShutdown();
    stops.stop('interrupted');
    progress.note(`stopping: finishing ${inFlight}; press Ctrl-C again to abort them`);
    await second;
    if (finished) return;
    stops.reason = 'aborted';
    abort.abort();
  })();
  return () => {
    finished = true;
  };
}

/**
 * The items one at a time and in input order (resume relies on that order), or null once the
 * input is done or the run stopping: an item that came while the run was stopping is not taken,
 * and a read ended by the stop itself (the first Ctrl-C) is not a failure of the input.
 */
function itemTaker<I>(items: AsyncIterable<I>, stops: Stops): () => Promise<I | null> {
  const iterator = items[Symbol.asyncIterator]();
  let queue: Promise<unknown> = Promise.resolve();
  return () => {
    const next = queue.then(async () => {
      if (stops.reason) return null;
      try {
        const r = await iterator.next();
        return r.done || stops.reason ? null : r.value;
      } catch (error) {
        if (stops.reason) return null;
        stops.inputError ??= error;
        stops.stop('input');
        return null;
      }
    });
    queue = next;
    return next;
  };
}

/** Writes each settled item's result (the job's own files first, then the results file) and counts what was recorded. */
class ResultRecorder<I extends ItemPosition, R> {
  /** Items taken, and items whose result is in the results file (or skipped as settled before). */
  taken = 0;
  recorded = 0;
  /** Items settled once the results file could not be written: in no file, left for --resume to check. */
  unrecorded = 0;
  private resultsWritable = true;

  constructor(
    private readonly job: PoolJob<I, R>,
    private readonly results: LineFile | null,
    private readonly stops: Stops,
    private readonly control: BatchControl,
    private readonly progress: Progress,
    private readonly maxErrors: number | null,
    private readonly printing: boolean,
  ) {}

  writeFailed(error: FileWriteError): void {
    this.stops.writeFailure ??= error;
    this.stops.stop('write-failed');
  }

  /** Records that `item` may be sent from now on (PoolJob.start's `sending`); false when that could not be written. */
  sending(item: I): boolean {
    if (!this.results) return true;
    if (!this.resultsWritable) return false;
    try {
      this.results.write(sendingText(item.line, item.column));
      return true;
    } catch (error) {
      if (!(error instanceof FileWriteError)) throw error;
      this.resultsWritable = false;
      this.writeFailed(error);
      return false;
    }
  }

  /** Writes and counts a settled item, and makes the stops it calls for; the line for stdout, if results go there. Synchronous. */
  record(item: I, settled: Settled<R>): string | null {
    const { stops, job, results } = this;
    if (settled.fatal?.error instanceof FileWriteError) this.writeFailed(settled.fatal.error);
    else if (settled.fatal) {
      stops.fatal ??= settled.fatal.error;
      stops.stop(settled.fatal.stop);
    }
    if (this.control.budget.spent) stops.stop('retry-budget');
    // The job's own files first (submit's --rejects): a crash between the two writes leaves a
    // side line without a result, which resume drops, never a result whose side line is missing.
    try {
      job.settled(item, settled);
    } catch (error) {
      if (!(error instanceof FileWriteError)) throw error;
      this.writeFailed(error);
    }
    try {
      if (results && !this.resultsWritable) throw stops.writeFailure;
      results?.write(job.formatResult(settled.result));
      this.recorded++;
    } catch (error) {
      if (!(error instanceof FileWriteError)) throw error;
      this.resultsWritable = false;
      this.writeFailed(error);
      this.unrecorded++;
      this.progress.tick();
      return null;
    }
    if (this.maxErrors !== null && job.stats.errors >= this.maxErrors) stops.stop('max-errors');
    this.progress.tick();
    return this.printing ? job.stdoutLine!(settled.result) : null;
  }
}

/** The results a resumed file holds for items the input, read to its end, did not reach: past its end, or another input's. */
async function strayResults(prior: PriorRun, unit: string, out: string): Promise<UsageError | undefined> {
  if (prior.reached >= prior.settledCount) return undefined;
  const stray = prior.settledCount - prior.reached;
  const first = await prior.strayLine();
  return new UsageError(
    `${out} holds ${count(stray)} ${stray === 1 ? 'result' : 'results'} for ${unit} the input does not have${first === undefined ? '' : ` (the first at its line ${first})`}: past the input's end, the file was edited or written for a longer input`,
    `remove ${stray === 1 ? 'that line' : 'those lines'} from ${out}: each ${unit === 'events' ? 'event' : 'id'} of the input has one result, by its "${unit === 'events' ? 'line' : 'item'}"`,
  );
}

export async function runPool<I extends ItemPosition, R>(
  context: PoolStreams,
  runtime: PoolRuntime,
  job: PoolJob<I, R>,
  options: PoolOptions,
): Promise<PoolRun> {
  const { control, abort } = runtime;
  const { stats } = job;
  const stops = new Stops(() => job.closeInput());
  // A run over many items allocates for every request: keep V8's young generation from growing with it.
  capYoungGeneration();
  const { prior, results } = await openResults(job, options);

  // Counting the input first (a fast second read of a file) gives the bar its total and an ETA.
  const total = options.quiet ? null : await job.countItems();
  const progressOptions = { quiet: options.quiet, total, unit: job.unit, resumed: prior !== null };
  const progress: Progress = createProgress(stats, context.stderr, progressOptions);
  const finished = stopsOnShutdown(context, stops, progress, abort, job.inFlight);

  const printing = !results && job.stdoutLine !== undefined;
  const stdout = new StdoutResults(context, printing, () => stops.stop('output-closed'));
  const take = itemTaker(job.items, stops);
  const recorder = new ResultRecorder(job, results, stops, control, progress, options.maxErrors, printing);

  const runItem = async (item: I): Promise<void> => {
    recorder.taken++;
    if (prior?.isSettled(item.line, item.column)) {
      recorder.recorded++;
      prior.reached++;
      prior.reachedPositions.add(item.line, item.column);
      const mismatch = otherInput(job, item, prior.recordedResult(item.line, item.column), options.out!);
      if (mismatch) {
        stops.inputError ??= mismatch;
        stops.stop('wrong-input');
        return;
      }
      stats.skipped++;
      return;
    }
    const mayHaveRunBefore = prior !== null && prior.maySentBefore(item.line, item.column, job.idOf(item) === null);
    const started = job.start(item, mayHaveRunBefore, () => recorder.sending(item));
    // Settled without a request: recorded before the pool takes another item.
    const settled = started instanceof Promise ? await started : started;
    if (!settled) return;
    const line = recorder.record(item, settled);
    if (line !== null) await stdout.write(line, progress);
  };

  stats.start();
  try {
    await runInSlots(control, stops, take, runItem);
    if (stops.crash) throw stops.crash.error;
    // Every item the run took has its result: a later --resume need not fear one sent unrecorded.
    if (results && options.header !== undefined && recorder.taken === recorder.recorded)
      markClosed(results.path, options.header);
    // The input was read to its end, and results remain that none of its items reached: lines past its end (or for another input).
    if (prior && stops.reason === null && !stops.inputError)
      stops.inputError = await strayResults(prior, job.unit, options.out!);
  } finally {
    finished();
    stdout.done();
    progress.stop();
    results?.close();
    job.closeFiles?.();
    prior?.close();
    job.closeInput();
  }
  return {
    stopped: stops.reason,
    fatal: stops.writeFailure ? writeStop(stops.writeFailure, job.unit, recorder.unrecorded, options.out) : stops.fatal,
    inputError: stops.inputError,
    unwritten: stdout.unwritten,
    retries: control.budget.granted,
    throttled: control.throttled,
    resumed: prior !== null,
  };
}

/**
 * Runs the items, each when one of the --concurrency request slots is free, holding it until its
 * result is written, except while it waits to retry (batch-control.ts); returns when every item
 * taken is done. Items taken and not yet recorded — sending or waiting — are at most
 * MAX_LINES_IN_PROGRESS: memory stays flat, and --resume knows how far past the last recorded
 * item a dead run may have gone. A bug in an item's work stops the taking (stops.crash).
 */
async function runInSlots<I>(
  control: BatchControl,
  stops: Stops,
  take: () => Promise<I | null>,
  runItem: (item: I) => Promise<void>,
): Promise<void> {
  const inProgress = new Semaphore(MAX_LINES_IN_PROGRESS);
  const running = new Set<Promise<void>>();
  for (;;) {
    await inProgress.acquire();
    await control.takeSlot();
    const item = stops.crash ? null : await take();
    if (!item) {
      control.releaseSlot();
      inProgress.release();
      break;
    }
    const itemDone: Promise<void> = runItem(item)
      .catch((error: unknown) => {
        stops.crash ??= { error };
      })
      .finally(() => {
        control.releaseSlot();
        inProgress.release();
        running.delete(itemDone);
      });
    running.add(itemDone);
  }
  while (running.size > 0) await Promise.all(running);
}

/**
 * The error that ends a run stopped by a file it could not write: the file and the cause (its
 * message), then what to do. The results file is whole (a torn line is cut back), so once the
 * disk has room --resume continues, checking the items that were settled unrecorded.
 */
function writeStop(error: FileWriteError, unit: string, unrecorded: number, out: string | null): CliError {
  const left =
    unrecorded > 0
      ? `: the results of ${count(unrecorded)} ${unit} in flight are in no file, and it checks those before acting on them again`
      : '';
  // A file that says what to do about it (an action log that is not intact, a FIFO's reader gone) is not a full disk.
  if (error.hint !== undefined && error.path !== out) return new CliError(error.message, ExitCode.FAILURE, error.hint);
  if (out === null)
    return new CliError(
      error.message,
      ExitCode.FAILURE,
      error.deleted ? undefined : 'free space on its disk and run again',
    );
  if (error.deleted && !error.kept) {
    return new CliError(
      error.message,
      ExitCode.FAILURE,
      `without ${out} nothing tells which ${unit} were done: check them before running again (a new run without --resume does every one again)`,
    );
  }
  const first = error.deleted
    ? 'keep it where nothing removes it (a tmp cleaner)'
    : error.path === out
      ? 'free space on its disk'
      : `free space on the disk of ${error.path}`;
  return new CliError(error.message, ExitCode.FAILURE, `${first}, then run the same command with --resume${left}`);
}

/**
 * A resumed item must be the item the results file describes: a results file resumed with
 * another input would skip and redo the wrong items. Every settled item's id is compared (read
 * back from the results file as the input reaches it), so an input that only shares its first
 * items is caught.
 */
function otherInput<I extends ItemPosition, R>(
  job: PoolJob<I, R>,
  item: I,
  recorded: RecordedResult | undefined,
  out: string,
): UsageError | undefined {
  const id = job.idOf(item);
  const recordedId = recorded?.id ?? null;
  // An id the service assigned is not the input's: such a result names no id of the input's.
  if (id === recordedId || (id === null && recorded?.orNoId === true)) return undefined;
  const show = (v: string | null) => (v === null ? 'without an id' : `event ${terminalSafe(JSON.stringify(v))}`);
  return new UsageError(
    `${out} does not belong to this input: its ${job.where(item)} is ${show(recordedId)}, the input's is ${id === null ? 'without an id' : terminalSafe(JSON.stringify(id))}`,
    'resume with the same input the results file was written for, or give a new --out without --resume',
  );
}
