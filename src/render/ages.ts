/*
 * How old an event is, how long is left of a review deadline, how long a decision took, in the
 * compact words of a screen or a column: `45m`, `3h`, `2d` (one unit: the list's age column),
 * `2d 3h`, `3h 59m`, `12m 5s` (two units: the review screen, `report`: durationText, the one
 * form), and the `--sla` duration read back (`4h`, `30m`, `2d`, `1d12h`). Pure: the time now is always given, so tests need no clock. Written by hand: the
 * formats are three lines each, and the packages for durations (ms, parse-duration) take
 * `4 hours` or `1.5h`, which a deadline given on the command line should not.
 */

import { sym } from './symbols.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
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

/**
 * A duration in the two largest units it has, the second left out when it is zero: `2d 3h`,
 * `3h 59m`, `45m`, `2d`; down to minutes, or with `smallest: 's'` to seconds (`12m 5s`, `45s`).
 * The one form of a duration on a screen or in a table (the review screen, `report`): whole
 * units, never rounded up (a time left is never more than there is); below the smallest unit
 * `0m` (`0s`); less than zero with a `-` (a future eventDate, two hosts' clocks apart: said,
 * not hidden); null (not known) a dash. The review screen keeps minutes because it is redrawn
 * every 30 s (seconds would be stale); `report` is a snapshot and shows seconds.
 */
export function durationText(ms: number | null, smallest: 'm' | 's' = 'm'): string {
  if (ms === null) return sym.dash;
  const sign = ms < 0 ? '-' : '';
  const units: readonly (readonly [number, string])[] =
    smallest === 's'
      ? [
          [DAY, 'd'],
          [HOUR, 'h'],
          [MINUTE, 'm'],
          [SECOND, 's'],
        ]
      : [
          [DAY, 'd'],
          [HOUR, 'h'],
          [MINUTE, 'm'],
        ];
  let rest = Math.abs(ms);
  const counts = units.map(([size, name]) => {
    const n = Math.floor(rest / size);
    rest -= n * size;
    return [n, name] as const;
  });
  const first = counts.findIndex(([n]) => n > 0);
  if (first === -1) return `0${smallest}`;
  const shown = counts.slice(first, first + 2).filter(([n], i) => i === 0 || n > 0);
  return `${sign}${shown.map(([n, name]) => `${n}${name}`).join(' ')}`;
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
