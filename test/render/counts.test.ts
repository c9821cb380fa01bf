import { describe, expect, it } from 'vitest';
import { count, plural } from '../../src/render/counts.js';
import { truncate } from '../../src/render/terminal-text.js';

describe('count', () => {
  it('groups digits as en-US and rounds a fraction away', () => {
    expect(count(0)).toBe('0');
    expect(count(1234567)).toBe('1,234,567');
    expect(count(2.6)).toBe('3');
  });

  it('plural: the noun for one, the other for any other number', () => {
    expect(plural(1, 'event', 'events')).toBe('1 event');
    expect(plural(0, 'event', 'events')).toBe('0 events');
    expect(plural(12000, 'id', 'ids')).toBe('12,000 ids');
  });

  it('is what a cut string says it left out', () => {
    expect(truncate('x'.repeat(1003), 2)).toBe(`xx… (+${count(1001)} chars)`);
  });
});
