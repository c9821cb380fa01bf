import { describe, expect, it } from 'vitest';
import { envFacts } from '../../src/commands/room-deps.js';

/*
 * The environment a room renders by, taken from the process's: colour and the locale (evaluate
 * picks its marks by LANG/LC_*, src/render/symbols.ts) — one list for every room, so that evaluate
 * needs no copy of its own — and nothing else of the environment (a key, a path) reaches a room.
 */

describe('envFacts', () => {
  it('keeps the colour and locale variables that are set, and only those', () => {
    const env = { NO_COLOR: '1', TERM: 'dumb', LANG: 'C', LC_ALL: 'en_US.UTF-8', LC_CTYPE: 'C', FRAUDCTL_API_KEY: 'k' };
    expect(envFacts({ ...env, HOME: '/root' })).toStrictEqual({
      NO_COLOR: '1',
      TERM: 'dumb',
      LANG: 'C',
      LC_ALL: 'en_US.UTF-8',
      LC_CTYPE: 'C',
    });
  });
});
