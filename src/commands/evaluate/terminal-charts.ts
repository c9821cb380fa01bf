import { plot, green, red, blue, yellow, type Color } from 'asciichart';
import { displayWidth } from '../../render/display-width.js';

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

/** asciichart's ten marks, and the same in ASCII. */
const UNICODE_MARKS = ['┼', '┤', '╶', '╴', '─', '╰', '╭', '╮', '╯', '│'] as const;
const ASCII_MARKS = ['+', '|', '-', '-', '-', '\\', '/', '\\', '/', '|'] as const;
const SERIES_COLOURS: Color[] = [green, red, blue, yellow];
/** The axis labels asciichart puts before the plot (format below), and its offset. */
const LABEL_WIDTH = 9;

/** Every n-th point so that the series fits `width` points (the last point kept). */
function fit(series: readonly (number | null)[], width: number): number[] {
  const step = Math.max(1, Math.ceil(series.length / Math.max(1, width)));
  const out: number[] = [];
  for (let i = 0; i < series.length; i += step) out.push(series[i] ?? Number.NaN);
  if ((series.length - 1) % step !== 0) out.push(series[series.length - 1] ?? Number.NaN);
  return out;
}

/**
 * Series over one x axis as a line chart `height` rows high, with a legend line under it; the
 * values' axis labelled by `label`. Null is a gap.
 */
export function lineChart(
  series: { name: string; values: readonly (number | null)[] }[],
  look: ChartLook,
  options: { height: number; label: (y: number) => string; min?: number; max?: number; xAxis: string },
): string {
  const width = look.columns - LABEL_WIDTH - 2;
  if (width < 10 || series.every((s) => s.values.every((v) => v === null))) return '';
  const data = series.map((s) => fit(s.values, width));
  const chart = plot(data, {
    height: options.height,
    symbols: [...(look.ascii ? ASCII_MARKS : UNICODE_MARKS)],
    ...(look.colour ? { colors: SERIES_COLOURS.slice(0, series.length) } : {}),
    ...(options.min !== undefined ? { min: options.min } : {}),
    ...(options.max !== undefined ? { max: options.max } : {}),
    format: (y) => options.label(y).padStart(LABEL_WIDTH - 2),
  });
  const key = series.map((s, i) => (look.colour ? `${SERIES_COLOURS[i]}${look.ascii ? '-' : '─'}${'\u001b[0m'}` : look.ascii ? ['-', '*', 'o', '+'][i] : '─') + ` ${s.name}`);
  return `${chart}\n${' '.repeat(LABEL_WIDTH)}${options.xAxis}${look.colour || series.length === 1 ? `  ${key.join('  ')}` : ''}\n`;
}

/**
 * One bar per row: `part` of `whole` drawn full, the rest of `whole` light, scaled to the
 * largest whole; the label first, the figure after.
 */
export function barChart(rows: { label: string; part: number; whole: number; figure: string }[], look: ChartLook, paint: { part: (s: string) => string }): string {
  if (rows.length === 0) return '';
  const labelWidth = Math.min(24, Math.max(...rows.map((r) => displayWidth(r.label))));
  const figureWidth = Math.max(...rows.map((r) => displayWidth(r.figure)));
  const room = look.columns - labelWidth - figureWidth - 4;
  if (room < 8) return '';
  const largest = Math.max(1, ...rows.map((r) => r.whole));
  const [full, light] = look.ascii ? ['#', '-'] : ['█', '░'];
  return rows
    .map((r) => {
      const whole = Math.round((r.whole / largest) * room);
      const part = Math.min(whole, Math.round((r.part / largest) * room));
      const label = displayWidth(r.label) > labelWidth ? `${r.label.slice(0, labelWidth - 1)}${look.ascii ? '.' : '…'}` : r.label;
      return `${label.padEnd(labelWidth)}  ${paint.part(full.repeat(part))}${light.repeat(whole - part)}${' '.repeat(room - whole)}  ${r.figure}`;
    })
    .join('\n')
    .concat('\n');
}
