import { describe, expect, it } from 'vitest';
import { seededDraws } from '../../../src/sandbox/http/chaos-draws.js';

describe('seeded chaos draws', () => {
  it('depend on the seed, the identity and its occurrence, not on what other identities drew in between', () => {
    const apart = seededDraws(42);
    const a = [apart('a')('fault'), apart('a')('fault'), apart('a')('fault')];
    const interleaved = seededDraws(42);
    interleaved('b');
    const a0 = interleaved('a')('fault');
    interleaved('c');
    interleaved('b');
    const a1 = interleaved('a')('fault');
    const a2 = interleaved('a')('fault');
    expect([a0, a1, a2]).toEqual(a);
    // Each occurrence has its own number, and another seed other numbers.
    expect(new Set(a).size).toBe(3);
    const other = seededDraws(43);
    expect([other('a')('fault'), other('a')('fault'), other('a')('fault')]).not.toEqual(a);
  });

  it('give the latency a number of its own, so a slow request is no more or less likely to fail', () => {
    const draw = seededDraws(7)('a');
    expect(draw('latency')).not.toBe(draw('fault'));
    expect(draw('fault')).toBe(draw('fault'));
  });

  it('spread evenly over [0, 1)', () => {
    const draws = seededDraws(1);
    const numbers = Array.from({ length: 20_000 }, (_, i) => draws(`id-${i}`)('fault'));
    expect(numbers.every((x) => x >= 0 && x < 1)).toBe(true);
    const deciles = Array<number>(10).fill(0);
    for (const x of numbers) deciles[Math.floor(x * 10)]!++;
    for (const count of deciles) expect(Math.abs(count - 2_000)).toBeLessThan(200);
  });
});
