import type { ProgressView } from '../batch/batch-progress.js';
import { count as grouped } from '../render/counts.js';
import type { LineResult, Outcome } from '../results-file/submit-result.js';
import { sym } from '../render/symbols.js';

/*
 * Running counts of a batch, for the progress display and the summary. Latencies go into a
 * histogram of whole milliseconds (fixed size, so memory stays flat over a million lines);
 * percentiles are read from it exactly to the millisecond, which is what the summary prints.
 */

const HISTOGRAM_MAX_MS = 120_000;

export interface Problem {
  /** Where the record starts: with the column, what tells apart records that start on one line (`[1,2]`). */
  line: number;
  column: number;
  reason: string;
}

export class BatchStats implements ProgressView {
  readonly outcomes: Record<Outcome, number> = { DECIDED: 0, REJECTED: 0, FAILED: 0, UNKNOWN: 0 };
  readonly actionTypes = new Map<string, number>();
  readonly errorTypes = new Map<string, number>();
  /** The first few lines without a decision, with the reason, for the summary. */
  readonly firstProblems: Problem[] = [];
  /** Lines skipped because an earlier run (--resume) already settled them. */
  skipped = 0;
  private startedAt = performance.now();
  private readonly latencies = new Uint32Array(HISTOGRAM_MAX_MS + 1);
  private latencyCount = 0;

  get done(): number {
    return this.outcomes.DECIDED + this.outcomes.REJECTED + this.outcomes.FAILED + this.outcomes.UNKNOWN;
  }

  /** Lines that got no decision. */
  get errors(): number {
    return this.done - this.outcomes.DECIDED;
  }

  count(action: string): number {
    return this.actionTypes.get(action) ?? 0;
  }

  /** The counts the progress display shows. */
  countsText(): string {
    return `APPROVE ${grouped(this.count('APPROVE'))} ${sym.dot} REVIEW ${grouped(this.count('REVIEW'))} ${sym.dot} DECLINE ${grouped(this.count('DECLINE'))} ${sym.dot} errors ${grouped(this.errors)}`;
  }

  add(result: LineResult, reason: string | undefined): void {
    this.outcomes[result.outcome]++;
    if (result.outcome === 'DECIDED') {
      const action = result.actionType ?? '(none)';
      this.actionTypes.set(action, this.count(action) + 1);
    } else {
      const type = result.errorType ?? 'UNKNOWN_OUTCOME';
      this.errorTypes.set(type, (this.errorTypes.get(type) ?? 0) + 1);
      if (this.firstProblems.length < 5)
        this.firstProblems.push({ line: result.line, column: result.column, reason: reason ?? type });
    }
    if (result.attempts > 0) {
      this.latencies[Math.min(HISTOGRAM_MAX_MS, Math.max(0, result.latencyMs))]!++;
      this.latencyCount++;
    }
  }

  /** The clock starts here: when the first line is taken, not while the client was set up. */
  start(): void {
    this.startedAt = performance.now();
  }

  elapsedMs(now = performance.now()): number {
    return now - this.startedAt;
  }

  /** Lines settled per second since the start (skipped lines not counted). */
  rate(now = performance.now()): number {
    const seconds = this.elapsedMs(now) / 1000;
    return seconds > 0 ? this.done / seconds : 0;
  }

  /** The q-quantile (0..1) of the lines' latencies in ms, or null before any line was sent. */
  percentile(q: number): number | null {
    if (this.latencyCount === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.latencyCount));
    let seen = 0;
    for (let ms = 0; ms <= HISTOGRAM_MAX_MS; ms++) {
      seen += this.latencies[ms]!;
      if (seen >= rank) return ms;
    }
    return HISTOGRAM_MAX_MS;
  }
}
