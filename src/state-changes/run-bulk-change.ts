import {
  poolRuntime,
  runPool,
  type PoolClientOptions,
  type PoolJob,
  type PoolRun,
  type PoolRuntime,
  type Settled,
} from '../batch/run-pool.js';
import { count } from '../render/counts.js';
import { endOfRun } from '../batch/end-of-run.js';
import { formatChangeResult, readChangeResult, type ChangeResult } from '../results-file/change-result.js';
import { headerText } from '../results-file/header.js';
import { LineFile } from '../results-file/line-file.js';
import { refuseMissing } from '../results-file/prior-run.js';
import { bindResume } from '../results-file/run-binding.js';
import { FileWriteError } from '../files/append-line.js';
import { KNOWN_STATES } from '../contract/states.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { readIdList } from '../id-lists/id-list.js';
import { jsonForTerminal, terminalSafe } from '../render/terminal-text.js';
import type { LogContext, LogEntry } from '../action-log/action-log.js';
import { openSessionLog, type SessionLog } from '../action-log/action-log.js';
import { lockForOneWriter } from '../files/exclusive-lock.js';
import type { ApiClient } from '../api/api-client.js';
import type { CliContext } from '../process/cli-context.js';
import type { Prompter } from '../prompter/prompter.js';
import type { Settings } from '../profiles/settings.js';
import { changeOne, unnamed, type BulkChange, type ChangeWork, type IdItem, type PlannedItem } from './change-one.js';
import { changeLine, planLines } from './change-lines.js';
import { changeSummaryJson, changeSummaryText, ChangeStats, planText } from './change-summary.js';
import { refuseLongComment } from './set-state.js';
import { checkedReason, withReason } from './reasons.js';
import { matchState, stateFromTyped } from './state-names.js';
import { claimHolders, claimWords, type ClaimHolder } from './claim-holders.js';

/*
 * `set-state` for many events: the ids (arguments, --from FILE or -, a submit --out results
 * file) go through the pool (src/batch/) twice at most. On a terminal without --yes, a first
 * pass reads every event and the plan is shown (how many change, from which states, what is
 * skipped and why); then one question, default no; then the change pass, which reads each event
 * again just before its PATCH (change-one.ts). With --yes there is one pass; --dry-run is the
 * first pass alone, with a line per id. Off a terminal, without --yes or --dry-run, nothing is
 * read: a usage error says what to add. It takes narrow deps (BulkDeps), never a Session.
 */

/** What many-id `set-state` is asked (src/commands/set-state/ maps argv to it and checks the flag combinations). */
export interface BulkOptions {
  ids: readonly string[];
  /** --from FILE, or - for stdin; null: the ids of the arguments only. */
  from: string | null;
  /** --state as typed; null: not given (only a --resume may leave it out: it is then the record's). */
  state: string | null;
  /** --comments as given; an empty one is never sent. */
  comments: string | null;
  /** What --comments does to a comment an event has: keep it (append), replace it, or neither (the event is skipped). */
  commentMode: 'append' | 'replace' | null;
  /** --if-state as typed, comma-separated; null for none. */
  ifState: string | null;
  force: boolean;
  dryRun: boolean;
  yes: boolean;
  out: string | null;
  resume: boolean;
  concurrency: number;
  log: string | null;
  /** --reason CODE as typed (checked against the profile and --state; reasons.ts); null: none. */
  reason: string | null;
  /** --include-claimed: change events IN_REVIEW (held in a review session) too; otherwise each is CLAIMED. */
  includeClaimed: boolean;
  /** --json: a JSON line per id, and the summary as JSON. */
  json: boolean;
}

/** All that a change of many events takes from outside; the room's deps.ts builds the real ones. */
export interface BulkDeps {
  /** The process the pool runs in: stdin (--from -), stdout and stderr, Ctrl-C, stdout's reader gone. */
  context: CliContext;
  /** A terminal on both ends, and no --no-input: the plan is shown and one question asked. */
  canPrompt: boolean;
  prompter(): Promise<Prompter>;
  settings(): Promise<Pick<Settings, 'profile' | 'reasons' | 'requireReason' | 'retries'>>;
  /** The service as a results file's header records it (profiles/service-name.ts). */
  service(): Promise<string>;
  /** The pool's client, made once with the pool's pace, retry budget and abort. */
  client(options: PoolClientOptions): Promise<ApiClient>;
  /** Who and where the --log lines name (action-log/log-context.ts). */
  logContext(): Promise<LogContext>;
  now(): number;
}

