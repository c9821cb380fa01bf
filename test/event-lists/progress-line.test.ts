import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../src/event-lists/event-row.js';
import { ListCounts } from '../../src/event-lists/list-counts.js';
import { createProgressLine } from '../../src/event-lists/progress-line.js';

function capture(isTTY: boolean, columns?: number) {
  const stream = Object.assign(new PassThrough(), { isTTY, rows: 4 }, columns === undefined ? {} : { columns });
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}
const row: EventRow = { kind: 'found', id: 'e', summary: {}, assessment: {} };
const missing: EventRow = {
  kind: 'not-found',
  id: 'x',
  error: { status: 404, errorType: 'NOT_FOUND', errorCodes: [], requestId: null, message: '' },
};

describe('the progress line of a long list', () => {
  it('on a terminal, once the list is longer than a screenful: one line redrawn in place, erased at the end', () => {
    const err = capture(true);
    let clock = 0;
    const progress = createProgressLine(err.stream, { stdoutIsTerminal: false, now: () => clock, intervalMs: 100 });
    const counts = new ListCounts();
    for (let i = 0; i < 4; i++) {
      counts.add(row);
      progress.update(counts);
    }
    expect(err.text()).toBe(''); // a screenful (4 rows here) needs no progress line
    clock = 1000;
    counts.add(missing);
    progress.update(counts);
    counts.add(row);
    progress.update(counts); // within 100 ms of the last: not drawn again
    clock = 2000;
    counts.add(row);
    progress.update(counts);
    progress.stop();
    expect(err.text()).toBe(
      '\r\x1b[K5 ids · 4 found · 1 not found · 5/s\r\x1b[K7 ids · 6 found · 1 not found · 4/s\r\x1b[K',
    );
  });

  it('a count put off by the interval is drawn when the interval is up, though no row follows (ids that come slowly)', async () => {
    const err = capture(true);
    let clock = 0;
    const progress = createProgressLine(err.stream, {
      stdoutIsTerminal: false,
      screenful: 0,
      now: () => clock,
      intervalMs: 20,
    });
    const counts = new ListCounts();
    counts.add(row);
    progress.update(counts);
    counts.add(missing);
    progress.update(counts); // within the interval: put off
    expect(err.text()).toBe('\r\x1b[K1 ids · 1 found · 0 not found');
    clock = 1000;
    await expect
      .poll(() => err.text(), { timeout: 5000 })
      .toBe('\r\x1b[K1 ids · 1 found · 0 not found\r\x1b[K2 ids · 1 found · 1 not found · 2/s');
    progress.stop();
  });

  it('with the rows on the same terminal: erased before rows, drawn again after them', () => {
    const err = capture(true);
    const progress = createProgressLine(err.stream, { stdoutIsTerminal: true, screenful: 0, now: () => 0 });
    const counts = new ListCounts();
    counts.add(row);
    progress.beforeRows();
    progress.update(counts);
    progress.beforeRows();
    progress.update(counts);
    progress.stop();
    expect(err.text()).toBe(
      '\r\x1b[K1 ids · 1 found · 0 not found\r\x1b[K\r\x1b[K1 ids · 1 found · 0 not found\r\x1b[K',
    );
  });

  it('never wider than the terminal: cut short of its width, so that it never wraps and \\r redraws it whole', () => {
    const err = capture(true, 20);
    const progress = createProgressLine(err.stream, { stdoutIsTerminal: false, screenful: 0, now: () => 0 });
    const counts = new ListCounts();
    counts.add(row);
    progress.update(counts);
    progress.stop();
    expect(err.text()).toBe('\r\x1b[K1 ids · 1 found · 0\r\x1b[K');
  });

  it('never in a pipe or a file', () => {
    const err = capture(false);
    const progress = createProgressLine(err.stream, { stdoutIsTerminal: false, screenful: 0 });
    const counts = new ListCounts();
    counts.add(row);
    progress.update(counts);
    progress.stop();
    expect(err.text()).toBe('');
  });
});
