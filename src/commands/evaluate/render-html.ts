import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { CliError } from '../../errors/cli-error.js';
import { fileWriteFailure } from '../../files/file-errors.js';
import { ACTION_TYPES } from '../../contract/decision.js';
import type { EvaluationReport } from './report.js';
import { shiftRows } from './figures/replay.js';

/*
 * `--html FILE`: the report as one self-contained page. The charts are SVG drawn here in Node
 * (Vega-Lite compiled to Vega, rendered by Vega's own SVG renderer: no DOM, no browser), the
 * tables plain HTML, the style inline; no script runs and nothing is fetched when it opens, so
 * it reads offline, without JavaScript, and prints. The figures are the --json report's, also
 * kept whole in the page as a JSON data block for a tool. Written to a temporary file beside
 * the target and renamed over it: a run that fails leaves no half-written page.
 */

type Spec = Record<string, unknown>;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const pct = (r: number | null) => (r === null ? '–' : `${(r * 100).toFixed(1)}%`);
const num = (n: number) => n.toLocaleString('en-US');
const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

async function svgOf(spec: Spec): Promise<string> {
  const [vl, vega] = await Promise.all([import('vega-lite'), import('vega')]);
  const compiled = vl.compile({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', ...spec } as never).spec;
  // No loader may reach out: every datum is inline, and the view has no renderer but SVG text.
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader: vega.loader({ mode: 'file' }) });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** A table whose cells are already HTML; every column but those in `left` holds figures (right-aligned). */
function table(
  head: readonly string[],
  rows: readonly (readonly (string | number)[])[],
  left: readonly number[] = [0],
): string {
  const cells = (row: readonly (string | number)[], tag: string) =>
    row
      .map((c, i) => `<${tag}${left.includes(i) ? '' : ' class="n"'}>${typeof c === 'number' ? num(c) : c}</${tag}>`)
      .join('');
  const body = rows.map((r) => `<tr>${cells(r, 'td')}</tr>`).join('');
  return `<table><thead><tr>${cells(head.map(escapeHtml), 'th')}</tr></thead><tbody>${body}</tbody></table>`;
}

function sweepSpec(report: EvaluationReport): Spec {
  const values = report.sweep.flatMap((p) =>
    (['precision', 'recall', 'falsePositiveRate'] as const).flatMap((k) =>
      p[k] === null
        ? []
        : [{ threshold: p.threshold, figure: k === 'falsePositiveRate' ? 'false-positive rate' : k, value: p[k] }],
    ),
  );
  const marks = [
    { threshold: report.thresholds.review, name: 'review' },
    { threshold: report.thresholds.decline, name: 'decline' },
  ];
  return {
    width: 640,
    height: 260,
    layer: [
      {
        data: { values },
        mark: { type: 'line', interpolate: 'step-after' },
        encoding: {
          x: {
            field: 'threshold',
            type: 'quantitative',
            scale: { domain: [0, 100] },
            title: 'threshold (flag at score ≥ threshold)',
          },
          y: { field: 'value', type: 'quantitative', axis: { format: '%' }, scale: { domain: [0, 1] }, title: null },
          color: { field: 'figure', type: 'nominal', title: null },
        },
      },
      {
        data: { values: marks },
        mark: { type: 'rule', strokeDash: [4, 4], color: '#555' },
        encoding: { x: { field: 'threshold', type: 'quantitative' } },
      },
      {
        data: { values: marks },
        mark: { type: 'text', dy: -132, color: '#555' },
        encoding: { x: { field: 'threshold', type: 'quantitative' }, text: { field: 'name' } },
      },
    ],
  };
}

function rulesSpec(report: EvaluationReport): Spec {
  const values = report.rules.flatMap((r) => [
    { rule: r.rule, kind: 'fraud', hits: r.fraudHits },
    { rule: r.rule, kind: 'no fraud reported', hits: r.legitHits },
    { rule: r.rule, kind: 'declined, unknowable', hits: r.unknownHits },
  ]);
  return {
    width: 560,
    height: { step: 22 },
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'rule', type: 'nominal', sort: report.rules.map((r) => r.rule), title: null },
      x: { field: 'hits', type: 'quantitative', stack: 'zero', title: 'hits' },
      color: {
        field: 'kind',
        type: 'nominal',
        scale: {
          domain: ['fraud', 'no fraud reported', 'declined, unknowable'],
          range: ['#c0392b', '#7f8c8d', '#d5d8dc'],
        },
        title: null,
      },
    },
  };
}

