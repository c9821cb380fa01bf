import { once, setMaxListeners } from 'node:events';
import { rmSync } from 'node:fs';
import type { ApiError } from '../api/api-error.js';
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
import { LineFile, positionKey, prepareResume, type PriorRun } from './results-file.js';
import { prepareLine, submitLine, type LineWork } from './submit-line.js';

/*
 * A batch: a pool of `concurrency` workers, each taking the next line in input order,
 * screening it (submit-line.ts) and writing its one result at once. Reading is pulled by the
 * workers, so at most `concurrency` lines are held however large the input.
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

export async function runBatch(session: Session, input: BatchInput, options: BatchOptions): Promise<void> {
  if (options.resume && !options.out) {
    input.close();
    throw new UsageError('--resume needs --out: the results file of the run to continue');
  }
  const context = session.context;
  const stats = new BatchStats();
  const control = new BatchControl(options.rate);
  const abort = new AbortController();
  // Every request in flight listens for the batch's abort (second Ctrl-C).
  setMaxListeners(options.concurrency + 16, abort.signal);
  let stopped: StopReason | null = null;
  let finished = false;
  let fatal: ApiError | undefined;
  let inputError: unknown;
  const stop = (reason: StopReason) => {
    stopped ??= reason;
  };

  const client = await session.client({ connections: options.concurrency, control, signal: abort.signal });
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

  const worker = async () => {
    for (;;) {
      const record = await take();
      if (!record) return;
      if (prior?.isSettled(record.line, record.column)) {
        const key = positionKey(record.line, record.column);
        const mismatch = prior.sampleIds.has(key) ? otherInput(record, prior.sampleIds.get(key)!, options.out!) : undefined;
        if (mismatch) {
          inputError ??= mismatch;
          stop('wrong-input');
          return;
        }
        stats.skipped++;
        continue;
      }
      const verifyFirst = prior !== null && prior.maySentBefore(record.line, record.column);
      // A line rejected locally is settled before this worker yields, so the next take() already
      // sees a --max-errors stop: the limit is exact for lines that need no request.
      const line = prepareLine(record, MAX_BODY_BYTES);
      const outcome = 'rejected' in line ? line.rejected : await submitLine(record, line.send, work, { verifyFirst });
      if (!outcome) return;
      const { result } = outcome;
      stats.add(result, outcome.reason);
      if (outcome.fatal) {
        fatal ??= outcome.fatal;
        stop('auth');
      }
      if (control.budget.spent) stop('retry-budget');
      if (options.maxErrors !== null && stats.errors >= options.maxErrors) stop('max-errors');
      if (results) results.writeResult(result);
      if (rejects && result.outcome !== 'DECIDED') rejects.write(asOneLine(record.text));
      progress.tick();
      if (!results && options.json) await writeToStdout(result);
    }
  };

  stats.start();
  try {
    const settled = await Promise.allSettled(Array.from({ length: options.concurrency }, worker));
    const crashed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (crashed) throw crashed.reason;
  } finally {
    finished = true;
    releaseStdout();
    progress.stop();
    results?.close();
    rejects?.close();
    input.close();
  }

  const facts = { stats, stopped, results: options.out, rejects: options.rejects, retries: control.budget.granted, throttled: control.throttled, resumed: prior !== null };
  if (stopped === 'output-closed') {
    throw new CliError(
      `stdout was closed after ${count(stats.done - unwritten)} results: the batch stopped; ${count(unwritten)} ${unwritten === 1 ? 'line was' : 'lines were'} sent whose results could not be written`,
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
    throw new CliError(`interrupted after ${count(stats.done)} lines`, ExitCode.INTERRUPTED, options.out ? 'continue with the same command and --resume' : undefined);
  }
  if (stats.errors > 0 || stopped) {
    const where = options.out ? `see ${options.out}` : options.json ? 'see the results above' : 'add --out FILE to keep every line\'s result';
    throw new CliError(`${count(stats.errors)} of ${count(stats.done)} lines got no decision${stopped ? ' and the batch stopped early' : ''}`, ExitCode.FAILURE, `${where}${options.rejects ? `; ${options.rejects} holds those lines to send again` : ''}`);
  }
}

/**
 * A resumed line must be the line the results file describes: a results file resumed with
 * another input would skip and send the wrong events. Checked on a sample of the settled lines,
 * which come first in a resumed input, so a mix-up stops the batch before it sends much.
 */
function otherInput(record: InputRecord, recordedId: string | null, out: string): UsageError | undefined {
  let id: unknown = null;
  try {
    id = (JSON.parse(record.text) as { id?: unknown }).id ?? null;
  } catch {
    return undefined; // a line rejected as not JSON has no id to compare
  }
  if (typeof id === 'string' ? id !== recordedId : recordedId !== null) {
    return new UsageError(
      `${out} does not belong to this input: its line ${record.line} is event ${JSON.stringify(recordedId)}, the input's is ${typeof id === 'string' ? JSON.stringify(id) : 'without an id'}`,
      'resume with the same input the results file was written for, or give a new --out without --resume',
    );
  }
  return undefined;
}
