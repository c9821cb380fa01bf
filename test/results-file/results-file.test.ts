import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatResult, readLineResult, type LineResult } from '../../src/results-file/submit-result.js';
import { headerText, markClosed } from '../../src/results-file/header.js';
import { LineFile } from '../../src/results-file/line-file.js';
import { MAX_LINES_IN_PROGRESS, prepareResume } from '../../src/results-file/prior-run.js';
import { sendingText } from '../../src/results-file/sending.js';
import { MAX_CONCURRENCY } from '../../src/commands/number-options.js';
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
  formatResult({
    line,
    id,
    outcome,
    status: outcome === 'DECIDED' ? 201 : null,
    actionType: null,
    totalRiskScore: null,
    errorType: null,
    errorCodes: [],
    attempts: 1,
    latencyMs: 3,
    column: 1,
    idAssigned: false,
    alreadyExisted: false,
    stateNow: null,
  });

describe('prepareResume', () => {
  it('keeps decided, rejected and unknown lines, drops failed ones and a line cut off by a crash, and rewrites the file with what it kept', async () => {
    const kept = [result(1, 'DECIDED'), result(3, 'REJECTED'), result(4, 'UNKNOWN', null)];
    const p = file(
      [kept[0], result(2, 'FAILED'), kept[1], kept[2], result(6, 'FAILED', null), '{"line":5,"id":"e-5","outc'].join(
        '\n',
      ),
    );
    const prior = await prepareResume(p, readLineResult);
    expect(readFileSync(p, 'utf8')).toBe(`${kept.join('\n')}\n`);
    expect([1, 3, 4].map((l) => prior.isSettled(l))).toEqual([true, true, true]);
    expect([2, 5, 6].map((l) => prior.isSettled(l))).toEqual([false, false, false]);
    expect(prior.settledCount).toBe(3);
    expect(prior.dropped).toBe(3);
  });

  it('reads back the recorded id of every settled line, from the rewritten file, also after this run appends to it', async () => {
    const long = `id-${'é'.repeat(5000)}`;
    const p = file(
      [result(3, 'DECIDED'), result(1, 'FAILED'), result(2, 'REJECTED', null), result(7, 'UNKNOWN', long)].join('\n'),
    );
    const prior = await prepareResume(p, readLineResult);
    const appended = LineFile.open(p, 'append', '--out');
    appended.write(result(1, 'DECIDED', 'later'));
    appended.close();
    expect([1, 2, 3, 4, 7].map((l) => prior.recordedId(l))).toEqual([undefined, null, 'e-3', undefined, long]);
    prior.close();
  });

  it('checks a failed line with an id first, and the first unrecorded lines the dead run may have had in progress (asked in input order)', async () => {
    const p = file(`${result(2, 'FAILED')}\n${result(3, 'FAILED', null)}\n${result(1000, 'DECIDED')}\n`);
    const prior = await prepareResume(p, readLineResult);
    expect(prior.maySentBefore(1)).toBe(true);
    expect(prior.maySentBefore(2)).toBe(true);
    // Recorded FAILED without an id: nothing was stored, and it was not in progress.
    expect(prior.maySentBefore(3)).toBe(false);
    // Lines waiting out a Retry-After give up their request slot, so more lines than
    // --concurrency (at most 256) can have been sent and not recorded: the window is the bound
    // on lines in progress, the one the batch's pool enforces, counted over unrecorded lines.
    expect(MAX_LINES_IN_PROGRESS).toBeGreaterThan(MAX_CONCURRENCY);
    for (let line = 4; line < 1000; line++) expect(prior.maySentBefore(line)).toBe(true);
    // Lines 1 and 4..999 are 997 unrecorded lines; 27 more past line 1000 make 1,024.
    for (let line = 1001; line <= 1027; line++) expect(prior.maySentBefore(line)).toBe(true);
    expect(prior.maySentBefore(1028)).toBe(false);
  });

  it('after a run that closed its header (everything it took recorded), no unrecorded line can have been sent', async () => {
    const header = headerText({ command: 'submit', service: 'http://x', options: {} });
    const p = file(`${header}\n${result(1, 'DECIDED')}\n${result(2, 'FAILED')}\n`);
    markClosed(p, header);
    expect(readFileSync(p, 'utf8').split('\n')[0]).toBe(header.replace('"closed":false}', '"closed":true }'));
    const prior = await prepareResume(p, readLineResult, header);
    expect(prior.header?.closed).toBe(true);
    expect(prior.maySentBefore(2)).toBe(true);
    expect(prior.maySentBefore(3)).toBe(false);
    // The rewritten file starts with this run's header, open again.
    expect(readFileSync(p, 'utf8')).toBe(`${header}\n${result(1, 'DECIDED')}\n`);
  });

  it('an item without an id that cannot be checked: sent before only if the run recorded `sending` for it (and kept so when unresolved)', async () => {
    const header = headerText({ command: 'submit', service: 'http://x', options: {} });
    expect(JSON.parse(header)).toMatchObject({ marksSends: true, closed: false });
    // Line 2 was sent and answered; line 4 was being sent when the run died; line 6 was never sent.
    const p = file(
      `${header}\n${sendingText(2, 1)}\n${result(1, 'DECIDED')}\n${sendingText(4, 1)}\n${result(2, 'DECIDED', null)}\n`,
    );
    const prior = await prepareResume(p, readLineResult, header);
    expect([3, 4, 5, 6].map((line) => prior.maySentBefore(line, 1, true))).toEqual([false, true, false, false]);
    // The unresolved one stays recorded (a run killed again before it reaches line 4 still knows); the resolved one goes.
    expect(readFileSync(p, 'utf8')).toBe(
      `${header}\n${result(1, 'DECIDED')}\n${result(2, 'DECIDED', null)}\n${sendingText(4, 1)}\n`,
    );
    expect((await prepareResume(p, readLineResult, header)).maySentBefore(4, 1, true)).toBe(true);
    // A file whose run did not record its sends: any of the first unrecorded lines may have been sent.
    const old = file(`${result(1, 'DECIDED')}\n`);
    expect((await prepareResume(old, readLineResult)).maySentBefore(2, 1, true)).toBe(true);
  });

  it('refuses a file whose lines are not fraudctl results, and leaves it as it was', async () => {
    const content = `${result(1, 'DECIDED')}\nhello\n${result(2, 'DECIDED')}\n`;
    const p = file(content);
    await expect(prepareResume(p, readLineResult)).rejects.toThrow(UsageError);
    await expect(prepareResume(p, readLineResult)).rejects.toThrow(/line 2 is not a fraudctl result/);
    expect(readFileSync(p, 'utf8')).toBe(content);
  });

  it('refuses a file that does not exist (exit 2): a lost results file is never a fresh start that sends everything again', async () => {
    const path = join(tmp.dir, 'none.jsonl');
    await expect(prepareResume(path, readLineResult)).rejects.toMatchObject({
      exitCode: 2,
      message: `no results file ${path} to resume`,
      hint: 'run without --resume to start',
    });
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
