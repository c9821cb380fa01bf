import { afterEach, describe, expect, it } from 'vitest';
import { localeIsUtf8, sym, symbolsFor, useSymbolsFor } from '../../src/render/symbols.js';

/*
 * The locale decides whether fraudctl draws with UTF-8 marks or ASCII ones, as the C library
 * reads it: LC_ALL, then LC_CTYPE, then LANG, the first one set and not empty.
 */

afterEach(() => {
  useSymbolsFor({ LANG: 'C.UTF-8' }, 'linux');
});

describe('localeIsUtf8', () => {
  it.each<[string, NodeJS.ProcessEnv, NodeJS.Platform, boolean]>([
    ['LANG=C.UTF-8', { LANG: 'C.UTF-8' }, 'linux', true],
    ['LANG=en_US.utf8', { LANG: 'en_US.utf8' }, 'linux', true],
    ['LANG=C', { LANG: 'C' }, 'linux', false],
    ['LANG=POSIX', { LANG: 'POSIX' }, 'darwin', false],
    ['Latin-1', { LANG: 'de_DE.ISO-8859-1' }, 'linux', false],
    ['LC_ALL wins over LANG', { LC_ALL: 'C', LANG: 'en_US.UTF-8' }, 'linux', false],
    ['LC_CTYPE wins over LANG', { LC_CTYPE: 'en_US.UTF-8', LANG: 'C' }, 'linux', true],
    ['an empty LC_ALL is not set', { LC_ALL: '', LANG: 'C' }, 'linux', false],
    ['no locale, a terminal emulator', { TERM: 'xterm-256color' }, 'linux', true],
    ['no locale, the Linux console', { TERM: 'linux' }, 'linux', false],
    ['no locale, Windows', {}, 'win32', true],
    ['LANG=C on Windows too', { LANG: 'C' }, 'win32', false],
  ])('%s', (_, env, platform, utf8) => {
    expect(localeIsUtf8(env, platform)).toBe(utf8);
  });
});

describe('useSymbolsFor', () => {
  it('changes what sym gives to every reader, and back', () => {
    expect(useSymbolsFor({ LANG: 'C' }, 'linux')).toBe(true);
    expect([sym.dot, sym.arrow, sym.ellipsis, sym.tableChars['top-left']]).toEqual(['-', '->', '...', '+']);
    expect(useSymbolsFor({ LANG: 'en_GB.UTF-8' }, 'linux')).toBe(false);
    expect([sym.dot, sym.arrow, sym.ellipsis, sym.tableChars['top-left']]).toEqual(['·', '→', '…', '┌']);
  });

  it('the ASCII set is ASCII', () => {
    useSymbolsFor({ LANG: 'C' }, 'linux');
    const { tableChars, chartMarks, ...marks } = sym;
    for (const text of [...Object.values(marks), ...Object.values(tableChars), ...chartMarks])
      expect(text).toMatch(/^[\x20-\x7e]+$/);
    expect(symbolsFor(true)).toEqual(sym);
  });
});
