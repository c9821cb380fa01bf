import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../../render/ages.js';

/*
 * What `report` is asked, as one typed value (command.ts makes it from argv, run.ts does it), and
 * the values it takes from its flags: `--since`/`--until` (ISO 8601 dates or
 * date-times) and `--sla` (a duration: `30m`, `4h`, `2d`). Parsed strictly, by hand: Date.parse
 * takes `2026-02-30` and `Nov 25` and makes a time of both, and a report filtered on a time the
 * user did not mean is wrong without a word; the forms are two regular expressions.
 */

export interface ReportOptions {
  files: readonly string[];
  since: number | null;
  until: number | null;
  slaMs: number | null;
  format: 'table' | 'json' | 'csv';
  concurrency: number;
  /** Read on past lines that break the chain, saying so. */
  includeUnverified: boolean;
  /** The most all the reads of events now may take together, in seconds. */
  readDeadlineSeconds: number;
  noColor: boolean;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/i;

/** A time bound: its instant (ms since the epoch). A date alone is the start of that day (UTC); as `--until`, the end of it. */
export function parseTimeBound(flag: '--since' | '--until', value: string): number {
  const problem = `not an ISO date or time: give e.g. 2026-11-25 or 2026-11-25T14:00Z (UTC unless an offset is given)`;
  const date = DATE.exec(value);
  const dateTime = date ? null : DATE_TIME.exec(value);
  const parts = date ?? dateTime;
  if (!parts) throw new InvalidArgumentError(problem);
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const [hour, minute, second] = dateTime
    ? [Number(dateTime[4]), Number(dateTime[5]), Number(dateTime[6] ?? 0)]
    : [0, 0, 0];
  const millis = dateTime?.[7] ? Number(dateTime[7].slice(0, 3).padEnd(3, '0')) : 0;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(utc);
  // 2026-02-30 or 25:00 roll over in Date.UTC: a field out of its range is refused, not moved.
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  )
    throw new InvalidArgumentError(problem);
  const zone = dateTime?.[8];
  let offset = 0;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const [h, m] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
    if (h > 23 || m > 59) throw new InvalidArgumentError(problem);
    offset = (zone.startsWith('-') ? -1 : 1) * (h * 60 + m) * 60_000;
  }
  const instant = utc - offset;
  // --until 2026-11-25: through the whole of that day.
  return date && flag === '--until' ? instant + 86_400_000 : instant;
}

/** `--sla`: the form review --sla takes (render/ages.ts: `4h`, `30m`, `2d`, `1d12h`); in ms. */
export function parseSla(value: string): number {
  const ms = parseDuration(value);
  if (ms === null)
    throw new InvalidArgumentError(
      'not a duration: give days, hours, minutes as review --sla takes them, e.g. 4h, 30m, 2d or 1d12h',
    );
  return ms;
}
