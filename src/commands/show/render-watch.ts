import { isKnownState } from '../../contract/states.js';
import { changed, renderWatchChange, renderWatchStart, timestamp } from '../../render/event-changes.js';
import { renderEventSummary } from '../../render/event-tables.js';
import type { Output } from '../../render/output.js';
import { jsonForTerminal, terminalSafe } from '../../render/terminal-text.js';
import type { Snapshot, WatchView } from '../../events/watch-event.js';

/*
 * How `show --watch` says what it sees (src/events/watch-event.ts decides when): the summary and
 * its start line, a timestamped line per change (--json: the summary as one line each time the
 * state or comments change), and its notes on stderr. Times are the watch's clock's.
 */

export function watchView(
  output: Output,
  id: string,
  options: { intervalSeconds: number; until: string | null },
  now: () => number,
): WatchView {
  const show = (before: Snapshot | null, after: Snapshot) => {
    const at = new Date(now());
    if (output.json) return output.print(jsonForTerminal(after.summary, false));
    if (before === null)
      return output.print(
        `${renderEventSummary(after.summary, output.style)}\n\n${renderWatchStart(at, after, output.style, output.columns)}`,
      );
    output.print(renderWatchChange(at, before, after, output.style, output.columns));
  };
  return {
    first: (snapshot) => show(null, snapshot),
    watching() {
      const target = options.until !== null ? options.until : 'APPROVED, DECLINED or FRAUD_CONFIRMED';
      output.note(`watching ${id} every ${options.intervalSeconds} s until ${terminalSafe(target)} (Ctrl-C to stop)`);
      if (options.until !== null && !isKnownState(options.until))
        output.note(`${terminalSafe(options.until)} is not a state this build knows; watching for it all the same`);
    },
    next(before, after) {
      const wasChanged = output.json
        ? !sameJson(before.state, after.state) || !sameJson(before.comments, after.comments)
        : changed(before, after);
      if (wasChanged) show(before, after);
    },
    over: (why, atFirst) => output.note(`${id} ${why}${atFirst ? ': nothing to watch' : ''}`),
    failed(error, delayMs) {
      // "check failed", not "no answer": a 503 is an answer (and may say how long to wait).
      const next = Math.ceil(delayMs / 1000);
      output.note(
        `${output.style.dim(timestamp(new Date(now())))}  check failed: ${(error as Error).message}; next check in ${next} s`,
      );
    },
  };
}

const sameJson = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
