import type { FailureKind } from '../../failures/failure-kind.js';
import type { EvaluatedEvent } from './figures/evaluated-event.js';
import { MatrixTally, matrixSummary, type DecisionMatrix, type MatrixSummary } from './figures/matrix.js';
import { RuleTally, type RuleFigure } from './figures/per-rule.js';
import { SweepTally, type SweepPoint, type Thresholds } from './figures/sweep.js';
import { TimeTally, type Period, type PeriodFigure } from './figures/over-time.js';
import type { ReplayReport } from './figures/replay.js';
import { FRAUD_BIT, LISTED_BIT, SEEN_BIT, type Outcomes } from './read-outcomes.js';
import type { BaseCurrencySource, CompleteFacts, ResultsCounts } from './read-results.js';
import type { Unread } from './read-events.js';

/*
 * The report: every figure, folded as the events stream in, and what was left out and why. It is
 * what `--json` prints and what the terminal, CSV and HTML renderings draw, so the four agree.
 */

export interface EvaluationReport {
  /** False when some events could not be read: the figures leave them out. */
  complete: boolean;
  events: {
    evaluated: number;
    fraud: number;
    /** Not declined, no fraud reported. */
    noFraudReported: number;
    /** Declined, no fraud reported: no chargeback could come. */
    unknowable: number;
    /** Younger than --maturity: left out. */
    young: number;
    notDecided: number;
    repeated: number;
    /** Events read from the service for what their lines lacked (0: none was read). */
    read: number;
    cutOff: number;
    unread: {
      count: number;
      byKind: Partial<Record<FailureKind | 'incomplete', number>>;
      events: { id: string; where: string; reason: string }[];
    };
    /** Ids the outcomes file lists that no result names. */
    labelsWithoutResult: { count: number; ids: string[] };
  };
  outcomes: { file: string; rows: number; fraud: number; read: Outcomes['mode']; idColumn: string };
  maturityDays: number | null;
  /** The service's base currency, every amount's: given (--base-currency) or said by one event's summary. */
  baseCurrency: BaseCurrencySource | null;
  thresholds: Thresholds;
  summary: MatrixSummary;
  decisions: DecisionMatrix;
  rules: RuleFigure[];
  sweep: SweepPoint[];
  overTime: { by: Period; periods: PeriodFigure[] } | null;
  replay: ReplayReport | null;
}

/** The figures of one set of decisions, as a replay needs them twice. */
export interface Figures {
  decisions: DecisionMatrix;
  summary: MatrixSummary;
  rules: RuleFigure[];
  sweep: SweepPoint[];
}

export class FigureTallies {
  readonly matrix = new MatrixTally();
  readonly rules: RuleTally;
  readonly sweep = new SweepTally();

  constructor(knownRules: Iterable<string> = []) {
    this.rules = new RuleTally(knownRules);
  }

  add(event: EvaluatedEvent): void {
    this.matrix.add(event);
    this.rules.add(event);
    this.sweep.add(event);
  }

  figures(thresholds: Thresholds): Figures {
    const decisions = this.matrix.matrix();
    return {
      decisions,
      summary: matrixSummary(decisions),
      rules: this.rules.figures(),
      sweep: this.sweep.points(thresholds),
    };
  }
}

export class ReportTally {
  private readonly tallies = new FigureTallies();
  private readonly time: TimeTally | null;
  private young = 0;
  private readonly cutoff: number;

  constructor(
    private readonly outcomes: Outcomes,
    private readonly options: { maturityMs: number | null; by: Period | null; thresholds: Thresholds; now: number },
    /** Each event that is evaluated, for a replay. */
    private readonly onEvent?: (event: EvaluatedEvent) => void,
  ) {
    this.time = options.by ? new TimeTally(options.by) : null;
    this.cutoff = options.maturityMs === null ? Number.POSITIVE_INFINITY : options.now - options.maturityMs;
  }

  add(facts: CompleteFacts): void {
    const bits = this.outcomes.ids.get(facts.id);
    if (facts.date > this.cutoff) {
      this.young++;
      return;
    }
    const event: EvaluatedEvent = { ...facts, fraud: bits !== undefined && (bits & FRAUD_BIT) !== 0 };
    this.tallies.add(event);
    this.time?.add(event);
    this.onEvent?.(event);
  }

  report(
    file: string,
    counts: ResultsCounts,
    unread: readonly Unread[],
    replay: ReplayReport | null,
    reading: { baseCurrency: BaseCurrencySource | null; read: number } = { baseCurrency: null, read: 0 },
  ): EvaluationReport {
    const figures = this.tallies.figures(this.options.thresholds);
    const { decisions, summary } = figures;
    const without: string[] = [];
    for (const [id, bits] of this.outcomes.ids) if (bits & LISTED_BIT && !(bits & SEEN_BIT)) without.push(id);
    const byKind: EvaluationReport['events']['unread']['byKind'] = {};
    for (const u of unread) byKind[u.kind] = (byKind[u.kind] ?? 0) + 1;
    return {
      complete: unread.length === 0,
      events: {
        evaluated: summary.events,
        fraud: summary.fraud,
        noFraudReported: decisions.APPROVE.legit + decisions.REVIEW.legit,
        unknowable: decisions.DECLINE.unknown,
        young: this.young,
        notDecided: counts.notDecided,
        repeated: counts.repeated,
        read: reading.read,
        cutOff: counts.cutOff,
        unread: {
          count: unread.length,
          byKind,
          events: unread.map(({ id, where, reason }) => ({ id, where, reason })),
        },
        labelsWithoutResult: { count: without.length, ids: without },
      },
      outcomes: {
        file,
        rows: this.outcomes.rows,
        fraud: this.outcomes.fraud,
        read: this.outcomes.mode,
        idColumn: this.outcomes.idColumn,
      },
      maturityDays: this.options.maturityMs === null ? null : this.options.maturityMs / 86_400_000,
      baseCurrency: reading.baseCurrency,
      thresholds: this.options.thresholds,
      summary,
      decisions,
      rules: figures.rules,
      sweep: figures.sweep,
      overTime: this.time && this.options.by ? { by: this.options.by, periods: this.time.figures() } : null,
      replay,
    };
  }
}
