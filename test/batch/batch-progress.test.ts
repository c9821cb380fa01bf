import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProgress } from '../../src/batch/batch-progress.js';
import { sym } from '../../src/render/symbols.js';
import { BatchStats } from '../../src/submit-batch/batch-stats.js';
import type { LineResult } from '../../src/results-file/submit-result.js';

const decided = (line: number, actionType: string): LineResult => ({
  line,
  id: null,
  idAssigned: false,
  alreadyExisted: false,
  stateNow: null,
  outcome: 'DECIDED',
  status: 201,
  actionType,
  totalRiskScore: 1,
  errorType: null,
  errorCodes: [],
  attempts: 1,
  latencyMs: line,
  column: 1,
});

function capture(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

describe('batch progress', () => {
  // The interval is the progress line's own timer: the test moves the clock instead of sleeping.
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('without a terminal: a plain line every interval with done/total, percentage and counts', () => {
    const stats = new BatchStats();
    const out = capture(false);
    const progress = createProgress(stats, out.stream, { quiet: false, total: 4, intervalMs: 20 });
    stats.add(decided(1, 'APPROVE'), undefined);
    stats.add(decided(2, 'DECLINE'), undefined);
    stats.add({ ...decided(3, 'X'), outcome: 'FAILED', actionType: null, errorType: 'TIMEOUT' }, 'timed out');
    vi.advanceTimersByTime(20);
    progress.stop();
    expect(out.text()).toMatch(
      /^progress: 3 of 4 \(75%\) events · [\d,]+ events\/s · APPROVE 1 · REVIEW 0 · DECLINE 1 · errors 1$/m,
    );
    expect(out.text()).not.toContain('\u001b');
  });

  it("after --resume: the position counts what the earlier run did, said apart from this run's own counts and rate", () => {
    const stats = new BatchStats();
    const out = capture(false);
    const progress = createProgress(stats, out.stream, { quiet: false, total: 2_000, intervalMs: 20, resumed: true });
    stats.skipped = 1_000;
    stats.add(decided(1001, 'APPROVE'), undefined);
    stats.add(decided(1002, 'DECLINE'), undefined);
    vi.advanceTimersByTime(20);
    progress.stop();
    const line =
      /^progress: 1,002 of 2,000 \(50%\) events · 1,000 done earlier · this run: 2 · [\d,]+ events\/s · APPROVE 1 · REVIEW 0 · DECLINE 1 · errors 0$/m;
    expect(out.text()).toMatch(line);
  });

  it('after --resume on a terminal: the bar says the same', () => {
    const stats = new BatchStats();
    const out = capture(true);
    const progress = createProgress(stats, out.stream, { quiet: false, total: 2_000, resumed: true });
    stats.skipped = 1_000;
    stats.add(decided(1001, 'APPROVE'), undefined);
    progress.tick();
    progress.stop();
    expect(out.text()).toMatch(
      / 1,001\/2,000 events · ETA \S+ · 1,000 done earlier · this run: 1 · [\d,]+\/s · APPROVE 1 · REVIEW 0 /,
    );
  });

  it('on a terminal: one line cut to its width, no ETA before any rate, and the last drawing left on the screen', () => {
    const stats = new BatchStats();
    const out = capture(true);
    Object.assign(out.stream, { columns: 60 });
    const progress = createProgress(stats, out.stream, { quiet: false, total: 4 });
    progress.stop();
    const { barLeft, dash, dot } = sym;
    const whole = `${barLeft.repeat(24)} 0/4 events ${dot} 0/s ${dot} ETA ${dash} ${dot} APPROVE 0 ${dot} REVIEW 0 ${dot} DECLINE 0`;
    // Drawn at the start, and again at the end, left there: cut to 59 characters, short of the width.
    expect(out.text()).toBe(`\r\x1b[K${whole.slice(0, 59)}\r\x1b[K${whole.slice(0, 59)}\n`);
  });

  it('--quiet: nothing at all', () => {
    const stats = new BatchStats();
    const out = capture(true);
    const progress = createProgress(stats, out.stream, { quiet: true, total: 2, intervalMs: 10 });
    stats.add(decided(1, 'APPROVE'), undefined);
    progress.tick();
    vi.advanceTimersByTime(1_000);
    progress.stop();
    expect(out.text()).toBe('');
  });
});

describe('batch stats', () => {
  it('percentiles to the millisecond from the histogram', () => {
    const stats = new BatchStats();
    for (let ms = 1; ms <= 100; ms++) stats.add(decided(ms, 'APPROVE'), undefined);
    expect([stats.percentile(0.5), stats.percentile(0.95), stats.percentile(0.99)]).toEqual([50, 95, 99]);
    expect(stats.count('APPROVE')).toBe(100);
  });
});
