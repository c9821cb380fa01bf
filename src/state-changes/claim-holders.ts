import { logFileLines, logLineFields, type LogLineFields } from '../action-log/read-log.js';
import { durationText } from '../render/ages.js';
import { terminalSafe } from '../render/terminal-text.js';

/*
 * Who holds an event IN_REVIEW, and since when. The service keeps no owner: a review session's
 * claim is only the state IN_REVIEW (review-queue/queue-claims.ts), so the one record of who
 * claimed it is the action log the team shares (`--log`): its last state change of the event
 * that went through, when that set IN_REVIEW (a claim, or a set-state to IN_REVIEW). Without a
 * log, or with none of that event, the words say what is known: claimed, by a session unnamed.
 */

/** The log line that put an event IN_REVIEW: who (analyst, host), when, and how (claim, set-state). */
export interface ClaimHolder {
  analyst: string | null;
  host: string | null;
  time: string;
  action: string;
}

/**
 * The holders of the events the log last put IN_REVIEW, read once (a line at a time): an event
 * whose last change went elsewhere (given back, decided) is dropped as it is met, so the map
 * holds only the events still claimed as far as the log knows. A log that cannot be read (not
 * written yet) knows of none.
 */
export async function claimHolders(logPath: string): Promise<ReadonlyMap<string, ClaimHolder>> {
  const held = new Map<string, ClaimHolder>();
  try {
    for await (const { text } of logFileLines(logPath)) {
      const line: LogLineFields | null = logLineFields(text);
      if (line === null || line.outcome !== 'ok' || line.to === null) continue;
      const { analyst, host, time, action } = line;
      if (line.to === 'IN_REVIEW') held.set(line.eventId, { analyst, host, time, action });
      else held.delete(line.eventId);
    }
  } catch {
    return new Map();
  }
  return held;
}

/** `claimed in review by Ann Lee (host desk-7) since 2026-11-23 16:37:56Z, 3m ago`, or what is known without a log. */
export function claimWords(holder: ClaimHolder | null | undefined, logPath: string | null, now: number): string {
  if (!holder) {
    const known =
      logPath === null
        ? "the team's action log (--log FILE) would say who and since when"
        : `${terminalSafe(logPath)} does not say who`;
    return `claimed for review by another session (${known})`;
  }
  const how = holder.action === 'claim' ? 'claimed in review' : `set IN_REVIEW (${terminalSafe(holder.action)})`;
  const host = holder.host !== null ? ` (host ${terminalSafe(holder.host)})` : '';
  const who = holder.analyst !== null ? ` by ${terminalSafe(holder.analyst)}${host}` : '';
  const at = Date.parse(holder.time);
  const when = () =>
    new Date(at)
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, 'Z');
  const since = Number.isNaN(at) ? terminalSafe(holder.time) : `${when()}, ${durationText(Math.max(0, now - at))} ago`;
  return `${how}${who} since ${since}`;
}
