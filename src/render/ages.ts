/*
 * How old an event is and how long is left of a review deadline, in the compact words of a
 * screen or a column: `45m`, `3h`, `2d` (one unit: the list's age column), `2d 3h`, `3h 59m`
 * (two units: the review screen), and the `--sla` duration read back (`4h`, `30m`, `2d`,
 * `1d12h`). Pure: the time now is always given, so tests need no clock. Written by hand: the
 * formats are three lines each, and the packages for durations (ms, parse-duration) take
 * `4 hours` or `1.5h`, which a deadline given on the command line should not.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The ms since `eventDate` (an ISO 8601 date-time) at `now`, or null when the date cannot be read. */
export function ageMs(eventDate: unknown, now: number): number | null {
  if (typeof eventDate !== 'string') return null;
  const at = Date.parse(eventDate);
  return Number.isNaN(at) ? null : now - at;
}

/** `45m`, `3h`, `2d`: the largest whole unit (a date in the future is `0m`). */
export function compactAge(ms: number): string {
  const t = Math.max(0, ms);
  if (t >= DAY) return `${Math.floor(t / DAY)}d`;
  if (t >= HOUR) return `${Math.floor(t / HOUR)}h`;
  return `${Math.floor(t / MINUTE)}m`;
}

/** `2d 3h`, `3h 59m`, `45m`: the two largest units, the second left out when it is zero. */
export function durationText(ms: number): string {
  const t = Math.max(0, ms);
  const [big, small, bigName, smallName] = t >= DAY ? [DAY, HOUR, 'd', 'h'] : t >= HOUR ? [HOUR, MINUTE, 'h', 'm'] : [MINUTE, 0, 'm', ''];
  const first = Math.floor(t / big);
  if (small === 0) return `${first}${bigName}`;
  const second = Math.floor((t - first * big) / small);
  return second === 0 ? `${first}${bigName}` : `${first}${bigName} ${second}${smallName}`;
}

/** A deadline as given to `--sla`: whole days, hours, minutes in that order (`2d`, `4h`, `30m`, `1d12h`); null when it is not one, or zero. */
export function parseDuration(text: string): number | null {
  const match = /^(?:(\d{1,5})d)?(?:(\d{1,6})h)?(?:(\d{1,8})m)?$/.exec(text);
  if (!match || text === '') return null;
  const [, d = '0', h = '0', m = '0'] = match;
  const ms = Number(d) * DAY + Number(h) * HOUR + Number(m) * MINUTE;
  return ms > 0 ? ms : null;
}

/** Where an event stands against a deadline of `slaMs`: the time left, or how long it is overdue. */
export function deadlineOf(age: number, slaMs: number): { overdue: boolean; by: number } {
  return age > slaMs ? { overdue: true, by: age - slaMs } : { overdue: false, by: slaMs - age };
}
