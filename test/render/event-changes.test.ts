import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { createStyle } from '../../src/render/colours.js';
import { changed, renderWatchChange, renderWatchStart, timestamp } from '../../src/render/event-changes.js';
import { ACTIVE, SGR, hostileJson } from './hostile-text.js';

const plain = createStyle(0);
const at = new Date('2026-11-20T22:45:01.250Z');
const before = { state: 'PENDING_REVIEW', decision: 'REVIEW', comments: null };

describe('the lines of a watch', () => {
  it('the start, then only what changed', () => {
    expect(renderWatchStart(at, before, plain, null)).toBe(
      '2026-11-20T22:45:01Z  state PENDING_REVIEW · decision REVIEW · comments –',
    );
    expect(renderWatchChange(at, before, { ...before, state: 'IN_REVIEW', comments: 'called' }, plain, null)).toBe(
      '2026-11-20T22:45:01Z  state PENDING_REVIEW → IN_REVIEW · comments "called"',
    );
    expect(
      renderWatchChange(
        at,
        { ...before, comments: 'x' },
        { ...before, decision: 'DECLINE', comments: null },
        plain,
        null,
      ),
    ).toBe('2026-11-20T22:45:01Z  decision REVIEW → DECLINE · comments removed');
    expect(renderWatchStart(at, { ...before, decision: undefined }, plain, null)).toBe(
      '2026-11-20T22:45:01Z  state PENDING_REVIEW · comments –',
    );
  });

  it('compares by value', () => {
    expect(changed(before, { ...before })).toBe(false);
    expect(changed({ ...before, comments: { a: [1] } }, { ...before, comments: { a: [1] } })).toBe(false);
    expect(changed(before, { ...before, comments: '' })).toBe(true);
  });

  it('timestamps in UTC to the second', () => {
    expect(timestamp(at)).toBe('2026-11-20T22:45:01Z');
  });

  it('whatever the service sends: one line, nothing a terminal acts on, within the terminal width', () => {
    fc.assert(
      fc.property(
        hostileJson,
        hostileJson,
        hostileJson,
        fc.integer({ min: 30, max: 200 }),
        (state, decision, comments, columns) => {
          for (const style of [plain, createStyle(1)]) {
            const lines = [
              renderWatchStart(at, { state, decision, comments }, style, columns),
              renderWatchChange(at, before, { state, decision, comments }, style, columns),
            ];
            for (const line of lines) {
              expect(line.replace(SGR, '')).not.toMatch(ACTIVE);
              expect(stringWidth(line)).toBeLessThanOrEqual(columns);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
