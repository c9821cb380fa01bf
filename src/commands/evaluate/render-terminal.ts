import { ACTION_TYPES } from '../../contract/decision.js';
import { colourLevel, createStyle, type Style } from '../../render/colours.js';
import { count, plural } from '../../render/counts.js';
import { localeIsUtf8, sym, symbolsFor } from '../../render/symbols.js';
import { createTable, tableText } from '../../render/tables.js';
import { terminalSafe, truncate } from '../../render/terminal-text.js';
import { displayWidth } from '../../render/display-width.js';
import type { EvaluateDeps } from './deps.js';
import type { EvaluateOptions } from './options.js';
import type { EvaluationReport } from './report.js';
import { shiftRows } from './figures/replay.js';
import type { SweepPoint } from './figures/sweep.js';
import { barChart, lineChart, type ChartLook } from './terminal-charts.js';

/*
 * The report for a person: on a terminal, tables fitted to its width with charts beside them
 * (the sweep's precision and recall, fraud per rule, the time series); off one, the tables
 * only. Colour follows --no-color, NO_COLOR and the terminal; the marks follow the locale.
 * Every id and rule name comes from a file or the service: terminalSafe before it is shown.
 */

let moneyFormat: Intl.NumberFormat | undefined;
const money = (n: number) =>
  (moneyFormat ??= new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })).format(n);
const percent = (r: number | null, style: Style) => (r === null ? style.dim(sym.dash) : `${(r * 100).toFixed(1)}%`);
const safe = (s: string, max = 60) => terminalSafe(truncate(s, max));

type Align = 'left' | 'right';

/**
 * A table that fits the terminal: whole when it does; otherwise its columns in groups that do,
 * one table under the other, each led by the first column, so that no figure is cut. A group
 * still too wide (one long column) is fitted by tableText (its free text wraps).
 */
function fittedTable(
  style: Style,
  head: readonly string[],
  rows: readonly string[][],
  aligns: readonly Align[],
): string {
  const render = (columns: readonly number[]) => {
    const table = createTable(
      columns.map((i) => head[i]!),
      style,
      columns.map((i) => aligns[i]!),
    );
    for (const row of rows) table.push(columns.map((i) => row[i]!));
    return table;
  };
  const widthOf = (columns: readonly number[]) => displayWidth(render(columns).toString().split('\n')[0]!);
  const all = head.map((_, i) => i);
  if (style.columns === null || widthOf(all) <= style.columns) return render(all).toString();
  const groups: number[][] = [];
  let group = [0];
  for (const i of all.slice(1)) {
    if (group.length > 1 && widthOf([...group, i]) > style.columns) {
      groups.push(group);
      group = [0, i];
    } else group.push(i);
  }
  groups.push(group);
  return groups.map((g) => tableText(render(g), style)).join('\n');
}

/** Thresholds shown in the terminal's sweep table: every tenth, and the service's own. */
function sweepRows(sweep: readonly SweepPoint[]): SweepPoint[] {
  return sweep.filter((p) => p.threshold % 10 === 0 || p.current !== null);
}

