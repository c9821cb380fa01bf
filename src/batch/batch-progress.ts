import { durationText } from '../render/ages.js';
import { count } from '../render/counts.js';
import { createStatusLine } from '../render/status-line.js';
import { sym } from '../render/symbols.js';

/*
 * How a running batch shows itself on stderr: a bar on a terminal, in the one line progress
 * takes there (src/render/status-line.ts), a plain line every few seconds when stderr is a file or a pipe (CI logs), nothing with
 * --quiet. Only numbers the batch counted itself are shown, no text from the service; which
 * counts, the job says (ProgressView). The position (`1,200 of 2,000`) is the input's, items an
 * earlier run settled included; the rate and the job's counts are this run's. After --resume
 * both are shown and said apart: `1,000 done earlier · this run: 200 · 40/s · APPROVE 150 …`.
 */

/** What the progress display reads of a job's running counts. */
export interface ProgressView {
  /** Items settled by this run. */
  readonly done: number;
  /** Items an earlier run settled (--resume). */
  readonly skipped: number;
  /** Items settled per second. */
  rate(): number;
  /** The job's own counts, e.g. `APPROVE 3 · REVIEW 1 · DECLINE 0 · errors 0`. */
  countsText(): string;
}

export interface Progress {
  /** A line was settled. */
  tick(): void;
  /** A message between progress lines (the bar is redrawn after it). */
  note(text: string): void;
  /** Runs `write` (a result line on stdout, the same terminal) with the bar's line cleared first and redrawn after. */
  above(write: () => void): void;
  stop(): void;
}

/**
 * `total`: the number of items when known before the run (a counted file), else null; `unit`:
 * what an item is called (`events`, the default, or `ids`); `resumed`: the run continues an
 * earlier one (--resume), whose items count in the position and not in this run's counts.
 */
export function createProgress(
  stats: ProgressView,
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  options: { quiet: boolean; total: number | null; intervalMs?: number; unit?: string; resumed?: boolean },
): Progress {
  if (options.quiet)
    return { tick: () => {}, note: (text) => stream.write(`${text}\n`), above: (write) => write(), stop: () => {} };
  const unit = options.unit ?? 'events';
  const resumed = options.resumed === true;
  return stream.isTTY
    ? barProgress(stats, stream, options.total, unit, resumed)
    : plainProgress(stats, stream, options.total, options.intervalMs ?? 5_000, unit, resumed);
}

/** After --resume, what the earlier run did, then this run's part of the line, said to be this run's. */
function thisRun(stats: ProgressView, rate: string): string {
  const { dot } = sym;
  const earlier = `${count(stats.skipped)} done earlier`;
  return `${earlier} ${dot} this run: ${count(stats.done)} ${dot} ${rate} ${dot} ${stats.countsText()}`;
}

/** The bar's width, in characters. */
const BAR = 24;

function barProgress(
  stats: ProgressView,
  stream: NodeJS.WritableStream & { columns?: number },
  total: number | null,
  unit: string,
  resumed: boolean,
): Progress {
  const line = createStatusLine(stream, { intervalMs: 125 });
  const started = performance.now();
  const text = () => {
    const done = stats.done + stats.skipped;
    const rateText = `${count(stats.rate())}/s`;
    const counts = resumed ? thisRun(stats, rateText) : stats.countsText();
    // The rate goes with this run's counts after --resume, and before the time otherwise.
    const rate = resumed ? '' : `${rateText} ${sym.dot} `;
    if (total === null) {
      const elapsed = durationText(performance.now() - started, 's');
      return `${count(done)} ${unit} ${sym.dot} ${rate}${elapsed} ${sym.dot} ${counts}`;
    }
    // More than counted (the file grew while read): the bar is full, the total what was done.
    const of = Math.max(total, done);
    const full = of === 0 ? BAR : Math.round((done / of) * BAR);
    const bar = sym.barDone.repeat(full) + sym.barLeft.repeat(BAR - full);
    const perSecond = stats.rate();
    const eta = durationText(perSecond > 0 ? Math.ceil((of - done) / perSecond) * 1000 : null, 's');
    return `${bar} ${count(done)}/${count(of)} ${unit} ${sym.dot} ${rate}ETA ${eta} ${sym.dot} ${counts}`;
  };
  line.show(text());
  // Redrawn while nothing settles too: the time and the rate move on.
  const timer = setInterval(() => line.show(text()), 1_000);
  timer.unref();
  return {
    tick: () => line.show(text()),
    note: (note) => line.above(() => stream.write(`${note}\n`)),
    above: (write) => line.above(write),
    stop() {
      clearInterval(timer);
      line.stop(text());
    },
  };
}

function plainProgress(
  stats: ProgressView,
  stream: NodeJS.WritableStream,
  total: number | null,
  intervalMs: number,
  unit: string,
  resumed: boolean,
): Progress {
  const line = () => {
    const done = stats.done + stats.skipped;
    const of = total !== null ? ` of ${count(total)}${total > 0 ? ` (${Math.floor((done / total) * 100)}%)` : ''}` : '';
    const rate = `${count(stats.rate())} ${unit}/s`;
    const counts = resumed ? thisRun(stats, rate) : `${rate} ${sym.dot} ${stats.countsText()}`;
    stream.write(`progress: ${count(done)}${of} ${unit} ${sym.dot} ${counts}\n`);
  };
  const timer = setInterval(line, intervalMs);
  timer.unref();
  return {
    tick: () => {},
    note: (text) => stream.write(`${text}\n`),
    above: (write) => write(),
    stop: () => clearInterval(timer),
  };
}
