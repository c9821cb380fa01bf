import { once, setMaxListeners } from 'node:events';
import { rmSync } from 'node:fs';
import { Semaphore } from 'async-mutex';
import { NotTheServiceError, ProxyError, type ApiError } from '../api/api-error.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { jsonForTerminal } from '../render/terminal-text.js';
import type { Session } from '../session.js';
import { MAX_BODY_BYTES } from '../contract/limits.js';
import { BatchControl } from './batch-control.js';
import { count, createProgress } from './batch-progress.js';
import { BatchStats } from './batch-stats.js';
import { summaryJson, summaryText, type StopReason } from './batch-summary.js';
import type { BatchInput, InputRecord } from './input-records.js';
import { formatResult, type LineResult } from './line-result.js';
import { LineFile, MAX_LINES_IN_PROGRESS, prepareResume, type PriorRun } from './results-file.js';
import { lineId, prepareLine, submitLine, type LineWork } from './submit-line.js';
import { terminalSafe } from '../render/terminal-text.js';

/*
 * A batch: a pool that takes lines in input order while one of `concurrency` request slots is
 * free, screens each (submit-line.ts) and writes its one result at once. A line waiting to
 * retry frees its slot for the next line; reading is pulled by the pool, so at most
 * MAX_LINES_IN_PROGRESS lines are held however large the input.
 *
 * Stops early for a first Ctrl-C (no new line is taken, lines in flight finish), --max-errors,
 * a spent retry budget, a refused key, or unreadable input; a second Ctrl-C aborts the requests
 * in flight and leaves their lines unrecorded (resume checks them before sending again).
 */

export interface BatchOptions {
  concurrency: number;
  /** Attempts per second across the batch, or null for no cap. */
  rate: number | null;
  maxErrors: number | null;
  out: string | null;
  rejects: string | null;
  resume: boolean;
  quiet: boolean;
  json: boolean;
}

/** One line for the rejects file: a JSON text's line breaks are whitespace, so folding them keeps its meaning. */
const asOneLine = (text: string) => text.replace(/\r?\n/g, ' ');

/**
 * The client and the files of a batch. Until the batch takes over, the input is this function's
 * to close when anything fails (a results file that exists, a resume that does not match):
 * Node must never be left to close its file on garbage collection.
 */
async function setUp(session: Session, input: BatchInput, options: BatchOptions, pool: { control: BatchControl; signal: AbortSignal }) {
  try {
    const client = await session.client({ connections: options.concurrency, ...pool });
    const prior: PriorRun | null = options.resume && options.out ? await prepareResume(options.out) : null;
    const results = options.out ? LineFile.open(options.out, options.resume ? 'append' : 'create', '--out') : null;
    let rejects: LineFile | null = null;
    try {
      rejects = options.rejects ? LineFile.open(options.rejects, options.resume ? 'append' : 'replace', '--rejects') : null;
    } catch (error) {
      results?.close();
      if (!options.resume && options.out) rmSync(options.out, { force: true });
      throw error;
    }
    return { client, prior, results, rejects };
  } catch (error) {
    input.close();
    throw error;
  }
}

