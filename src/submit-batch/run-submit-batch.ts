import { CliError, ExitCode } from '../errors/cli-error.js';
import { terminalSafe } from '../render/terminal-text.js';
import type { CliContext } from '../process/cli-context.js';
import { MAX_BODY_BYTES } from '../contract/limits.js';
import { count } from '../render/counts.js';
import { headerText } from '../results-file/header.js';
import type { LineFile } from '../results-file/line-file.js';
import { bindResume } from '../results-file/run-binding.js';
import { formatResult, readLineResult, type LineResult } from '../results-file/submit-result.js';
import { resolve } from 'node:path';
import { lockForOneWriter, type HeldLock } from '../files/exclusive-lock.js';
import { checkRejectsPath, openRejects } from './rejects-file.js';
import { endOfRun } from '../batch/end-of-run.js';
import { poolRuntime, runPool, type PoolClientSource, type PoolJob, type Settled } from '../batch/run-pool.js';
import { BatchStats } from './batch-stats.js';
import { summaryJson, summaryText } from './batch-summary.js';
import type { BatchInput, InputRecord } from './input-records/records.js';
import { lineId, prepareLine, submitLine, type LineWork } from './submit-line.js';
import { BaseCurrencyLearner } from './base-currency.js';

/*
 * `submit` for many events: a job on the pool (src/batch/run-pool.ts). Each line is screened
 * (submit-line.ts) and gets one result line; a line the reader or parser refuses is REJECTED
 * without a request. With --rejects, every line without a decision is also kept as it was. A run
 * that writes results reads one event more, for the base currency (base-currency.ts).
 */

/** What a batch is asked (src/commands/submit/command.ts checks the flag combinations: --resume has --out). */
export interface BatchOptions {
  concurrency: number;
  /** Attempts per second across the batch, or null for no cap. */
  rate: number | null;
  maxErrors: number | null;
  out: string | null;
  rejects: string | null;
  resume: boolean;
  /** The input as named on the command line (`-`: stdin). */
  source: string;
  quiet: boolean;
  json: boolean;
}

/**
 * All a batch takes from outside: the process's streams and signal hooks (the pool's progress
 * bar, results on stdout, Ctrl-C, a reader of stdout going away), the pool's client, and the few
 * settings it reads. The room's deps.ts (src/commands/submit/) builds the real ones.
 */
export interface BatchDeps {
  streams: Pick<CliContext, 'stdin' | 'stdout' | 'stderr' | 'waitForShutdown' | 'onStdoutClosed'>;
  /** The pool's client, made once with its connections, pacing and abort (a key read, the embedded sandbox started). */
  poolClient: PoolClientSource['client'];
  /** The service the run talks to, as the results file's header records it (src/profiles/service-name.ts). */
  service(): Promise<string>;
  /** How many times a line may be sent again after a failure without an answer (the settings' retries). */
  retries(): Promise<number>;
  /** The flags of this run that choose the service, for a command in the summary to reach the same one. */
  serviceFlags: readonly string[];
}

/** One line for the rejects file: a JSON text's line breaks are whitespace, so folding them keeps its meaning. */
const asOneLine = (text: string) => text.replace(/\r?\n/g, ' ');

