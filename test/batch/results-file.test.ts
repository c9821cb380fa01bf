import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatResult, type LineResult } from '../../src/batch/line-result.js';
import { LineFile, MAX_CONCURRENCY, prepareResume } from '../../src/batch/results-file.js';
import { UsageError } from '../../src/errors/cli-error.js';
import { tempDir } from '../support/sandbox.js';

const tmp = tempDir('fraudctl-results-');
afterAll(() => tmp.remove());
let n = 0;
const file = (content: string) => {
  const p = join(tmp.dir, `${++n}.jsonl`);
  writeFileSync(p, content);
  return p;
};

const result = (line: number, outcome: LineResult['outcome'], id: string | null = `e-${line}`): string =>
  formatResult({ line, id, outcome, status: outcome === 'DECIDED' ? 201 : null, actionType: null, totalRiskScore: null, errorType: null, errorCodes: [], attempts: 1, latencyMs: 3, column: 1 });

describe('prepareResume', () => {
  it('keeps decided, rejected and unknown lines, drops failed ones and a line cut off by a crash, and rewrites the file with what it kept', async () => {
    const kept = [result(1, 'DECIDED'), result(3, 'REJECTED'), result(4, 'UNKNOWN', null)];
    const p = file([kept[0], result(2, 'FAILED'), kept[1], kept[2], result(6, 'FAILED', null), '{"line":5,"id":"e-5","outc'].join('\n'));
    const prior = await prepareResume(p);
    expect(readFileSync(p, 'utf8')).toBe(`${kept.join('\n')}\n`);
    expect([1, 3, 4].map((l) => prior.isSettled(l))).toEqual([true, true, true]);
    expect([2, 5, 6].map((l) => prior.isSettled(l))).toEqual([false, false, false]);
    expect(prior.settledCount).toBe(3);
    expect(prior.dropped).toBe(3);
  });

  it('checks a failed line with an id first, and any unrecorded line the dead run may have had in flight', async () => {
    const p = file(`${result(2, 'FAILED')}\n${result(1000, 'DECIDED')}\n`);
    const prior = await prepareResume(p);
    expect(prior.maySentBefore(2)).toBe(true);
    expect(prior.maySentBefore(999)).toBe(true);
    expect(prior.maySentBefore(1000 + MAX_CONCURRENCY)).toBe(true);
    expect(prior.maySentBefore(1001 + MAX_CONCURRENCY)).toBe(false);
  });

  it('refuses a file whose lines are not fraudctl results, and leaves it as it was', async () => {
    const content = `${result(1, 'DECIDED')}\nhello\n${result(2, 'DECIDED')}\n`;
    const p = file(content);
    await expect(prepareResume(p)).rejects.toThrow(UsageError);
    await expect(prepareResume(p)).rejects.toThrow(/line 2 is not a fraudctl result/);
    expect(readFileSync(p, 'utf8')).toBe(content);
  });

  it('starts fresh when the file does not exist yet', async () => {
    const prior = await prepareResume(join(tmp.dir, 'none.jsonl'));
    expect(prior.settledCount).toBe(0);
    expect(prior.maySentBefore(1)).toBe(true);
    expect(prior.maySentBefore(MAX_CONCURRENCY + 1)).toBe(false);
  });
});

describe('LineFile', () => {
  it('will not create over an existing file, and says what to do', () => {
    const p = file('x\n');
    expect(() => LineFile.open(p, 'create', '--out')).toThrow(/already exists/);
    expect(readFileSync(p, 'utf8')).toBe('x\n');
  });

  it('appends whole lines', () => {
    const p = file('a\n');
    const f = LineFile.open(p, 'append', '--out');
    f.write('b');
    f.close();
    expect(readFileSync(p, 'utf8')).toBe('a\nb\n');
  });
});
