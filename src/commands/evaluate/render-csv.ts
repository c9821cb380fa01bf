import { stringify } from 'csv-stringify/sync';
import { ACTION_TYPES } from '../../contract/decision.js';
import type { CsvFigure } from './options.js';
import type { EvaluationReport } from './report.js';
import { shiftRows } from './figures/replay.js';

/*
 * `--csv FIGURE`: one figure as RFC 4180 rows for a spreadsheet, the same numbers as --json
 * (empty for a null: a rate of nothing). Cells from the files (ids, rule ids) are quoted by
 * csv-stringify; one starting with = + - @ is prefixed with ' so that a spreadsheet does not run it.
 */

const cellOf = (value: unknown): unknown =>
  typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : (value ?? '');

function table(head: string[], rows: unknown[][]): string {
  return stringify([head, ...rows.map((row) => row.map(cellOf))], { record_delimiter: '\r\n' });
}

export function renderCsv(report: EvaluationReport, figure: CsvFigure): string {
  switch (figure) {
    case 'decisions':
      return table(
        ['decision', 'fraud', 'legit', 'unknown', 'fraudAmount', 'legitAmount', 'unknownAmount'],
        ACTION_TYPES.map((a) => {
          const c = report.decisions[a];
          return [a, c.fraud, c.legit, c.unknown, c.fraudAmount, c.legitAmount, c.unknownAmount];
        }),
      );
    case 'rules':
      return table(
        [
          'rule',
          'hits',
          'fraudHits',
          'legitHits',
          'unknownHits',
          'precision',
          'recall',
          'onlyRule',
          'fraudAmount',
          'firesWith',
        ],
        report.rules.map((r) => [
          r.rule,
          r.hits,
          r.fraudHits,
          r.legitHits,
          r.unknownHits,
          r.precision,
          r.recall,
          r.onlyRule,
          r.fraudAmount,
          r.firesWith.map((w) => `${w.rule}:${w.count}`).join(' '),
        ]),
      );
    case 'sweep':
      return table(
        [
          'threshold',
          'flagged',
          'fraudFlagged',
          'legitFlagged',
          'unknownFlagged',
          'precision',
          'recall',
          'falsePositiveRate',
          'approvalRate',
          'fraudAmountCaught',
          'current',
        ],
        report.sweep.map((p) => [
          p.threshold,
          p.flagged,
          p.fraudFlagged,
          p.legitFlagged,
          p.unknownFlagged,
          p.precision,
          p.recall,
          p.falsePositiveRate,
          p.approvalRate,
          p.fraudAmountCaught,
          p.current,
        ]),
      );
    case 'over-time':
      return table(
        ['start', 'events', 'APPROVE', 'REVIEW', 'DECLINE', 'fraud', 'fraudRate'],
        (report.overTime?.periods ?? []).map((p) => [
          p.start,
          p.events,
          p.APPROVE,
          p.REVIEW,
          p.DECLINE,
          p.fraud,
          p.fraudRate,
        ]),
      );
    case 'shift':
      return table(
        ['from', 'to', 'count', 'fraud', 'legit', 'unknown', 'amount'],
        report.replay
          ? shiftRows(report.replay.shift).map(({ from, to, cell }) => [
              from,
              to,
              cell.count,
              cell.fraud,
              cell.legit,
              cell.unknown,
              cell.amount,
            ])
          : [],
      );
  }
}