/** An option of a bulk change as it would be typed, for the messages of a resume. */
function showOption(key: string, value: unknown): string {
  if (key === 'commentMode')
    return value === null || value === undefined
      ? 'neither --append-comment nor --replace-comment'
      : `--${String(value)}-comment`;
  const flag =
    {
      state: '--state',
      comments: '--comments',
      ifState: '--if-state',
      forceState: '--force-state',
      reason: '--reason',
    }[key] ?? key;
  if (value === null || value === false) return `no ${flag}`;
  if (value === true) return flag;
  const text = Array.isArray(value) ? value.join(',') : String(value);
  return `${flag} ${terminalSafe(JSON.stringify(text))}`;
}

/** --if-state A,B in any case and separator, each matched to a known state (did-you-mean), or taken as typed with --force-state. */
export function parseIfState(typed: string, force: boolean): string[] {
  const states = typed
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (states.length === 0)
    throw new UsageError(
      '--if-state needs at least one state',
      `e.g. --if-state pending-review,escalated; states: ${KNOWN_STATES.join(', ')}`,
    );
  return states.map((s) => {
    const match = matchState(s);
    if (match.state) return match.state;
    if (force) return s;
    throw new UsageError(
      `--if-state: unknown state "${terminalSafe(s)}"${match.suggestion ? `: did you mean ${match.suggestion}?` : ''}`,
      `known states: ${KNOWN_STATES.join(', ')}; to name a state this build does not know, add --force-state`,
    );
  });
}

/** The ids as pool items, numbered in input order; `stopReading` ends the reading, even while an id is awaited. */
async function* idItems(deps: BulkDeps, options: BulkOptions, stopReading: AbortSignal): AsyncGenerator<IdItem> {
  let n = 0;
  for await (const entry of readIdList(
    { args: options.ids, from: options.from ?? undefined, results: 'every', signal: stopReading },
    deps.context,
  )) {
    yield { line: ++n, column: 1, entry };
  }
}

function job(
  deps: BulkDeps,
  options: BulkOptions,
  change: BulkChange,
  work: ChangeWork,
  mode: 'plan' | 'change',
  stats: ChangeStats,
  onSettled: (item: IdItem, r: ChangeResult) => void,
  printing: boolean,
  after: (settled: Settled<ChangeResult> | undefined) => Settled<ChangeResult> | undefined = (settled) => settled,
): PoolJob<IdItem, ChangeResult> {
  const stopReading = new AbortController();
  const items = idItems(deps, options, stopReading.signal);
  return {
    unit: 'ids',
    inFlight: 'the ids in flight',
    stats,
    items,
    countItems: async () => null,
    closeInput: () => {
      stopReading.abort();
      void items.return(undefined);
    },
    readResult: readChangeResult,
    formatResult: formatChangeResult,
    idOf: (item) => item.entry.id,
    where: (item) => `id ${item.line} (${item.entry.where})`,
    start: (item) => (item.entry.id === null ? unnamed(item, change) : changeOne(item, change, work, mode).then(after)),
    settled(item, settled: Settled<ChangeResult>) {
      stats.add(settled.result);
      onSettled(item, settled.result);
    },
    // A dry run's plan is printed in columns; the change pass prints each line as it is settled.
    ...(printing
      ? {
          stdoutLine: options.json
            ? formatChangeResult
            : mode === 'plan'
              ? planLines(change.target, options.ids)
              : changeLine,
        }
      : {}),
  };
}

/**
 * Who holds each event IN_REVIEW, in words: the --log the team shares is read once, at the first
 * event found claimed (most runs meet none), and only the events it last put IN_REVIEW are kept.
 */
function claimWordsFrom(logPath: string | null, now: () => number): (id: string) => Promise<string> {
  let holders: Promise<ReadonlyMap<string, ClaimHolder>> | null = null;
  return async (id) => {
    holders ??= logPath === null ? Promise.resolve(new Map()) : claimHolders(logPath);
    return claimWords((await holders).get(id), logPath, now());
  };
}

