import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactKey } from '../../src/profiles/redact.js';

describe('redactKey', () => {
  it('says (none) when there is no key', () => {
    expect(redactKey(null)).toBe('(none)');
    expect(redactKey(undefined)).toBe('(none)');
    expect(redactKey('')).toBe('(none)');
  });

  it('shows nothing of a key under 12 characters', () => {
    expect(redactKey('a')).toBe('****');
    expect(redactKey('short-key')).toBe('****');
    expect(redactKey('elevenchars')).toBe('****');
  });

  it('shows the last 4 characters of a key of 12 or more', () => {
    expect(redactKey('twelve-chars')).toBe('****hars');
    expect(redactKey('sk_live_0123456789abcdefWXYZ')).toBe('****WXYZ');
  });

  it('does not cut a character made of two UTF-16 units in half', () => {
    expect(redactKey('0123456789-🔑🔑🔑')).toBe('****-🔑🔑🔑');
  });

  it('never shows more than the last 4 characters, for any key', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200, unit: 'grapheme-composite' }), (key) => {
        const shown = redactKey(key);
        const chars = Array.from(key);
        expect(shown).toBe(chars.length >= 12 ? `****${chars.slice(-4).join('')}` : '****');
      }),
    );
  });
});
