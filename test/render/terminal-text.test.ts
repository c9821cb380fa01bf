import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonForTerminal, terminalSafe, truncate } from '../../src/render/terminal-text.js';
import { ACTIVE, CLEAR_SCREEN, CSI_8BIT, OSC_TITLE, RLO, hostileJson, hostileString } from './hostile-text.js';

describe('terminalSafe', () => {
  it('returns clean text unchanged, non-Latin scripts and emoji included', () => {
    for (const clean of ['', 'Jane Doe', 'Zoë Ø. Straße 5', '山田 太郎', 'محمد', '😀 👍🏽', 'C:\\path [x]']) {
      expect(terminalSafe(clean)).toBe(clean);
    }
  });

  it.each([
    ['an SGR colour change', 'a\x1b[31mred', 'a\\x1b[31mred'],
    ['clear screen and cursor home', `x${CLEAR_SCREEN}y`, 'x\\x1b[2J\\x1b[Hy'],
    ['an OSC title change ended by BEL', OSC_TITLE, '\\x1b]0;pwned\\x07'],
    ['an OSC ended by ESC \\', '\x1b]8;;http://evil\x1b\\link', '\\x1b]8;;http://evil\\x1b\\link'],
    ['an 8-bit CSI', `${CSI_8BIT}red`, '\\x9b31mred'],
    ['an 8-bit OSC', '\u009d0;t\u009c', '\\x9d0;t\\x9c'],
    ['a bidi override', `abc${RLO}fed`, 'abc\\u202efed'],
    ['bidi isolates and marks', '\u2066\u2069\u200e\u200f\u061c', '\\u2066\\u2069\\u200e\\u200f\\u061c'],
    ['a carriage return', 'safe\rEVIL', 'safe\\x0dEVIL'],
    ['NUL, BEL, backspace and DEL', '\x00\x07\x08\x7f', '\\x00\\x07\\x08\\x7f'],
    ['a newline and a tab', 'a\nb\tc', 'a\\nb\\tc'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['a lone surrogate', 'a\ud800b', 'a\\ud800b'],
  ])('shows %s as printable escapes', (_what, input, shown) => {
    expect(terminalSafe(input)).toBe(shown);
  });

  it('keeps surrogate pairs whole', () => {
    expect(terminalSafe('😀\x1b😀')).toBe('😀\\x1b😀');
  });

  it('leaves nothing a terminal could act on, for any string', () => {
    fc.assert(
      fc.property(hostileString, (s) => {
        expect(terminalSafe(s)).not.toMatch(ACTIVE);
      }),
    );
  });
});

describe('truncate', () => {
  it('leaves a string within the limit as it is', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('😀😀😀', 3)).toBe('😀😀😀');
  });

  it('cuts a 100 KB string and says how much was cut', () => {
    const long = 'x'.repeat(100_000);
    expect(truncate(long, 200)).toBe(`${'x'.repeat(200)}… (+99,800 chars)`);
  });

  it('counts and cuts by code point, never splitting a surrogate pair', () => {
    expect(truncate('😀'.repeat(10), 3)).toBe('😀😀😀… (+7 chars)');
    expect(truncate(`ab${'😀'.repeat(5)}`, 3)).toBe('ab😀… (+4 chars)');
    expect(truncate('😀'.repeat(10), 3)).not.toMatch(/[\ud800-\udfff]/u);
  });

  it('treats a negative limit as zero', () => {
    expect(truncate('abc', -1)).toBe('… (+3 chars)');
  });
});

describe('jsonForTerminal', () => {
  const hostile = {
    userName: `${CLEAR_SCREEN}${OSC_TITLE}${CSI_8BIT}${RLO}\x00\r\x7f\u2028end`,
    nested: [{ [`key${RLO}`]: '\u2066x\u2069' }],
    amount: 1520,
    ok: null,
  };

  it('escapes every control and bidi character and parses back to the same value', () => {
    for (const pretty of [false, true]) {
      const text = jsonForTerminal(hostile, pretty);
      // Line feeds are only the indentation's, between lines.
      expect(text.split('\n').every((line) => !ACTIVE.test(line))).toBe(true);
      expect(JSON.parse(text)).toEqual(hostile);
    }
  });

  it('shows the escapes where the characters were', () => {
    expect(jsonForTerminal({ s: `a${RLO}b\u009bc\u2028` }, false)).toBe('{"s":"a\\u202eb\\u009bc\\u2028"}');
  });

  it('indents by two spaces when pretty, and is one line otherwise', () => {
    expect(jsonForTerminal({ a: [1] }, true)).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(jsonForTerminal({ a: [1] }, false)).toBe('{"a":[1]}');
  });

  it('gives null for a top-level undefined instead of no text', () => {
    expect(jsonForTerminal(undefined, false)).toBe('null');
  });

  it('round-trips any JSON value like JSON.stringify does', () => {
    fc.assert(
      fc.property(hostileJson, fc.boolean(), (value, pretty) => {
        const text = jsonForTerminal(value, pretty);
        expect(text.split('\n').every((line) => !ACTIVE.test(line))).toBe(true);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
