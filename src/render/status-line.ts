/*
 * The one way fraudctl shows progress on a terminal: one line on stderr, redrawn in place (erased
 * with `\r` and ESC [K, never wrapped: cut to the terminal's width), a few times a second at most;
 * a text put off by that limit is drawn when the time is up, the latest one then. Output written
 * to the same terminal goes above it (`above`: erased first, drawn again after; `erase`, for output
 * written in awaited steps: drawn again at the next `show`). A batch or a bulk change
 * (src/batch/batch-progress.ts), evaluate's reads of events, and show's long lists
 * (src/event-lists/progress-line.ts) show their progress so. Only numbers fraudctl counted itself
 * belong in it, no text from the service.
 */

const ERASE = '\r\x1b[K';

/** What the line is drawn on: a terminal's stream (its width, when known). */
export interface LineStream {
  write(text: string): unknown;
  readonly columns?: number | null;
}

export interface StatusLine {
  /**
   * The line now says `text`: drawn at once, or when the interval since the last drawing is up. A
   * function is asked when the line is drawn (a rate then is of the time it is drawn at).
   */
  show(text: string | (() => string)): void;
  /** Runs `write` (output to the same terminal) with the line erased first and drawn again after. */
  above(write: () => void): void;
  /** Erases the line until the next `show`, which draws it at once: output to the same terminal follows. */
  erase(): void;
  /** Erases the line for good; with `last`, draws that instead and ends the line, to stay on the screen. */
  stop(last?: string): void;
}

export function createStatusLine(
  stream: LineStream,
  options: { intervalMs?: number; now?: () => number } = {},
): StatusLine {
  const intervalMs = options.intervalMs ?? 100;
  // The monotonic clock: a wall clock stepped back would hold the line for the step.
  const now = options.now ?? (() => performance.now());
  let text: string | (() => string) | null = null;
  let shown = false;
  let drawnAt = -Infinity;
  let later: NodeJS.Timeout | undefined;
  const cancelLater = () => {
    clearTimeout(later);
    later = undefined;
  };
  // A line as wide as the terminal or wider would wrap, and `\r` would then redraw only its end.
  const fit = (line: string) => {
    const { columns } = stream;
    return columns && line.length >= columns ? line.slice(0, columns - 1) : line;
  };
  const draw = () => {
    cancelLater();
    if (text === null) return;
    stream.write(`${ERASE}${fit(typeof text === 'string' ? text : text())}`);
    shown = true;
    drawnAt = now();
  };
  return {
    show(next) {
      text = next;
      const waited = now() - drawnAt;
      if (waited >= intervalMs) return draw();
      // It holds no process open: the job's end stops the line.
      later ??= setTimeout(draw, intervalMs - waited).unref();
    },
    above(write) {
      if (shown) stream.write(ERASE);
      shown = false;
      write();
      draw();
    },
    erase() {
      cancelLater();
      if (!shown) return;
      stream.write(ERASE);
      shown = false;
      // Off the screen now: it comes back with the next text, not an interval later.
      drawnAt = -Infinity;
    },
    stop(last) {
      cancelLater();
      if (last !== undefined) stream.write(`${ERASE}${fit(last)}\n`);
      else if (shown) stream.write(ERASE);
      shown = false;
      text = null;
    },
  };
}
