import { shellCommand } from '../render/shell-command.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import type { BatchStats } from './batch-stats.js';
import { count, plural } from '../render/counts.js';
import type { StopReason } from '../batch/run-pool.js';
import { sym } from '../render/symbols.js';

/*
 * The closing account of a batch: what was decided, what was not and why, how fast, and where
 * the results are. As text for people, or as one JSON object (--json) for scripts.
 */

export interface SummaryFacts {
  stats: BatchStats;
  stopped: StopReason | null;
  results: string | null;
  rejects: string | null;
  /** Lines of the rejects file that may be stored (UNKNOWN): this run's and an earlier run's (default: this run's). */
  rejectsUnknown?: number;
  retries: number;
  throttled: number;
  /** Lines an earlier run already settled (--resume). */
  resumed: boolean;
  /** The flags of this run that choose the service, for the command that sends the rejects again. */
  serviceFlags: readonly string[];
}

const STOP_TEXT: Record<StopReason, string> = {
  interrupted: 'interrupted: lines in flight were finished, no new line was read',
  aborted: 'aborted at the second Ctrl-C: lines in flight were left unrecorded',
  'max-errors': 'stopped after --max-errors lines without a decision',
  'retry-budget': 'stopped: the service kept failing and the retry budget is spent',
  auth: 'stopped: the service refused the API key',
  input: 'stopped: the input could not be read to the end',
  'output-closed': 'stopped: stdout was closed',
  'wrong-input': 'stopped: the results file was written for another input',
  'not-the-service': 'stopped: the URL does not answer as the fraud-screening service (check --base-url)',
  proxy:
    'stopped: the proxy failed (below), so the lines it failed did not reach the service: once it works, run the same command with --resume',
  'write-failed': 'stopped: a file could not be written (below); the lines in flight were finished',
};

const sortedEntries = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]);

export function summaryJson(f: SummaryFacts): Record<string, unknown> {
  const s = f.stats;
  return {
    lines: s.done,
    decided: s.outcomes.DECIDED,
    rejected: s.outcomes.REJECTED,
    failed: s.outcomes.FAILED,
    unknown: s.outcomes.UNKNOWN,
    skipped: s.skipped,
    actionTypes: Object.fromEntries(sortedEntries(s.actionTypes)),
    errorTypes: Object.fromEntries(sortedEntries(s.errorTypes)),
    elapsedMs: Math.round(s.elapsedMs()),
    eventsPerSecond: hasRate(s) ? Math.round(s.rate()) : null,
    latencyMs: { p50: s.percentile(0.5), p95: s.percentile(0.95), p99: s.percentile(0.99) },
    retries: f.retries,
    throttled: f.throttled,
    stopped: f.stopped,
    results: f.results,
    rejects: f.rejects,
  };
}

/** A rate over less than a tenth of a second says more about the clock than the batch: none is given. */
const MIN_RATE_MS = 100;
const hasRate = (s: BatchStats) => s.elapsedMs() >= MIN_RATE_MS;

export function summaryText(f: SummaryFacts): string {
  const s = f.stats;
  const pad = (n: number) => count(n).padStart(9);
  const list = (map: Map<string, number>) =>
    sortedEntries(map)
      .map(([k, n]) => `${terminalSafe(truncate(k, 40))} ${count(n)}`)
      .join(` ${sym.dot} `);
  const ms = (v: number | null) => (v === null ? sym.dash : `${count(v)} ms`);
  const lines = [
    // Counted are the input's records, each an event (a line of JSON Lines, a value of any other layout), not its lines.
    `${f.stopped ? 'Batch stopped' : 'Batch done'}: ${plural(s.done, 'event', 'events')} ${hasRate(s) ? `in ${(s.elapsedMs() / 1000).toFixed(1)} s (${count(s.rate())} events/s)` : 'in less than 0.1 s'}${s.skipped ? `, ${count(s.skipped)} already done by the earlier run` : ''}`,
    `  decided  ${pad(s.outcomes.DECIDED)}   ${list(s.actionTypes)}`,
  ];
  const errorTypes = list(s.errorTypes);
  if (s.outcomes.REJECTED) lines.push(`  rejected ${pad(s.outcomes.REJECTED)}`);
  if (s.outcomes.FAILED) lines.push(`  failed   ${pad(s.outcomes.FAILED)}`);
  if (s.outcomes.UNKNOWN)
    lines.push(
      `  unknown  ${pad(s.outcomes.UNKNOWN)}   sent, and whether they were stored cannot be told (no id, or no answer from the service itself): check them`,
    );
  if (errorTypes) lines.push(`  errors     ${errorTypes}`);
  lines.push(
    `  latency    p50 ${ms(s.percentile(0.5))} ${sym.dot} p95 ${ms(s.percentile(0.95))} ${sym.dot} p99 ${ms(s.percentile(0.99))}`,
  );
  if (f.retries || f.throttled)
    lines.push(
      `  retries    ${count(f.retries)}${f.throttled ? ` (${count(f.throttled)} answers asked to slow down)` : ''}`,
    );
  if (f.results) lines.push(`  results    ${terminalSafe(f.results)}`);
  if (f.rejects && s.errors) {
    lines.push(`  rejects    ${terminalSafe(f.rejects)} (the events without a decision, as they were)`);
    // The command only when sending the file again cannot store an event twice (no unknown
    // outcome among them) and the file is all that is left (the batch read its whole input).
    const unknown = f.rejectsUnknown ?? s.outcomes.UNKNOWN;
    const check = 'may have been stored (unknown): check those before sending the file again';
    if (unknown > 0) lines.push(`             ${count(unknown)} of them ${check}`);
    else if (!f.stopped)
      lines.push(
        `             to send them again: ${terminalSafe(shellCommand(['fraudctl', 'submit', f.rejects, ...f.serviceFlags]))}`,
      );
  }
  if (s.firstProblems.length) {
    lines.push(
      s.errors > s.firstProblems.length
        ? `First ${s.firstProblems.length} of ${count(s.errors)} events without a decision:`
        : 'Events without a decision:',
    );
    // Named as --resume names them: the line, and the column when the record does not start the line.
    for (const p of s.firstProblems)
      lines.push(
        `  line ${p.line}${p.column > 1 ? ` column ${p.column}` : ''}: ${terminalSafe(truncate(p.reason, 200))}`,
      );
  }
  if (f.stopped) {
    lines.push(STOP_TEXT[f.stopped]);
    if (
      f.results &&
      f.stopped !== 'auth' &&
      f.stopped !== 'input' &&
      f.stopped !== 'wrong-input' &&
      f.stopped !== 'not-the-service' &&
      f.stopped !== 'proxy' &&
      f.stopped !== 'write-failed'
    )
      lines.push(`Continue later with the same command and --resume.`);
  }
  return lines.join('\n');
}