export async function bulkSetState(options: BulkOptions, deps: BulkDeps): Promise<void> {
  const context = deps.context;
  // What is sent, as the results file's header records it; a --resume must match the record.
  const typed = {
    state: options.state === null ? null : stateFromTyped(options.state, options.force, 'send'),
    comments: options.comments !== null && options.comments.trim() !== '' ? options.comments : null,
    ifState: options.ifState === null ? null : [...new Set(parseIfState(options.ifState, options.force))].sort(),
    forceState: options.force,
    commentMode: options.commentMode,
    reason: options.reason,
  };
  const confirm = !options.dryRun && !options.yes;
  const note = (line: string) => context.stderr.write(line);
  // One run at a time writes the results file: taken before the plan (and before its header is read), held until the end.
  const outLock = options.out ? lockForOneWriter(options.out, '--out', note) : null;
  let log: SessionLog | null = null;
  // The first line the log could not take: the run stops, and no PATCH is sent after it.
  let logFailure: FileWriteError | undefined;
  try {
    if (options.out && !options.resume) LineFile.refuseExisting(options.out, '--out');
    if (options.out && options.resume) refuseMissing(options.out);
    let intent: Record<string, unknown> = typed;
    let header: string | undefined;
    if (options.out) {
      const run = { command: 'set-state', service: await deps.service(), options: typed };
      const given = new Set([
        ...(options.state !== null ? ['state'] : []),
        ...(options.comments !== null ? ['comments'] : []),
        ...(options.ifState !== null ? ['ifState'] : []),
        ...(options.force ? ['forceState'] : []),
        ...(options.commentMode !== null ? ['commentMode'] : []),
        ...(options.reason !== null ? ['reason'] : []),
      ]);
      const bound = options.resume
        ? await bindResume(context, options.out, run, given, showOption, readChangeResult)
        : { options: typed, header: headerText(run) };
      intent = bound.options;
      header = bound.header;
    }
    const target = intent.state as string | null;
    if (target === null)
      throw new UsageError(
        'set-state for many events needs --state',
        `e.g. --state declined --comments "fraud ring"; states: ${KNOWN_STATES.join(', ')}`,
      );
    const settings = await deps.settings();
    // Before anything is read or sent: a code of the profile's, for this state (or none, unless the profile requires one).
    const reason = checkedReason(
      { profile: settings.profile, reasons: settings.reasons, requireReason: settings.requireReason },
      (intent.reason as string | null | undefined) ?? undefined,
      target,
    );
    // The whole comment as sent, the reason at its head, is what the service's limit counts.
    const comments = withReason(reason, intent.comments as string | null) ?? null;
    if (comments !== null) refuseLongComment(comments);
    const change: BulkChange = {
      target,
      comments,
      reason,
      commentMode: (intent.commentMode as 'append' | 'replace' | null | undefined) ?? null,
      guard: { ifStates: intent.ifState as string[] | null, force: intent.forceState === true },
      includeClaimed: options.includeClaimed === true,
      claimWords: claimWordsFrom(options.log, () => deps.now()),
    };
    if (confirm && !deps.canPrompt) {
      throw new UsageError(
        'set-state for many events asks for a confirmation, and there is no terminal to ask on (or --no-input)',
        'add --yes, or --dry-run to see the plan',
      );
    }
    if (options.comments !== null && typed.comments === null)
      context.stderr.write('note: the empty --comments is not sent (it would erase the comment each event has)\n');
    // The second Ctrl-C, which aborts what is in flight, also ends a wait for a FIFO's reader.
    const logAbort = new AbortController();
    if (options.log !== null && !options.dryRun) {
      log = await openSessionLog(options.log, await deps.logContext(), note, undefined, { signal: logAbort.signal });
    }
    const runtime = await poolRuntime(
      { client: (clientOptions) => deps.client(clientOptions) },
      {
        concurrency: options.concurrency,
        rate: null,
      },
    );
    runtime.abort.signal.addEventListener('abort', () => logAbort.abort(), { once: true });
    const work: ChangeWork = {
      client: runtime.client,
      allowResend: (kind) => runtime.control.allowRetry(kind),
      maxResends: settings.retries,
      aborted: () => runtime.abort.signal.aborted,
      planned: null,
      log: async (entry: LogEntry) => {
        if (!log) return true;
        if (logFailure && entry.outcome === 'sending') return false;
        try {
          await log.append(entry);
          return true;
        } catch (error) {
          logFailure ??=
            error instanceof FileWriteError ? error : new FileWriteError(log.path, 'EIO', (error as Error).message);
          return false;
        }
      },
    };
    // An id whose log line failed stops the pool (stop 'write-failed'), as a results file that cannot be written does.
    const stopOnLogFailure = (settled: Settled<ChangeResult> | undefined): Settled<ChangeResult> | undefined =>
      settled && logFailure && !settled.fatal
        ? { ...settled, fatal: { error: logFailure, stop: 'write-failed' } }
        : settled;

    if (options.dryRun || confirm) {
      const planned = await plan(deps, runtime, options, change, work);
      if (planned === null) return;
      work.planned = planned.items;
      const go = await (
        await deps.prompter()
      ).confirm(`Change ${count(planned.count)} events to ${terminalSafe(change.target)}?`, false);
      if (!go) throw new CliError('cancelled: nothing was changed', ExitCode.INTERRUPTED);
    }

    const stats = new ChangeStats();
    const run = await runPool(
      context,
      runtime,
      job(deps, options, change, work, 'change', stats, () => {}, options.out === null, stopOnLogFailure),
      {
        maxErrors: null,
        out: options.out,
        resume: options.resume,
        quiet: false,
        ...(header !== undefined ? { header } : {}),
      },
    );
    finish(deps, options, change, stats, run, logFailure?.message ?? null);
  } finally {
    try {
      await log?.close();
    } finally {
      outLock?.release();
    }
  }
}