export function renderTerminal(
  report: EvaluationReport,
  options: Pick<EvaluateOptions, 'noColor'>,
  deps: Pick<EvaluateDeps, 'stdout' | 'env' | 'platform'>,
): string {
  const style = createStyle(
    colourLevel({ flagNoColor: options.noColor, env: deps.env, isTTY: deps.stdout.isTTY }),
    deps.stdout.columns,
  );
  const look: ChartLook | null = deps.stdout.isTTY
    ? { columns: deps.stdout.columns ?? 80, ascii: !localeIsUtf8(deps.env, deps.platform), colour: style.level > 0 }
    : null;
  const out: string[] = [];
  const { events, summary } = report;

  // What was evaluated, and everything left out, before any figure.
  out.push(
    `${style.bold('Evaluated')} ${plural(events.evaluated, 'event', 'events')} ${sym.dot} ` +
      `fraud reported ${count(events.fraud)} (${percent(summary.fraudRate, style)}) ${sym.dot} ` +
      `no fraud reported ${count(events.noFraudReported)} ${sym.dot} ` +
      `declined, unknowable ${count(events.unknowable)} ` +
      `${sym.dot} amounts in ${report.baseCurrency ? safe(report.baseCurrency.code) : 'the base currency'}`,
  );
  if (events.read > 0)
    out.push(`read from the service: ${plural(events.read, 'event', 'events')} (what their lines did not record)`);
  const leftOut = [
    events.young > 0
      ? `${count(events.young)} younger than ${report.maturityDays} days (--maturity: their chargebacks may still come)`
      : null,
    events.notDecided > 0 ? `${count(events.notDecided)} without a decision (rejected, failed, unknown)` : null,
    events.repeated > 0 ? `${count(events.repeated)} named again (counted once)` : null,
    events.cutOff > 0 ? `${count(events.cutOff)} cut-off last line` : null,
  ].filter((x) => x !== null);
  if (leftOut.length > 0) out.push(`left out: ${leftOut.join(`; `)}`);
  if (events.unread.count > 0) {
    const shown = events.unread.events.slice(0, 5).map((u) => `${safe(u.id, 40)} (${safe(u.reason, 80)})`);
    out.push(
      style.decline(
        `INCOMPLETE: ${plural(events.unread.count, 'event', 'events')} could not be read and are not in the figures: `,
      ) +
        shown.join(', ') +
        (events.unread.count > 5 ? `, ${sym.ellipsis}` : ''),
    );
  }
  if (events.labelsWithoutResult.count > 0) {
    const ids = events.labelsWithoutResult.ids.slice(0, 5).map((id) => safe(id, 40));
    out.push(
      `${plural(events.labelsWithoutResult.count, 'id', 'ids')} of ${safe(report.outcomes.file)} with no result: ` +
        `${ids.join(', ')}${events.labelsWithoutResult.count > 5 ? `, ${sym.ellipsis}` : ''}`,
    );
  }

  out.push('', style.heading('Decisions and outcomes'));
  const matrix = ACTION_TYPES.map((a) => {
    const c = report.decisions[a];
    const declined = a === 'DECLINE';
    return [
      style.action(a, a),
      count(c.fraud + c.legit + c.unknown),
      count(c.fraud),
      declined ? `${count(c.unknown)} unknowable` : count(c.legit),
      money(c.fraudAmount),
      declined ? `${money(c.unknownAmount)} unknowable` : money(c.legitAmount),
    ];
  });
  out.push(
    fittedTable(
      style,
      ['decision', 'events', 'fraud', 'no fraud reported', 'fraud amount', 'no-fraud amount'],
      matrix,
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
  );
  const s = summary;
  out.push(
    `fraud declined ${count(s.fraudDeclined.count)} (${money(s.fraudDeclined.amount)}) ${sym.dot} ` +
      `in review ${count(s.fraudInReview.count)} (${money(s.fraudInReview.amount)}) ${sym.dot} ` +
      `let through ${count(s.fraudLetThrough.count)} (${money(s.fraudLetThrough.amount)})`,
    `good customers declined: at most ${count(s.declinedNotReported.count)} ` +
      `(${money(s.declinedNotReported.amount)}): ` +
      'a declined event gets no chargeback, so which were good cannot be known',
    `review load ${count(s.reviewLoad.count)} (${percent(s.reviewLoad.share, style)} of events)`,
  );

  out.push('', style.heading('Rules'));
  if (report.rules.length === 0) out.push('no rule matched any event');
  else {
    const rules = report.rules.map((r) => {
      const withs = r.firesWith
        .slice(0, 2)
        .map((w) => `${safe(w.rule, 30)} ${count(w.count)}`)
        .join(', ');
      return [
        safe(r.rule),
        count(r.hits),
        count(r.fraudHits),
        percent(r.precision, style),
        percent(r.recall, style),
        count(r.onlyRule),
        withs || style.dim(sym.dash),
      ];
    });
    out.push(
      fittedTable(style, ['rule', 'hits', 'fraud', 'precision', 'recall', 'only rule', 'fires with'], rules, [
        'left',
        'right',
        'right',
        'right',
        'right',
        'right',
        'left',
      ]),
    );
    if (look) {
      out.push(`fraud hits (${symbolsFor(look.ascii).barDone}) of all hits, per rule:`);
      out.push(
        barChart(
          report.rules.map((r) => ({
            label: safe(r.rule, 24),
            part: r.fraudHits,
            whole: r.hits,
            figure: `${count(r.fraudHits)}/${count(r.hits)}`,
          })),
          look,
          { part: style.decline },
        ),
      );
    }
    out.push(
      'precision counts hits whose outcome can be known (declined events without a report are left out); ' +
        'only rule: fraud no other rule matched',
    );
  }

  out.push('', style.heading('Score sweep: flag at score >= threshold'));
  if (look) {
    const percents = (values: (number | null)[]) => values.map((v) => (v === null ? null : v * 100));
    const precision = { name: 'precision', values: percents(report.sweep.map((p) => p.precision)) };
    const recall = { name: 'recall', values: percents(report.sweep.map((p) => p.recall)) };
    const chart = (series: (typeof precision)[], height: number) =>
      lineChart(series, look, {
        height,
        min: 0,
        max: 100,
        label: (y) => `${y.toFixed(0)}%`,
        xAxis: (from, to) => `threshold ${from} ${sym.dash} ${to}`,
      });
    // Without colour two lines on one chart cannot be told apart: one chart each.
    if (look.colour) out.push(chart([precision, recall], 10));
    else out.push(chart([precision], 6), chart([recall], 6));
  }
  const sweep = sweepRows(report.sweep).map((p) => {
    const mark = p.current === null ? '' : ` ${sym.left} ${p.current}`;
    return [
      `${p.threshold}${mark}`,
      count(p.flagged),
      percent(p.precision, style),
      percent(p.recall, style),
      percent(p.falsePositiveRate, style),
      percent(p.approvalRate, style),
      money(p.fraudAmountCaught),
    ];
  });
  out.push(
    fittedTable(
      style,
      ['threshold', 'flagged', 'precision', 'recall', 'false pos.', 'approved', 'fraud caught'],
      sweep,
      ['right', 'right', 'right', 'right', 'right', 'right', 'right'],
    ),
  );
  out.push(
    `every threshold 0${sym.dash}100: --json (sweep) or --csv sweep; ${sym.left} marks the service's thresholds ` +
      `(--thresholds ${report.thresholds.review},${report.thresholds.decline})`,
  );

  if (report.overTime) {
    const periods = report.overTime.periods;
    out.push('', style.heading(`Over time, by ${report.overTime.by} (UTC)`));
    if (look && periods.length > 1) {
      out.push(
        lineChart(
          [{ name: 'fraud rate', values: periods.map((p) => (p.fraudRate === null ? null : p.fraudRate * 100)) }],
          look,
          {
            height: 6,
            label: (y) => `${y.toFixed(1)}%`,
            xAxis: (from, to) => `${periods[from]!.start} ${sym.dash} ${periods[to]!.start}`,
          },
        ),
      );
      out.push(
        lineChart([{ name: 'events', values: periods.map((p) => p.events) }], look, {
          height: 6,
          label: (y) => count(y),
          xAxis: (from, to) => `${periods[from]!.start} ${sym.dash} ${periods[to]!.start}`,
        }),
      );
    }
    const time = periods.map((p) => [
      p.start,
      count(p.events),
      count(p.APPROVE),
      count(p.REVIEW),
      count(p.DECLINE),
      count(p.fraud),
      percent(p.fraudRate, style),
    ]);
    out.push(
      fittedTable(style, [report.overTime.by, 'events', 'APPROVE', 'REVIEW', 'DECLINE', 'fraud', 'fraud rate'], time, [
        'left',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
      ]),
    );
  }

  if (report.replay) {
    const r = report.replay;
    out.push('', style.heading(`What if: ${safe(r.candidate)}`));
    out.push(
      `${plural(r.changed, 'decision changes', 'decisions change')} of ${plural(r.events, 'event', 'events')} ` +
        `replayed ${sym.dot} ${r.velocityNote}`,
    );
    if (r.unread > 0)
      out.push(
        style.decline(
          r.payloads === 'files'
            ? `${plural(r.unread, 'event', 'events')} not in the --events files (or not scorable), and not replayed`
            : `${plural(r.unread, 'event', 'events')} could not be read or scored, and are not replayed`,
        ),
      );
    const shift = shiftRows(r.shift).map(({ from, to, cell }) => [
      `${style.action(from, from)} ${sym.arrow} ${style.action(to, to)}`,
      count(cell.count),
      count(cell.fraud),
      count(cell.legit),
      count(cell.unknown),
      money(cell.amount),
    ]);
    out.push(
      fittedTable(
        style,
        [`today ${sym.arrow} candidate`, 'events', 'fraud', 'no fraud reported', 'unknowable', 'amount'],
        shift,
        ['left', 'right', 'right', 'right', 'right', 'right'],
      ),
    );
    const t = r.today.summary;
    const c = r.candidateFigures.summary;
    const side = [
      ['fraud declined', count(t.fraudDeclined.count), count(c.fraudDeclined.count)],
      ['fraud in review', count(t.fraudInReview.count), count(c.fraudInReview.count)],
      ['fraud let through', count(t.fraudLetThrough.count), count(c.fraudLetThrough.count)],
      ['declined, no fraud reported', count(t.declinedNotReported.count), count(c.declinedNotReported.count)],
      ['review load', count(t.reviewLoad.count), count(c.reviewLoad.count)],
    ];
    const at = (p: typeof r.today.sweep, t: number) => p[t]!;
    const { review, decline } = report.thresholds;
    side.push(
      [
        `precision at ${review}`,
        percent(at(r.today.sweep, review).precision, style),
        percent(at(r.candidateFigures.sweep, review).precision, style),
      ],
      [
        `recall at ${review}`,
        percent(at(r.today.sweep, review).recall, style),
        percent(at(r.candidateFigures.sweep, review).recall, style),
      ],
      [
        `precision at ${decline}`,
        percent(at(r.today.sweep, decline).precision, style),
        percent(at(r.candidateFigures.sweep, decline).precision, style),
      ],
    );
    out.push(fittedTable(style, ['', 'today', 'candidate'], side, ['left', 'right', 'right']));
    const ruleRows = r.candidateFigures.rules.map((c2) => {
      const t2 = r.today.rules.find((x) => x.rule === c2.rule);
      return [
        safe(c2.rule),
        t2 ? count(t2.hits) : sym.dash,
        count(c2.hits),
        t2 ? percent(t2.precision, style) : sym.dash,
        percent(c2.precision, style),
        percent(c2.recall, style),
      ];
    });
    out.push(
      fittedTable(
        style,
        ['rule', 'hits today', 'hits candidate', 'precision today', 'precision candidate', 'recall candidate'],
        ruleRows,
        ['left', 'right', 'right', 'right', 'right', 'right'],
      ),
    );
  }
  return `${out.join('\n')}\n`;
}
