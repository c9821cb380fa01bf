import cliProgress from 'cli-progress';
import { count } from '../render/counts.js';
import { sym } from '../render/symbols.js';

/*
 * How a running batch shows itself on stderr: a live bar on a terminal (cli-progress), a
 * plain line every few seconds when stderr is a file or a pipe (CI logs), nothing with
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

function barProgress(
  stats: ProgressView,
  stream: NodeJS.WritableStream,
  total: number | null,
  unit: string,
  resumed: boolean,
): Progress {
  const done = () => stats.done + stats.skipped;
  const rateText = () => `${count(stats.rate())}/s`;
  const payload = () => ({
    rateText: rateText(),
    counts: resumed ? thisRun(stats, rateText()) : stats.countsText(),
    doneText: count(done()),
    totalText: total === null ? '' : count(total),
  });
  // The rate goes with this run's counts after --resume, and before the ETA otherwise, as it always has.
  const rate = resumed ? '' : `{rateText} ${sym.dot} `;
  const format =
    total !== null
      ? `{bar} {doneText}/{totalText} ${unit} ${sym.dot} ${rate}ETA {eta_formatted} ${sym.dot} {counts}`
      : `{doneText} ${unit} ${sym.dot} ${rate}{duration_formatted} ${sym.dot} {counts}`;
  const bar = new cliProgress.SingleBar(
    { format, stream, hideCursor: true, fps: 8, etaBuffer: 200, barsize: 24 },
    { ...cliProgress.Presets.shades_classic, barCompleteChar: sym.barDone, barIncompleteChar: sym.barLeft },
  );
  bar.start(total ?? 0, done(), payload());
  return {
    tick: () => bar.update(done(), payload()),
    // cli-progress saves the cursor where the bar starts (ESC 7) and goes back there when it
    // stops: after lines written above the bar, the bar's new line is saved instead, or the
    // summary would overwrite them.
    note(text) {
      stream.write(`\r\x1b[K${text}\n\x1b7`);
      bar.render();
    },
    above(write) {
      stream.write('\r\x1b[K');
      write();
      stream.write('\x1b7');
      bar.render();
    },
    stop() {
      if (total !== null && done() > total) bar.setTotal(done());
      bar.update(done(), payload());
      bar.stop();
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
