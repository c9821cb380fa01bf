import { count } from '../render/counts.js';
import type { ListCounts } from './list-counts.js';
import { sym } from '../render/symbols.js';

/*
 * How far a long list has got, as one line redrawn on stderr when stderr is a terminal (never
 * in a pipe or a log), once the list is longer than a screenful: a shorter one is over before
 * a progress line would help. Only numbers fraudctl counted itself, no text from the service.
 *
 * When stdout is a terminal too, the rows and the line share the screen: the line is erased
 * before rows are written and drawn again after them, so it stays at the bottom. Otherwise it is
 * drawn a few times a second at most, and a count left undrawn is drawn when that time is up, so
 * that while the ids come slowly the line does not stay behind the rows written.
 */

export interface ProgressLine {
  /** Rows are about to be written to stdout. */
  beforeRows(): void;
  /** Rows were written; `counts` is where the list stands. */
  update(counts: ListCounts): void;
  /** Erases the line for good (the count line follows). */
  stop(): void;
}

const ERASE = '\r\x1b[K';

export function createProgressLine(
  stderr: NodeJS.WritableStream & { isTTY?: boolean; rows?: number },
  options: { stdoutIsTerminal: boolean; screenful?: number; intervalMs?: number; now?: () => number },
): ProgressLine {
  if (!stderr.isTTY) return { beforeRows: () => {}, update: () => {}, stop: () => {} };
  const screenful = options.screenful ?? stderr.rows ?? 24;
  const intervalMs = options.intervalMs ?? 100;
  // The monotonic clock: a wall clock stepped back would hold the line for the step, or show a rate off by it.
  const now = options.now ?? (() => performance.now());
  const started = now();
  let shown = false;
  let erased = false;
  let drawnAt = -Infinity;
  /** The draw put off by the interval, and the counts it is to show. */
  let later: NodeJS.Timeout | undefined;
  let latest: ListCounts | undefined;
  const cancelLater = () => {
    clearTimeout(later);
    later = undefined;
  };
  const draw = (counts: ListCounts, t: number) => {
    cancelLater();
    const seconds = (t - started) / 1000;
    const rate = seconds > 0 ? ` ${sym.dot} ${count(counts.total / seconds)}/s` : '';
    const failed =
      counts.errors > 0 ? ` ${sym.dot} ${count(counts.errors)} ${counts.errors === 1 ? 'error' : 'errors'}` : '';
    stderr.write(
      `${ERASE}${count(counts.total)} ids ${sym.dot} ${count(counts.found)} found ${sym.dot} ${count(counts.notFound)} not found${failed}${rate}`,
    );
    shown = true;
    erased = false;
    drawnAt = t;
  };
  return {
    beforeRows() {
      cancelLater();
      if (shown && options.stdoutIsTerminal && !erased) {
        stderr.write(ERASE);
        erased = true;
      }
    },
    update(counts) {
      if (counts.total <= screenful) return;
      const t = now();
      // Drawn again at once when the rows erased it, otherwise a few times a second at most.
      if (erased || t - drawnAt >= intervalMs) return draw(counts, t);
      // The latest counts, when the interval is up, unless newer rows draw them first. It holds
      // no process open: the list's end stops the line.
      latest = counts;
      later ??= setTimeout(() => draw(latest!, now()), intervalMs - (t - drawnAt)).unref();
    },
    stop() {
      cancelLater();
      if (shown && !erased) stderr.write(ERASE);
      shown = false;
    },
  };
}
