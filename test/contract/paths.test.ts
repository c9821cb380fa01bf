import { describe, expect, it } from 'vitest';
import { canBeInPath, eventPath } from '../../src/contract/paths.js';

describe('canBeInPath: an id that can name an event in a URL', () => {
  it.each([
    ['ord-1002', true],
    ['', true],
    ['emoji 😀 (a surrogate pair)', true],
    ['a lone high half \ud83d', false],
    ['\ude00 a lone low half', false],
    ['halves in the wrong order \ude00\ud83d', false],
  ])('%j: %s', (id, can) => {
    expect(canBeInPath(id)).toBe(can);
    // What it decides: whether the id can be percent-encoded into a path at all.
    if (can) expect(eventPath(id)).toMatch(/^\/event\//);
    else expect(() => eventPath(id)).toThrow(URIError);
  });
});
