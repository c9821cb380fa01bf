import cliProgress from 'cli-progress';
import type { BatchStats } from './batch-stats.js';

/*
 * How a running batch shows itself on stderr: a live bar on a terminal (cli-progress), a
 * plain line every few seconds when stderr is a file or a pipe (CI logs), nothing with
 * --quiet. Only numbers the batch counted itself are shown, no text from the service.
 */

export interface Progress {
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

/** `total`: the number of records when known before the run (a counted file), else null. */
export function createProgress(
  stats: BatchStats,
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  options: { quiet: boolean; total: number | null; intervalMs?: number },
): Progress {
  if (options.quiet) return { tick: () => {}, note: (text) => stream.write(`${text}\n`), stop: () => {} };
  return stream.isTTY ? barProgress(stats, stream, options.total) : plainProgress(stats, stream, options.total, options.intervalMs ?? 5_000);
}

function barProgress(stats: BatchStats, stream: NodeJS.WritableStream, total: number | null): Progress {
  const done = () => stats.done + stats.skipped;
  const payload = () => ({ rateText: count(stats.rate()), counts: counts(stats), doneText: count(done()), totalText: total === null ? '' : count(total) });
  const format =
    total !== null
      ? '{bar} {doneText}/{totalText} events · {rateText}/s · ETA {eta_formatted} · {counts}'
      : '{doneText} events · {rateText}/s · {duration_formatted} · {counts}';
  const bar = new cliProgress.SingleBar({ format, stream, hideCursor: true, fps: 8, etaBuffer: 200, barsize: 24 }, cliProgress.Presets.shades_classic);
  bar.start(total ?? 0, done(), payload());
  return {
    tick: () => bar.update(done(), payload()),
    note(text) {
      stream.write(`\r\x1b[K${text}\n`);
      bar.render();
    },
    stop() {
      if (total !== null && done() > total) bar.setTotal(done());
      bar.update(done(), payload());
      bar.stop();
    },
  };
}

function plainProgress(stats: BatchStats, stream: NodeJS.WritableStream, total: number | null, intervalMs: number): Progress {
  const line = () => {
    const done = stats.done + stats.skipped;
    const of = total !== null ? ` of ${count(total)}${total > 0 ? ` (${Math.floor((done / total) * 100)}%)` : ''}` : '';
    stream.write(`progress: ${count(done)}${of} events · ${count(stats.rate())} events/s · ${counts(stats)}\n`);
  };
  const timer = setInterval(line, intervalMs);
  timer.unref();
  return {
    tick: () => {},
    note: (text) => stream.write(`${text}\n`),
    stop: () => clearInterval(timer),
  };
}