export async function runBatch(session: Session, input: BatchInput, options: BatchOptions): Promise<void> {
  if (options.resume && !options.out) {
    input.close();
    throw new UsageError('--resume needs --out: the results file of the run to continue');
  }
  const context = session.context;
  const stats = new BatchStats();
  const control = new BatchControl(options.rate, options.concurrency);
  const abort = new AbortController();
  // Every line in progress, sending or waiting to retry, listens for the batch's abort (second Ctrl-C).
  setMaxListeners(MAX_LINES_IN_PROGRESS + 16, abort.signal);
  let stopped: StopReason | null = null;
  let finished = false;
  let fatal: ApiError | NotTheServiceError | ProxyError | undefined;
  let inputError: unknown;
  const stop = (reason: StopReason) => {
    stopped ??= reason;
  };

  const { client, prior, results, rejects } = await setUp(session, input, options, { control, signal: abort.signal });

  // Counting a file's lines first (a fast second read) gives the bar its total and an ETA.
  const total = options.quiet ? null : await input.countRecords();
  const progress = createProgress(stats, context.stderr, { quiet: options.quiet, total });

  void (async () => {
    await context.waitForShutdown();
    if (finished) return;
    stop('interrupted');
    progress.note('stopping: finishing the lines in flight; press Ctrl-C again to abort them');
    await context.waitForShutdown();
    if (finished) return;
    stopped = 'aborted';
    abort.abort();
  })();

  // Results on stdout: a reader that goes away (`| head`) stops the batch like a Ctrl-C would:
  // no new lines are sent, those in flight finish, and their results are counted as unwritten.
  let stdoutClosed = false;
  let unwritten = 0;
  const releaseStdout = !results && options.json
    ? context.onStdoutClosed(() => {
        stdoutClosed = true;
        stop('output-closed');
      })
    : () => {};
  const writeToStdout = async (result: LineResult) => {
    if (stdoutClosed) {
      unwritten++;
      return;
    }
    const written = context.stdout.write(`${formatResult(result)}\n`, (error) => {
      if (error) unwritten++;
    });
    if (!written) await Promise.race([once(context.stdout, 'drain'), once(context.stdout, 'close')]).catch(() => {});
  };

  // Workers take lines one at a time and in input order (resume relies on that order).
  const iterator = input.records[Symbol.asyncIterator]();
  let queue: Promise<unknown> = Promise.resolve();
  const take = (): Promise<InputRecord | null> => {
    const next = queue.then(async () => {
      if (stopped) return null;
      try {
        const r = await iterator.next();
        return r.done ? null : r.value;
      } catch (error) {
        inputError ??= error;
        stop('input');
        return null;
      }
    });
    queue = next;
    return next;
  };

  const work: LineWork = {
    client,
    allowResubmit: (kind) => control.allowRetry(kind),
    maxResubmits: (await session.settings()).retries,
    aborted: () => abort.signal.aborted,
  };

  const runLine = async (record: InputRecord): Promise<void> => {
    if (prior?.isSettled(record.line, record.column)) {
      const mismatch = otherInput(record, prior.recordedId(record.line, record.column) ?? null, options.out!);
      if (mismatch) {
        inputError ??= mismatch;
        stop('wrong-input');
        return;
      }
      stats.skipped++;
      return;
    }
    const verifyFirst = prior !== null && prior.maySentBefore(record.line, record.column);
    // A line rejected locally is settled before the pool takes another line (this function runs
    // synchronously up to its first await), so the next take() already sees a --max-errors
    // stop: the limit is exact for lines that need no request.
    const line = prepareLine(record, MAX_BODY_BYTES);
    const outcome = 'rejected' in line ? line.rejected : await submitLine(record, line.send, work, { verifyFirst });
    if (!outcome) return;
    const { result } = outcome;
    stats.add(result, outcome.reason);
    if (outcome.fatal) {
      fatal ??= outcome.fatal;
      stop(outcome.fatal instanceof NotTheServiceError ? 'not-the-service' : outcome.fatal instanceof ProxyError ? 'proxy' : 'auth');
    }
    if (control.budget.spent) stop('retry-budget');
    if (options.maxErrors !== null && stats.errors >= options.maxErrors) stop('max-errors');
    if (results) results.writeResult(result);
    if (rejects && result.outcome !== 'DECIDED') rejects.write(asOneLine(record.text));
    progress.tick();
    if (!results && options.json) await writeToStdout(result);
  };

  // The pool: a line is taken only when one of the --concurrency request slots is free, and
  // holds it until its result is written, except while it waits to retry (batch-control.ts).
  // Lines taken and not yet recorded — sending or waiting — are at most MAX_LINES_IN_PROGRESS:
  // memory stays flat, and --resume knows how far past the last recorded line a dead run may
  // have sent.
  const inProgress = new Semaphore(MAX_LINES_IN_PROGRESS);
  const running = new Set<Promise<void>>();
  let crash: { error: unknown } | undefined;
  const pool = async () => {
    for (;;) {
      await inProgress.acquire();
      await control.takeSlot();
      const record = crash ? null : await take();
      if (!record) {
        control.releaseSlot();
        inProgress.release();
        return;
      }
      const line: Promise<void> = runLine(record)
        .catch((error: unknown) => {
          crash ??= { error };
        })
        .finally(() => {
          control.releaseSlot();
          inProgress.release();
          running.delete(line);
        });
      running.add(line);
    }
  };

  stats.start();
  try {
    await pool();
    while (running.size > 0) await Promise.all(running);
    if (crash) throw crash.error;
  } finally {
    finished = true;
    releaseStdout();
    progress.stop();
    results?.close();
    rejects?.close();
    prior?.close();
    input.close();
  }

  const facts = { stats, stopped, results: options.out, rejects: options.rejects, retries: control.budget.granted, throttled: control.throttled, resumed: prior !== null };
  if (stopped === 'output-closed') {
    throw new CliError(
      `stdout was closed after ${count(stats.done - unwritten)} results: the batch stopped; ${count(unwritten)} ${unwritten === 1 ? 'event was' : 'events were'} sent whose results could not be written`,
      ExitCode.FAILURE,
      'to keep every result, write them to a file with --out FILE (then --resume finds what was stored)',
    );
  }
  if (options.json) {
    // The summary goes to stdout unless stdout already carries the results.
    const text = `${jsonForTerminal(summaryJson(facts), true)}\n`;
    if (results) context.stdout.write(text);
    else context.stderr.write(text);
  } else if (!options.quiet || stats.errors > 0 || stopped) {
    context.stderr.write(`${summaryText(facts)}\n`);
  }

  if (inputError) throw inputError;
  if (fatal) throw fatal;
  if (stopped === 'interrupted' || stopped === 'aborted') {
    throw new CliError(`interrupted after ${count(stats.done)} events`, ExitCode.INTERRUPTED, options.out ? 'continue with the same command and --resume' : undefined);
  }
  if (stats.errors > 0 || stopped) {
    const where = options.out ? `see ${options.out}` : options.json ? 'see the results above' : 'add --out FILE to keep every line\'s result';
    throw new CliError(`${count(stats.errors)} of ${count(stats.done)} events got no decision${stopped ? ' and the batch stopped early' : ''}`, ExitCode.FAILURE, `${where}${options.rejects ? `; ${options.rejects} holds those lines to send again` : ''}`);
  }
}

/**
 * A resumed line must be the line the results file describes: a results file resumed with
 * another input would skip and send the wrong events. Every settled line's id is compared
 * (read back from the results file as the input reaches it), the input's read as it was when
 * the result was recorded (lineId), so an input that only shares its first lines is caught.
 */
function otherInput(record: InputRecord, recordedId: string | null, out: string): UsageError | undefined {
  const id = lineId(record);
  if (id === recordedId) return undefined;
  const show = (v: string | null) => (v === null ? 'without an id' : `event ${terminalSafe(JSON.stringify(v))}`);
  return new UsageError(
    `${out} does not belong to this input: its line ${record.line}${record.column > 1 ? ` column ${record.column}` : ''} is ${show(recordedId)}, the input's is ${id === null ? 'without an id' : terminalSafe(JSON.stringify(id))}`,
    'resume with the same input the results file was written for, or give a new --out without --resume',
  );
}
