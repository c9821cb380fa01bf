import { plot, green, red, blue, yellow, type Color } from 'asciichart';
import { displayWidth } from '../../render/display-width.js';
import { symbolsFor, type ChartMarks } from '../../render/symbols.js';

/*
 * The charts of a terminal report: line charts (asciichart) for the sweep and the time series,
 * and horizontal bars for the rules, drawn within the terminal's width, in ASCII where the
 * locale is not UTF-8, coloured only when the report is. Off a terminal none is drawn.
 */

export interface ChartLook {
  /** Width in columns. */
  columns: number;
  ascii: boolean;
  colour: boolean;
}

const SERIES_COLOURS: Color[] = [green, red, blue, yellow];
/** The axis labels asciichart puts before the plot (format below), and its offset. */
const LABEL_WIDTH = 9;

/** Every n-th point so that the series fits `width` points (the last point kept). */
function fit(series: readonly number[], width: number): number[] {
  const step = Math.max(1, Math.ceil(series.length / Math.max(1, width - 1)));
  const out: number[] = [];
  for (let i = 0; i < series.length; i += step) out.push(series[i]!);
  if ((series.length - 1) % step !== 0) out.push(series[series.length - 1]!);
  return out;
}

/**
 * The points to draw of series over one x axis: from the first to the last point any series
 * has (a sweep's top thresholds flag nothing and have no precision), a gap inside taking the
 * value before it (asciichart draws no gaps). Null when there is nothing to draw.
 */
function drawable(
  series: readonly (readonly (number | null)[])[],
): { from: number; to: number; data: number[][] } | null {
  const has = (i: number) => series.some((s) => s[i] !== null && s[i] !== undefined);
  const length = Math.max(...series.map((s) => s.length));
  let from = 0;
  while (from < length && !has(from)) from++;
  let to = length - 1;
  while (to > from && !has(to)) to--;
  if (from >= length) return null;
  const data = series.map((s) => {
    let last = s.slice(from, to + 1).find((v) => v !== null && v !== undefined) ?? 0;
    return s.slice(from, to + 1).map((v) => (v === null || v === undefined ? last : (last = v)));
  });
  return { from, to, data };
}

/**
 * Series over one x axis as a line chart `height` rows high, with the x axis's range and a key
 * under it; `label` writes the values' axis, `xAxis` the range drawn (indices into the series).
 */
export function lineChart(
  series: { name: string; values: readonly (number | null)[] }[],
  look: ChartLook,
  options: {
    height: number;
    label: (y: number) => string;
    min?: number;
    max?: number;
    xAxis: (from: number, to: number) => string;
  },
): string {
  const width = look.columns - LABEL_WIDTH - 3;
  const points = drawable(series.map((s) => s.values));
  if (width < 10 || points === null) return '';
  const data = points.data.map((values) => fit(values, width));
  const values = data.flat();
  const chart = plot(data, {
    height: options.height,
    symbols: [...symbolsFor(look.ascii).chartMarks] as ChartMarks,
    ...(look.colour ? { colors: SERIES_COLOURS.slice(0, series.length) } : {}),
    min: Math.min(options.min ?? Number.POSITIVE_INFINITY, ...values),
    max: Math.max(options.max ?? Number.NEGATIVE_INFINITY, ...values),
    offset: 2,
    format: (y) => options.label(y).padStart(LABEL_WIDTH - 1),
  });
  const line = symbolsFor(look.ascii).rule;
  const key = series.map((s, i) => `${look.colour ? `${SERIES_COLOURS[i]}${line}\u001b[0m` : line} ${s.name}`);
  return `${chart}\n${' '.repeat(LABEL_WIDTH)}${options.xAxis(points.from, points.to)}  ${key.join('  ')}\n`;
}

/**
 * One bar per row: `part` of `whole` drawn full, the rest of `whole` light, scaled to the
 * largest whole; the label first, the figure after.
 */
export function barChart(
  rows: { label: string; part: number; whole: number; figure: string }[],
  look: ChartLook,
  paint: { part: (s: string) => string },
): string {
  if (rows.length === 0) return '';
  const labelWidth = Math.min(24, Math.max(...rows.map((r) => displayWidth(r.label))));
  const figureWidth = Math.max(...rows.map((r) => displayWidth(r.figure)));
  const room = look.columns - labelWidth - figureWidth - 4;
  if (room < 8) return '';
  const largest = Math.max(1, ...rows.map((r) => r.whole));
  const { barDone: full, barLeft: light, ellipsis } = symbolsFor(look.ascii);
  return rows
    .map((r) => {
      const whole = Math.round((r.whole / largest) * room);
      const part = Math.min(whole, Math.round((r.part / largest) * room));
      const label =
        displayWidth(r.label) > labelWidth ? `${r.label.slice(0, labelWidth - ellipsis.length)}${ellipsis}` : r.label;
      const bar = `${paint.part(full.repeat(part))}${light.repeat(whole - part)}${' '.repeat(room - whole)}`;
      return `${label.padEnd(labelWidth)}  ${bar}  ${r.figure}`;
    })
    .join('\n')
    .concat('\n');
}