function timeSpec(report: EvaluationReport): Spec {
  const periods = report.overTime?.periods ?? [];
  return {
    vconcat: [
      {
        width: 640,
        height: 140,
        data: {
          values: periods.flatMap((p) => ACTION_TYPES.map((a) => ({ start: p.start, decision: a, events: p[a] }))),
        },
        mark: 'bar',
        encoding: {
          x: { field: 'start', type: 'ordinal', title: null },
          y: { field: 'events', type: 'quantitative', stack: 'zero', title: 'events' },
          color: {
            field: 'decision',
            type: 'nominal',
            scale: { domain: [...ACTION_TYPES], range: ['#27ae60', '#f39c12', '#c0392b'] },
            title: null,
          },
        },
      },
      {
        width: 640,
        height: 120,
        data: {
          values: periods.filter((p) => p.fraudRate !== null).map((p) => ({ start: p.start, fraudRate: p.fraudRate })),
        },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'start', type: 'ordinal', title: null },
          y: { field: 'fraudRate', type: 'quantitative', axis: { format: '%' }, title: 'fraud rate' },
        },
      },
    ],
  };
}

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; }
body { margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ccc; padding: .2rem .5rem; text-align: left; } td.n, th.n { text-align: right; }
.note { color: #555; } .warn { color: #a00; font-weight: bold; }
figure { margin: .5rem 0; } svg { max-width: 100%; height: auto; }
@media print { body { margin: 0; max-width: none; } h2 { break-after: avoid; } table, figure { break-inside: avoid; } }
`;

export async function htmlReport(report: EvaluationReport): Promise<string> {
  const e = report.events;
  const s = report.summary;
  const parts: string[] = [];
  parts.push(`<h1>How the decisions did</h1>`);
  parts.push(
    `<p>${num(e.evaluated)} events evaluated · fraud reported ${num(e.fraud)} (${pct(s.fraudRate)}) · ` +
      `no fraud reported ${num(e.noFraudReported)} · declined without a report (unknowable) ${num(e.unknowable)}. ` +
      `Amounts in ${report.baseCurrency ? escapeHtml(report.baseCurrency.code) : 'the base currency'}.</p>`,
  );
  const leftOut = [
    e.young > 0 ? `${num(e.young)} younger than ${report.maturityDays} days` : null,
    e.notDecided > 0 ? `${num(e.notDecided)} without a decision` : null,
    e.repeated > 0 ? `${num(e.repeated)} named again (counted once)` : null,
  ].filter((x) => x !== null);
  if (leftOut.length > 0) parts.push(`<p class="note">Left out: ${leftOut.join('; ')}.</p>`);
  /** The first ids of a list, escaped, and … when there are more. */
  const some = (ids: readonly string[], total: number) =>
    `${ids.slice(0, 20).map(escapeHtml).join(', ')}${total > 20 ? ', …' : ''}`;
  if (!report.complete) {
    const ids = some(
      e.unread.events.map((u) => u.id),
      e.unread.count,
    );
    const count = num(e.unread.count);
    parts.push(`<p class="warn">Incomplete: ${count} events could not be read and are not in the figures: ${ids}</p>`);
  }
  if (e.labelsWithoutResult.count > 0) {
    const ids = some(e.labelsWithoutResult.ids, e.labelsWithoutResult.count);
    const count = num(e.labelsWithoutResult.count);
    parts.push(`<p class="note">${count} ids of the outcomes file have no result: ${ids}</p>`);
  }

  parts.push(`<h2>Decisions and outcomes</h2>`);
  parts.push(
    table(
      ['decision', 'events', 'fraud', 'no fraud reported', 'fraud amount', 'no-fraud amount'],
      ACTION_TYPES.map((a) => {
        const c = report.decisions[a];
        const declined = a === 'DECLINE';
        return [
          a,
          num(c.fraud + c.legit + c.unknown),
          num(c.fraud),
          declined ? `${num(c.unknown)} unknowable` : num(c.legit),
          money(c.fraudAmount),
          declined ? `${money(c.unknownAmount)} unknowable` : money(c.legitAmount),
        ];
      }),
    ),
  );
  parts.push(
    `<p>Fraud declined ${num(s.fraudDeclined.count)} (${money(s.fraudDeclined.amount)}) · ` +
      `in review ${num(s.fraudInReview.count)} (${money(s.fraudInReview.amount)}) · ` +
      `let through ${num(s.fraudLetThrough.count)} (${money(s.fraudLetThrough.amount)}). ` +
      `Good customers declined: at most ${num(s.declinedNotReported.count)} ` +
      `(${money(s.declinedNotReported.amount)}); ` +
      'a declined event gets no chargeback, so which were good cannot be known. ' +
      `Review load ${num(s.reviewLoad.count)} (${pct(s.reviewLoad.share)}).</p>`,
  );

  parts.push(`<h2>Rules</h2>`);
  if (report.rules.length > 0) parts.push(`<figure>${await svgOf(rulesSpec(report))}</figure>`);
  parts.push(
    table(
      ['rule', 'hits', 'fraud', 'precision', 'recall', 'only rule', 'fires with'],
      report.rules.map((r) => [
        escapeHtml(r.rule),
        num(r.hits),
        num(r.fraudHits),
        pct(r.precision),
        pct(r.recall),
        num(r.onlyRule),
        r.firesWith
          .slice(0, 3)
          .map((w) => `${escapeHtml(w.rule)} ${num(w.count)}`)
          .join(', ') || '–',
      ]),
      [0, 6],
    ),
  );
  parts.push(
    '<p class="note">Precision counts hits whose outcome can be known (declined events without a report are left ' +
      'out). Only rule: fraud that no other rule matched.</p>',
  );

  parts.push(`<h2>Score sweep</h2>`);
  parts.push(`<figure>${await svgOf(sweepSpec(report))}</figure>`);
  parts.push(
    table(
      ['threshold', 'flagged', 'precision', 'recall', 'false-positive rate', 'approval rate', 'fraud amount caught'],
      report.sweep.map((p) => [
        `${p.threshold}${p.current ? ` (${p.current})` : ''}`,
        num(p.flagged),
        pct(p.precision),
        pct(p.recall),
        pct(p.falsePositiveRate),
        pct(p.approvalRate),
        money(p.fraudAmountCaught),
      ]),
    ),
  );

  if (report.overTime) {
    parts.push(`<h2>Over time, by ${report.overTime.by} (UTC)</h2>`);
    if (report.overTime.periods.length > 0) parts.push(`<figure>${await svgOf(timeSpec(report))}</figure>`);
    parts.push(
      table(
        [report.overTime.by, 'events', 'APPROVE', 'REVIEW', 'DECLINE', 'fraud', 'fraud rate'],
        report.overTime.periods.map((p) => [
          p.start,
          num(p.events),
          num(p.APPROVE),
          num(p.REVIEW),
          num(p.DECLINE),
          num(p.fraud),
          pct(p.fraudRate),
        ]),
      ),
    );
  }

  if (report.replay) {
    const r = report.replay;
    parts.push(
      `<h2>What if: ${escapeHtml(r.candidate)}</h2>`,
      `<p>${num(r.changed)} of ${num(r.events)} decisions change. ${escapeHtml(r.velocityNote)}</p>`,
    );
    parts.push(
      table(
        ['today → candidate', 'events', 'fraud', 'no fraud reported', 'unknowable', 'amount'],
        shiftRows(r.shift).map(({ from, to, cell }) => [
          `${from} → ${to}`,
          num(cell.count),
          num(cell.fraud),
          num(cell.legit),
          num(cell.unknown),
          money(cell.amount),
        ]),
      ),
    );
  }

  // The report itself, for a tool: a data block, never run (`<` escaped so no tag can close it).
  const data = JSON.stringify(report).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fraudctl evaluate</title><style>${STYLE}</style></head>
<body>
${parts.join('\n')}
<script type="application/json" id="fraudctl-evaluate">${data}</script>
</body></html>
`;
}

export async function writeHtmlReport(path: string, report: EvaluationReport): Promise<void> {
  const html = await htmlReport(report);
  const temporary = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, html, { mode: 0o644 });
    await rename(temporary, path);
  } catch (e) {
    await rm(temporary, { force: true });
    // The temporary file is made beside it: its failure (a missing directory, a full disk) is the report's.
    const { message, hint } = fileWriteFailure(path, e, 'HTML report', { option: '--html' });
    throw new CliError(message, 1, hint);
  }
}
