import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_SEARCHED_LENGTH, redactKey, redactKeyIn } from '../../src/render/redact.js';

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

describe('redactKeyIn', () => {
  it('a one-letter key leaves the words around it whole (not "API [redacted]ey"), and goes where it stands alone', () => {
    expect(redactKeyIn('the service did not accept the API key (401, request b4e51c32-cfa7)', 'e')).toBe(
      'the service did not accept the API key (401, request b4e51c32-cfa7)',
    );
    expect(redactKeyIn('{"x-client-api-key":"e"} e', 'e')).toBe('{"x-client-api-key":"[redacted]"} [redacted]');
    expect(redactKeyIn('KEY_k_INVALID', 'k')).toBe('KEY_[redacted]_INVALID');
  });

  it(`a key of ${MIN_SEARCHED_LENGTH} characters or more goes wherever it is, glued to other text or not`, () => {
    const key = 'sk_live_0123';
    expect(redactKeyIn(`api_key%3D${key}&x=1 ${key}${key}`, key)).toBe('api_key%3D[redacted]&x=1 [redacted][redacted]');
  });

  it('a key with characters a regular expression would read is matched literally', () => {
    expect(redactKeyIn('got a.b+ and axb', 'a.b+')).toBe('got [redacted] and axb');
    expect(redactKeyIn('cost: $ and $1', '$')).toBe('cost: [redacted] and $1');
  });

  it('no key: the text as it is', () => {
    expect(redactKeyIn('API key', null)).toBe('API key');
    expect(redactKeyIn('API key', '')).toBe('API key');
  });

  it('never leaves a key standing alone in a text, for any key', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[\x21-\x7e]{1,20}$/),
        fc.array(fc.constantFrom(' ', '"', ':', ',', '\n'), { minLength: 1, maxLength: 3 }),
        (key, gaps) => {
          const text = `before${gaps.join('')}${key}${gaps.join('')}after`;
          expect(redactKeyIn(text, key).split(/[\s":,]+/)).not.toContain(key);
        },
      ),
      { seed: 24_15 },
    );
  });
});
