import { describe, expect, it } from 'vitest';
import { ageMs, compactAge, deadlineOf, durationText, parseDuration } from '../../src/render/ages.js';

const M = 60_000;
const H = 60 * M;
const D = 24 * H;

describe('ages and deadlines', () => {
  it('an age in its largest whole unit (the list) and in two units (the review screen)', () => {
    expect([10 * M, 45 * M + 59_999, 3 * H + 59 * M, 2 * D + 23 * H, -5 * M].map(compactAge)).toEqual([
      '10m',
      '45m',
      '3h',
      '2d',
      '0m',
    ]);
    expect([45 * M, H, 3 * H + 59 * M, 2 * D + 3 * H + 10 * M, 2 * D + 30 * M].map((ms) => durationText(ms))).toEqual([
      '45m',
      '1h',
      '3h 59m',
      '2d 3h',
      '2d',
    ]);
  });

  it('one form of a duration for the review screen (minutes) and report (seconds): two largest units, whole, a sign below zero, a dash for none', () => {
    const S = 1_000;
    // The same durations both ways: only the smallest unit differs.
    const samples = [45 * S, 12 * M + 5 * S + 999, H + 30 * S, 3 * H + 5 * M + 59 * S, 2 * D + 4 * H + 30 * M];
    expect(samples.map((ms) => durationText(ms, 's'))).toEqual(['45s', '12m 5s', '1h', '3h 5m', '2d 4h']);
    expect(samples.map((ms) => durationText(ms))).toEqual(['0m', '12m', '1h', '3h 5m', '2d 4h']);
    expect([0, 999].map((ms) => durationText(ms, 's'))).toEqual(['0s', '0s']);
    // Below zero is said, not hidden (a future eventDate; two hosts whose clocks differ): the screen used to show 0m.
    expect([durationText(-5 * M), durationText(-(90 * S), 's')]).toEqual(['-5m', '-1m 30s']);
    expect(durationText(null)).toBe('–');
  });

  it('the age of an eventDate at a given time; none for a date that cannot be read', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(ageMs('2026-11-23T12:00:00Z', now)).toBe(2 * D);
    expect(ageMs('yesterday', now)).toBeNull();
    expect(ageMs(12, now)).toBeNull();
  });

  it('--sla: whole days, hours and minutes in that order; anything else (or zero) is not a duration', () => {
    expect(['4h', '30m', '2d', '1d12h', '1h30m'].map(parseDuration)).toEqual([
      4 * H,
      30 * M,
      2 * D,
      D + 12 * H,
      H + 30 * M,
    ]);
    for (const bad of ['', '4', '4 hours', '1.5h', '0h', '-4h', 'h', '30m4h', '4H', '4h ', '1w'])
      expect(parseDuration(bad), bad).toBeNull();
  });

  it('time left before the deadline, or overdue by how long', () => {
    expect(deadlineOf(H, 4 * H)).toEqual({ overdue: false, by: 3 * H });
    expect(deadlineOf(2 * D, 4 * H)).toEqual({ overdue: true, by: 2 * D - 4 * H });
  });
});