export async function runBatch(deps: BatchDeps, input: BatchInput, batchOptions: BatchOptions): Promise<void> {
  let options = batchOptions;
  const context = deps.streams;
  const stats = new BatchStats();
  let outLock: HeldLock | null = null;
  let rejectsLock: HeldLock | null = null;
  const closeAndThrow = (error: unknown): never => {
    rejectsLock?.release();
    outLock?.release();
    input.close();
    throw error;
  };
  try {
    // One run at a time writes the results file: a second is refused before anything starts (an embedded sandbox too).
    outLock = options.out ? lockForOneWriter(options.out, '--out', (line) => context.stderr.write(line)) : null;
  } catch (error) {
    closeAndThrow(error);
  }
  // A resume continues the run its results file records: the same service, the same --rejects
  // (checked under the lock, before a client or an embedded sandbox is started).
  let header: string | undefined;
  if (options.out) {
    const intent = {
      command: 'submit',
      service: await deps.service().catch(closeAndThrow),
      options: { rejects: options.rejects === null ? null : resolve(options.rejects) },
    };
    const given = new Set(options.rejects === null ? [] : ['rejects']);
    const show = (_key: string, value: unknown) =>
      value === null ? 'no --rejects' : `--rejects ${terminalSafe(String(value))}`;
    const bound = options.resume
      ? await bindResume(context, options.out, intent, given, show, readLineResult).catch(closeAndThrow)
      : { options: intent.options, header: headerText(intent) };
    header = bound.header;
    const rejects = bound.options.rejects as string | null;
    if (rejects !== null && options.rejects === null) {
      try {
        checkRejectsPath(rejects, { input: options.source, out: options.out, resume: true, stdin: context.stdin });
      } catch (error) {
        closeAndThrow(error);
      }
    }
    options = { ...options, rejects };
  }
  try {
    // The rejects file has one writer too: two runs given the same --rejects would interleave
    // and, at --resume, rewrite each other's lines.
    const rejectsPath = options.rejects;
    rejectsLock =
      rejectsPath !== null ? lockForOneWriter(rejectsPath, '--rejects', (line) => context.stderr.write(line)) : null;
  } catch (error) {
    closeAndThrow(error);
  }
  const runtime = await poolRuntime(
    { client: deps.poolClient },
    { concurrency: options.concurrency, rate: options.rate },
  ).catch(closeAndThrow);
  const { client, control } = runtime;
  const work: LineWork = {
    client,
    allowResubmit: (kind) => control.allowRetry(kind),
    maxResubmits: await deps.retries(),
    aborted: () => runtime.abort.signal.aborted,
  };

  // The base currency, for lines that need no request in `evaluate`: only when lines are written somewhere.
  const learner =
    options.out !== null || options.json ? new BaseCurrencyLearner((id) => client.getEvent(id, { once: true })) : null;

  let rejects: LineFile | null = null;
  /** Lines of the rejects file whose outcome the earlier run could not tell (UNKNOWN): kept there, with this run's. */
  let earlierUnknown = 0;
  const job: PoolJob<InputRecord, LineResult> = {
    unit: 'events',
    inFlight: 'the lines in flight',
    stats,
    items: input.records,
    countItems: () => input.countRecords(),
    closeInput: () => input.close(),
    readResult: readLineResult,
    formatResult,
    idOf: lineId,
    where: (record) => `line ${record.line}${record.column > 1 ? ` column ${record.column}` : ''}`,
    start(record, mayHaveRunBefore, sending) {
      const line = prepareLine(record, MAX_BODY_BYTES);
      if ('rejected' in line) return line.rejected;
      const submitted = submitLine(record, line.send, work, { verifyFirst: mayHaveRunBefore, sending });
      if (learner === null) return submitted;
      return submitted.then((outcome) => {
        if (outcome === undefined) return undefined;
        const completed = learner.complete(outcome.result);
        return completed instanceof Promise ? completed.then(() => outcome) : outcome;
      });
    },
    settled(record, outcome: Settled<LineResult>) {
      stats.add(outcome.result, outcome.reason);
      if (rejects && outcome.result.outcome !== 'DECIDED') rejects.write(asOneLine(record.text));
    },
    ...(options.json ? { stdoutLine: formatResult } : {}),
    async openFiles(_resume, prior) {
      const path = options.rejects;
      if (path !== null) rejects = await openRejects(path, prior, (text) => context.stderr.write(`warning: ${text}\n`));
      earlierUnknown = prior?.keptUnknown ?? 0;
    },
    closeFiles: () => rejects?.close(),
  };

  let run;
  try {
    run = await runPool(context, runtime, job, {
      maxErrors: options.maxErrors,
      out: options.out,
      resume: options.resume,
      quiet: options.quiet,
      ...(header !== undefined ? { header } : {}),
    });
  } finally {
    rejectsLock?.release();
    outLock?.release();
  }
  const { stopped } = run;

  const facts = {
    stats,
    stopped,
    results: options.out,
    rejects: options.rejects,
    rejectsUnknown: stats.outcomes.UNKNOWN + earlierUnknown,
    retries: run.retries,
    throttled: run.throttled,
    resumed: run.resumed,
    serviceFlags: deps.serviceFlags,
  };
  endOfRun(context, run, {
    unit: 'events',
    stopped: 'the batch',
    unwrittenWere: 'sent',
    resumeFinds: 'what was stored',
    done: stats.done,
    out: options.out,
    json: options.json,
    showSummary: !options.quiet || stats.errors > 0 || stopped !== null,
    summaryJson: () => summaryJson(facts),
    summaryText: () => summaryText(facts),
  });
  if (stats.errors > 0 || stopped) {
    const where = options.out
      ? `see ${options.out}`
      : options.json
        ? 'see the results above'
        : "add --out FILE to keep every line's result";
    const kept = options.rejects === null ? '' : `; ${rejectsHint(options.rejects, facts.rejectsUnknown, run.resumed)}`;
    const early = stopped ? ' and the batch stopped early' : '';
    const message = `${count(stats.errors)} of ${count(stats.done)} events got no decision${early}`;
    throw new CliError(message, ExitCode.FAILURE, `${where}${kept}`);
  }
}

/**
 * What the rejects file holds, truly: the lines without a decision (after --resume the earlier
 * run's too), to send again unless some may have been stored (UNKNOWN): those are to be checked
 * first, since sending them again may store them twice.
 */
function rejectsHint(rejects: string, unknown: number, resumed: boolean): string {
  const lines = resumed ? "the lines without a decision, the earlier run's too" : 'those lines';
  if (unknown === 0) return `${rejects} holds ${lines} to send again`;
  const check = 'may have been stored (unknown): check those before sending it again';
  return `${rejects} holds ${lines}; ${count(unknown)} of them ${check}`;
}
