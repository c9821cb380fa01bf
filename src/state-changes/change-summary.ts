import type { ProgressView } from '../batch/batch-progress.js';
import { count, plural } from '../render/counts.js';
import type { PoolStats, StopReason } from '../batch/run-pool.js';
import { ExitCode, type ExitCodeValue } from '../errors/cli-error.js';
import { worse } from '../event-lists/event-row.js';
import { recordedExitCode } from '../failures/failure-kind.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import type { ChangeOutcome, ChangeResult } from '../results-file/change-result.js';
import { HAS_COMMENT } from './change-lines.js';
import { sym } from '../render/symbols.js';

/*
 * The counts of a bulk change, its plan (what a confirmation shows and --dry-run prints), its
 * summary, and the exit code its results come to. Only numbers this run counted and reasons it
 * composed from sanitised text are shown.
 */

/** What one result makes of the exit code: 0 changed or skipped as asked; 4 not found or invalid; 5 refused; a failure its own. */
export function exitCodeOfResult(r: ChangeResult): ExitCodeValue {
  switch (r.outcome) {
    case 'SKIPPED':
      return r.reason === HAS_COMMENT ? ExitCode.FAILURE : ExitCode.OK;
    case 'CHANGED':
    case 'PLANNED':
      return ExitCode.OK;
    case 'NOT_FOUND':
    case 'INVALID':
      return ExitCode.NOT_FOUND;
    case 'REFUSED':
      return ExitCode.REJECTED;
    case 'CONFLICT':
    case 'CLAIMED':
      return ExitCode.FAILURE;
    case 'FAILED':
      // What the failure it recorded means, by the one status table (src/failures/), not decided here.
      return recordedExitCode(r);
  }
}

/** What the plan and the summary say of the events CLAIMED. */
const CLAIMED_WORDS = 'IN_REVIEW, held in a review session: not changed (--include-claimed changes them)';

/** Distinct reasons kept for the summary's groups; past this, they count as `other`. */
const MAX_GROUPS = 12;

function bump(map: Map<string, number>, key: string): void {
  if (!map.has(key) && map.size >= MAX_GROUPS) key = 'other';
  map.set(key, (map.get(key) ?? 0) + 1);
}

export class ChangeStats implements PoolStats, ProgressView {
  readonly outcomes: Record<ChangeOutcome, number> = {
    CHANGED: 0,
    PLANNED: 0,
    SKIPPED: 0,
    NOT_FOUND: 0,
    INVALID: 0,
    REFUSED: 0,
    FAILED: 0,
    CONFLICT: 0,
    CLAIMED: 0,
  };
  /** Changed (or planned) events by the state they were in. */
  readonly from = new Map<string, number>();
  /** Skipped events by reason (`already DECLINED`). */
  readonly skips = new Map<string, number>();
  /** The first ids not changed as asked, for the summary. */
  readonly firstProblems: string[] = [];
  /** Ids an earlier run (--resume) settled. */
  skipped = 0;
  /** Events skipped because they have a comment of their own (HAS_COMMENT): not changed as asked. */
  keptComment = 0;
  worst: ExitCodeValue = ExitCode.OK;
  private startedAt = performance.now();

  get done(): number {
    return Object.values(this.outcomes).reduce((a, b) => a + b, 0);
  }

  /** Ids not changed or skipped as asked. */
  get errors(): number {
    return this.done - this.outcomes.CHANGED - this.outcomes.PLANNED - this.outcomes.SKIPPED + this.keptComment;
  }

  add(r: ChangeResult): void {
    this.outcomes[r.outcome]++;
    if (r.outcome === 'CHANGED' || r.outcome === 'PLANNED') bump(this.from, r.from ?? '(none)');
    else if (r.outcome === 'SKIPPED') {
      bump(this.skips, r.reason ?? 'skipped');
      if (r.reason === HAS_COMMENT) this.keptComment++;
    } else if (this.firstProblems.length < 5) {
      const who = r.id === null ? r.where : `${terminalSafe(truncate(r.id, 100))}`;
      this.firstProblems.push(
        `${who}: ${r.outcome === 'NOT_FOUND' ? 'not found' : truncate(r.reason ?? r.outcome, 200)}`,
      );
    }
    this.worst = worse(this.worst, exitCodeOfResult(r));
  }

  start(): void {
    this.startedAt = performance.now();
  }

  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  rate(): number {
    const seconds = this.elapsedMs() / 1000;
    return seconds > 0 ? this.done / seconds : 0;
  }

  countsText(): string {
    const o = this.outcomes;
    const changed = o.PLANNED ? `to change ${count(o.PLANNED)}` : `changed ${count(o.CHANGED)}`;
    const errors = o.REFUSED + o.FAILED + o.CONFLICT + o.CLAIMED;
    const notFound = o.NOT_FOUND + o.INVALID;
    const { dot } = sym;
    const skipped = `skipped ${count(o.SKIPPED)}`;
    return `${changed} ${dot} ${skipped} ${dot} not found ${count(notFound)} ${dot} errors ${count(errors)}`;
  }
}

// Most first, then by name: ids settle in completion order, and the same run must read the same.
const list = (map: Map<string, number>) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0], 'en'))
    .map(([k, n]) => `${terminalSafe(truncate(k, 80))} ${count(n)}`)
    .join(` ${sym.dot} `);

