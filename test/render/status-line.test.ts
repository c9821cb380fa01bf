import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStatusLine } from '../../src/render/status-line.js';

const ERASE = '\r\x1b[K';

function terminal(columns: number | null = 80) {
  const stream = { text: '', columns, write: (t: string) => void (stream.text += t) };
  return stream;
}

describe('the progress line of a terminal', () => {
  // Its put-off drawing is a timer of its own: the test moves the clock instead of sleeping.
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is drawn at once, then at most once an interval: a text put off is drawn when the time is up, the latest one', () => {
    const err = terminal();
    let clock = 0;
    const line = createStatusLine(err, { intervalMs: 100, now: () => clock });
    line.show('1 of 3');
    clock = 40;
    line.show('2 of 3');
    line.show('3 of 3');
    expect(err.text).toBe(`${ERASE}1 of 3`);
    clock = 100;
    vi.advanceTimersByTime(60);
    expect(err.text).toBe(`${ERASE}1 of 3${ERASE}3 of 3`);
    line.stop();
    expect(err.text).toBe(`${ERASE}1 of 3${ERASE}3 of 3${ERASE}`);
  });

  it('output goes above it: erased, written, drawn again; a last text stays on the screen, a line of its own', () => {
    const err = terminal();
    const line = createStatusLine(err, { now: () => 0 });
    line.show('working');
    line.above(() => err.write('a result\n'));
    line.stop('done');
    expect(err.text).toBe(`${ERASE}working${ERASE}a result\n${ERASE}working${ERASE}done\n`);
  });

  it('erased for output written in steps: off the screen, a put-off drawing dropped, back with the next text', () => {
    const err = terminal();
    let clock = 0;
    const line = createStatusLine(err, { intervalMs: 100, now: () => clock });
    line.show('1 of 3');
    line.show('2 of 3'); // put off by the interval
    line.erase();
    vi.advanceTimersByTime(200);
    expect(err.text).toBe(`${ERASE}1 of 3${ERASE}`); // the put-off drawing would land among the output
    err.write('a result\n');
    clock = 10;
    line.show('3 of 3'); // within the interval, but the line is off the screen: drawn at once
    expect(err.text).toBe(`${ERASE}1 of 3${ERASE}a result\n${ERASE}3 of 3`);
  });

  it('a text given as a function is worded when drawn, not when given', () => {
    const err = terminal();
    let clock = 0;
    const line = createStatusLine(err, { intervalMs: 100, now: () => clock });
    line.show(() => `at ${clock}`);
    line.show(() => `at ${clock}`); // put off
    clock = 100;
    vi.advanceTimersByTime(100);
    expect(err.text).toBe(`${ERASE}at 0${ERASE}at 100`);
  });

  it('never wraps: cut short of the terminal width, which would make \\r redraw only its end', () => {
    const err = terminal(10);
    createStatusLine(err).show('0123456789abcdef');
    expect(err.text).toBe(`${ERASE}012345678`);
    const unknown = terminal(null);
    createStatusLine(unknown).show('0123456789abcdef');
    expect(unknown.text).toBe(`${ERASE}0123456789abcdef`);
  });

  it('stopped before anything was drawn, writes nothing', () => {
    const err = terminal();
    createStatusLine(err).stop();
    expect(err.text).toBe('');
  });
});
