import cliProgress from 'cli-progress';
import type { BatchStats } from './batch-stats.js';

/*
 * How a running batch shows itself on stderr: a live bar on a terminal (cli-progress), a
 * plain line every few seconds when stderr is a file or a pipe (CI logs), nothing with
 * --quiet. Only numbers the batch counted itself are shown, no text from the service.
 */

export interface Progress {
  /** The total became known (a counted file). */
  setTotal(total: number): void;
  /** A line was settled. */
  tick(): void;
  /** A message between progress lines (the bar is redrawn after it). */
  note(text: string): void;
  stop(): void;
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const count = (n: number): string => grouped.format(n);

function counts(stats: BatchStats): string {
  return `APPROVE ${count(stats.count('APPROVE'))} · REVIEW ${count(stats.count('REVIEW'))} · DECLINE ${count(stats.count('DECLINE'))} · errors ${count(stats.errors)}`;
}

export function createProgress(stats: BatchStats, stream: NodeJS.WritableStream & { isTTY?: boolean }, options: { quiet: boolean; intervalMs?: number }): Progress {
  if (options.quiet) return { setTotal: () => {}, tick: () => {}, note: (text) => stream.write(`${text}\n`), stop: () => {} };
  return stream.isTTY ? barProgress(stats, stream) : plainProgress(stats, stream, options.intervalMs ?? 5_000);
}

function barProgress(stats: BatchStats, stream: NodeJS.WritableStream): Progress {
  let total: number | null = null;
  const payload = () => ({ rateText: count(stats.rate()), counts: counts(stats) });
  const format = (known: boolean) =>
    known
      ? '{bar} {value}/{total} lines · {rateText}/s · ETA {eta_formatted} · {counts}'
      : '{value} lines · {rateText}/s · {duration_formatted} · {counts}';
  let bar = new cliProgress.SingleBar({ format: format(false), stream, hideCursor: true, fps: 8, etaBuffer: 200, barsize: 24 }, cliProgress.Presets.shades_classic);
  bar.start(0, 0, payload());
  return {
    setTotal(n) {
      total = n;
      bar.stop();
      bar = new cliProgress.SingleBar({ format: format(true), stream, hideCursor: true, fps: 8, etaBuffer: 200, barsize: 24 }, cliProgress.Presets.shades_classic);
      bar.start(n, stats.done + stats.skipped, payload());
    },
    tick() {
      bar.update(stats.done + stats.skipped, payload());
    },
    note(text) {
      stream.write(`\r\x1b[K${text}\n`);
      bar.render();
    },
    stop() {
      if (total !== null) bar.setTotal(Math.max(total, stats.done + stats.skipped));
      bar.update(stats.done + stats.skipped, payload());
      bar.stop();
    },
  };
}

function plainProgress(stats: BatchStats, stream: NodeJS.WritableStream, intervalMs: number): Progress {
  let total: number | null = null;
  const line = () => {
    const done = stats.done + stats.skipped;
    const of = total !== null ? ` of ${count(total)}${total > 0 ? ` (${Math.floor((done / total) * 100)}%)` : ''}` : '';
    stream.write(`progress: ${count(done)}${of} lines · ${count(stats.rate())} lines/s · ${counts(stats)}\n`);
  };
  const timer = setInterval(line, intervalMs);
  timer.unref();
  return {
    setTotal: (n) => (total = n),
    tick: () => {},
    note: (text) => stream.write(`${text}\n`),
    stop: () => clearInterval(timer),
  };
}
