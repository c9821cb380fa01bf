import { count } from '../render/counts.js';
import type { ListCounts } from './list-counts.js';
import { createStatusLine } from '../render/status-line.js';
import { sym } from '../render/symbols.js';

/*
 * How far a long list has got, as one line redrawn on stderr when stderr is a terminal (never
 * in a pipe or a log), once the list is longer than a screenful: a shorter one is over before
 * a progress line would help. Only numbers fraudctl counted itself, no text from the service.
 *
 * It is the one progress line of a terminal (src/render/status-line.ts): cut to the terminal's
 * width, drawn a few times a second at most, and a count left undrawn is drawn when that time is
 * up, so that while the ids come slowly the line does not stay behind the rows written. When
 * stdout is a terminal too, the rows and the line share the screen: the line is erased before
 * rows are written and drawn again after them, so it stays at the bottom.
 */

export interface ProgressLine {
  /** Rows are about to be written to stdout. */
  beforeRows(): void;
  /** Rows were written; `counts` is where the list stands. */
  update(counts: ListCounts): void;
  /** Erases the line for good (the count line follows). */
  stop(): void;
}

/** The terminal stderr is: its height (a screenful of rows) and width (the line is cut to it). */
type Terminal = NodeJS.WritableStream & { isTTY?: boolean; rows?: number; columns?: number };

export function createProgressLine(
  stderr: Terminal,
  options: { stdoutIsTerminal: boolean; screenful?: number; intervalMs?: number; now?: () => number },
): ProgressLine {
  if (!stderr.isTTY) return { beforeRows: () => {}, update: () => {}, stop: () => {} };
  const screenful = options.screenful ?? stderr.rows ?? 24;
  // The monotonic clock: a wall clock stepped back would show a rate off by the step.
  const now = options.now ?? (() => performance.now());
  const started = now();
  const line = createStatusLine(stderr, { intervalMs: options.intervalMs ?? 100, now });
  // Worded when drawn: a count put off by the interval shows the rate of when it is drawn.
  const text = (counts: ListCounts) => {
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? ` ${sym.dot} ${count(counts.total / seconds)}/s` : '';
    const failed =
      counts.errors > 0 ? ` ${sym.dot} ${count(counts.errors)} ${counts.errors === 1 ? 'error' : 'errors'}` : '';
    const found = `${count(counts.found)} found ${sym.dot} ${count(counts.notFound)} not found`;
    return `${count(counts.total)} ids ${sym.dot} ${found}${failed}${rate}`;
  };
  return {
    beforeRows() {
      // The rows are written (awaited) before the next update draws the line again below them.
      if (options.stdoutIsTerminal) line.erase();
    },
    update(counts) {
      if (counts.total > screenful) line.show(() => text(counts));
    },
    stop() {
      line.stop();
    },
  };
}