/**
 * The first pass: reads every event and shows the plan. Returns what the change pass needs (the
 * state each event was in, and whether it is to change), or null when the run ends here
 * (--dry-run, nothing to change): the exit is then the plan's.
 */
async function plan(
  deps: BulkDeps,
  runtime: PoolRuntime,
  options: BulkOptions,
  change: BulkChange,
  work: ChangeWork,
): Promise<{ items: Map<number, PlannedItem>; count: number } | null> {
  const stats = new ChangeStats();
  const items = new Map<number, PlannedItem>();
  const remember = (item: IdItem, r: ChangeResult) => {
    if (r.outcome === 'PLANNED' || r.outcome === 'SKIPPED')
      items.set(item.line, { state: r.from, send: r.outcome === 'PLANNED' });
    else if (r.outcome === 'NOT_FOUND' || r.outcome === 'INVALID') items.set(item.line, { state: null, send: false });
    else if (r.outcome === 'CLAIMED') items.set(item.line, { state: r.from, send: false });
  };
  // The plan's lines go to stdout with --dry-run only; a confirmation shows the plan alone.
  const run = await runPool(
    deps.context,
    runtime,
    job(deps, options, change, work, 'plan', stats, remember, options.dryRun),
    { maxErrors: null, out: null, resume: false, quiet: false },
  );
  if (run.stopped || run.fatal || run.inputError) {
    finish(deps, options, change, stats, run, null);
    return null;
  }
  deps.context.stderr.write(`${planText(stats, change.target)}\n`);
  if (options.dryRun) {
    if (options.json)
      deps.context.stderr.write(
        `${jsonForTerminal(changeSummaryJson({ stats, target: change.target, stopped: null, results: null, retries: run.retries, throttled: run.throttled, logProblem: null }), true)}\n`,
      );
    deps.context.stderr.write('Dry run: nothing was changed.\n');
    exitWith(stats, options, null, 'plan');
    return null;
  }
  if (stats.outcomes.PLANNED === 0) {
    deps.context.stderr.write('Nothing to change.\n');
    exitWith(stats, options, null, 'plan');
    return null;
  }
  return { items, count: stats.outcomes.PLANNED };
}

function finish(
  deps: BulkDeps,
  options: BulkOptions,
  change: BulkChange,
  stats: ChangeStats,
  run: PoolRun,
  logProblem: string | null,
): void {
  const facts = {
    stats,
    target: change.target,
    stopped: run.stopped,
    results: options.out,
    retries: run.retries,
    throttled: run.throttled,
    logProblem,
  };
  endOfRun(deps.context, run, {
    unit: 'ids',
    stopped: 'the change',
    unwrittenWere: 'done',
    resumeFinds: 'what was done',
    done: stats.done,
    out: options.out,
    json: options.json,
    showSummary: true,
    summaryJson: () => changeSummaryJson(facts),
    summaryText: () => changeSummaryText(facts),
  });
  exitWith(stats, options, run.stopped, 'change');
}

/** Exit 0 when every id was changed or skipped as asked; else the worst result's code, with one line saying how many. */
function exitWith(stats: ChangeStats, options: BulkOptions, stopped: string | null, pass: 'plan' | 'change'): void {
  if (stats.worst === ExitCode.OK && !stopped) return;
  const o = stats.outcomes;
  const parts = [
    o.NOT_FOUND ? `${count(o.NOT_FOUND)} not found` : '',
    o.INVALID ? `${count(o.INVALID)} invalid` : '',
    o.REFUSED ? `${count(o.REFUSED)} refused` : '',
    o.CONFLICT ? `${count(o.CONFLICT)} in conflict` : '',
    o.CLAIMED ? `${count(o.CLAIMED)} held in a review session (--include-claimed changes them)` : '',
    o.FAILED ? `${count(o.FAILED)} failed` : '',
    stats.keptComment
      ? `${count(stats.keptComment)} kept a comment of ${stats.keptComment === 1 ? 'its' : 'their'} own (--append-comment or --replace-comment says what to do with it)`
      : '',
  ].filter(Boolean);
  if (pass === 'plan') {
    throw new CliError(
      `${count(stats.errors)} of ${count(stats.done)} ids cannot be changed: ${parts.join(', ')}`,
      stats.worst === ExitCode.OK ? ExitCode.FAILURE : stats.worst,
    );
  }
  const where = options.out
    ? `see ${options.out}${o.FAILED ? '; run the same command with --resume to try the failed ones again' : ''}`
    : "add --out FILE to keep every id's result";
  throw new CliError(
    `${count(stats.errors)} of ${count(stats.done)} ids were not changed${parts.length ? `: ${parts.join(', ')}` : ''}${stopped ? ', and the run stopped early' : ''}`,
    stats.worst === ExitCode.OK ? ExitCode.FAILURE : stats.worst,
    where,
  );
}