/** The plan: how many will change, from which states, how many are passed over and why, not found, invalid. */
export function planText(stats: ChangeStats, target: string): string {
  const o = stats.outcomes;
  const lines = [`Plan: change ${count(o.PLANNED)} of ${count(stats.done)} events to ${terminalSafe(target)}`];
  if (o.PLANNED) lines.push(`  from       ${list(stats.from)}`);
  if (o.SKIPPED) lines.push(`  skipped    ${count(o.SKIPPED)}: ${list(stats.skips)}`);
  if (o.NOT_FOUND) lines.push(`  not found  ${count(o.NOT_FOUND)}`);
  if (o.INVALID) lines.push(`  invalid    ${count(o.INVALID)}`);
  if (o.CLAIMED) lines.push(`  claimed    ${count(o.CLAIMED)}: ${CLAIMED_WORDS}`);
  if (o.REFUSED + o.FAILED)
    lines.push(`  could not be read now ${count(o.REFUSED + o.FAILED)}: read again when the change runs`);
  if (stats.firstProblems.length) lines.push(...stats.firstProblems.map((p) => `  ${p}`));
  return lines.join('\n');
}

const STOP_TEXT: Record<StopReason, string> = {
  interrupted: 'interrupted: the ids in flight were finished, no new id was read',
  aborted: 'aborted at the second Ctrl-C: the ids in flight were left unrecorded',
  'max-errors': 'stopped after too many ids not changed',
  'retry-budget': 'stopped: the service kept failing and the retry budget is spent',
  auth: 'stopped: the service refused the API key',
  input: 'stopped: the ids could not be read to the end',
  'output-closed': 'stopped: stdout was closed',
  'wrong-input': 'stopped: the results file was written for other ids',
  'not-the-service': 'stopped: the URL does not answer as the fraud-screening service (check --base-url)',
  proxy:
    'stopped: the proxy failed (below), so the ids it failed did not reach the service: once it works, run the same command with --resume',
  'write-failed':
    'stopped: a file could not be written (below), so no change was sent after it; the ids in flight were finished',
};

export interface ChangeSummaryFacts {
  stats: ChangeStats;
  target: string;
  stopped: StopReason | null;
  results: string | null;
  retries: number;
  throttled: number;
  logProblem: string | null;
}

export function changeSummaryText(f: ChangeSummaryFacts): string {
  const s = f.stats;
  const o = s.outcomes;
  const pad = (n: number) => count(n).padStart(7);
  const lines = [
    `${f.stopped ? 'Set-state stopped' : 'Set-state done'}: ${plural(s.done, 'id', 'ids')} in ${(s.elapsedMs() / 1000).toFixed(1)} s${s.skipped ? `, ${count(s.skipped)} already done by the earlier run` : ''}`,
    `  changed   ${pad(o.CHANGED)}${o.CHANGED ? `   to ${terminalSafe(f.target)}, from ${list(s.from)}` : ''}`,
  ];
  if (o.SKIPPED) lines.push(`  skipped   ${pad(o.SKIPPED)}   ${list(s.skips)}`);
  if (o.NOT_FOUND) lines.push(`  not found ${pad(o.NOT_FOUND)}`);
  if (o.INVALID) lines.push(`  invalid   ${pad(o.INVALID)}`);
  if (o.REFUSED) lines.push(`  refused   ${pad(o.REFUSED)}`);
  if (o.CONFLICT) lines.push(`  conflict  ${pad(o.CONFLICT)}   changed by someone else since the plan: not sent`);
  if (o.CLAIMED) lines.push(`  claimed   ${pad(o.CLAIMED)}   ${CLAIMED_WORDS}`);
  if (o.FAILED) lines.push(`  failed    ${pad(o.FAILED)}${f.results ? '   --resume tries them again' : ''}`);
  if (f.retries || f.throttled)
    lines.push(
      `  retries   ${pad(f.retries)}${f.throttled ? ` (${count(f.throttled)} answers asked to slow down)` : ''}`,
    );
  if (f.results) lines.push(`  results   ${terminalSafe(f.results)}`);
  if (f.logProblem) lines.push(`  log       ${f.logProblem}`);
  if (s.firstProblems.length) {
    lines.push(
      s.errors > s.firstProblems.length
        ? `First ${s.firstProblems.length} of ${count(s.errors)} ids not changed:`
        : 'Ids not changed:',
    );
    for (const p of s.firstProblems) lines.push(`  ${p}`);
  }
  if (f.stopped) lines.push(STOP_TEXT[f.stopped]);
  return lines.join('\n');
}

export function changeSummaryJson(f: ChangeSummaryFacts): Record<string, unknown> {
  const s = f.stats;
  const o = s.outcomes;
  return {
    ids: s.done,
    to: f.target,
    changed: o.CHANGED,
    skipped: o.SKIPPED,
    notFound: o.NOT_FOUND,
    invalid: o.INVALID,
    refused: o.REFUSED,
    failed: o.FAILED,
    conflict: o.CONFLICT,
    claimed: o.CLAIMED,
    ...(o.PLANNED ? { planned: o.PLANNED } : {}),
    resumedSkipped: s.skipped,
    from: Object.fromEntries(s.from),
    skips: Object.fromEntries(s.skips),
    elapsedMs: Math.round(s.elapsedMs()),
    retries: f.retries,
    throttled: f.throttled,
    stopped: f.stopped,
    results: f.results,
  };
}
