import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headerText } from '../../src/results-file/header.js';
import { prepareResume } from '../../src/results-file/prior-run.js';
import { formatResult, readLineResult, type LineResult } from '../../src/results-file/submit-result.js';
import { openRejects } from '../../src/submit-batch/rejects-file.js';
import { tempDir } from '../support/sandbox.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * The rejects file brought in line with the results on --resume: its lines are those of the
 * results without a decision, in the same order; a line written just before a crash kept its
 * result from being written (the rejects line goes first), and is dropped with it.
 */

const tmp = tempDir('fraudctl-rejects-');
afterAll(() => tmp.remove());
const result = (line: number, outcome: LineResult['outcome']) =>
  formatResult({
    line,
    id: `r-${line}`,
    outcome,
    status: null,
    actionType: null,
    totalRiskScore: null,
    errorType: null,
    errorCodes: [],
    attempts: 1,
    latencyMs: 1,
    column: 1,
    idAssigned: false,
    alreadyExisted: false,
    stateNow: null,
  });
const header = headerText({ command: 'submit', service: 'http://x', options: { rejects: null } });

describe('openRejects on --resume', () => {
  it('keeps the lines of results that stay without a decision, drops those of FAILED results (done again) and a last line whose result was never written', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const out = join(tmp.dir, 'out.jsonl');
    writeFileSync(
      out,
      [
        header,
        result(1, 'DECIDED'),
        result(2, 'REJECTED'),
        result(3, 'FAILED'),
        result(4, 'UNKNOWN'),
        result(5, 'FAILED'),
      ].join('\n') + '\n',
    );
    const rejects = join(tmp.dir, 'rejects.jsonl');
    // Lines 2, 3, 4, 5 had no decision; line 6's rejects line was written, then the run died.
    writeFileSync(rejects, 'two\nthree\nfour\nfive\nsix\n', { mode: 0o644 });
    const prior = await prepareResume(out, readLineResult, header);
    const warnings: string[] = [];
    const file = await openRejects(rejects, prior, (w) => warnings.push(w));
    file.write('three again');
    file.close();
    prior.close();
    expect(readFileSync(rejects, 'utf8')).toBe('two\nfour\nthree again\n');
    expect(warnings).toEqual([]);
    expect(statSync(rejects).mode & 0o777).toBe(0o600);
  });

  it("a rejects file with fewer lines than the results without a decision is not the run's: left as it is, added to, and said so", async () => {
    const out = join(tmp.dir, 'out2.jsonl');
    writeFileSync(out, [header, result(1, 'REJECTED'), result(2, 'REJECTED')].join('\n') + '\n');
    const rejects = join(tmp.dir, 'rejects2.jsonl');
    writeFileSync(rejects, 'only one\n');
    const prior = await prepareResume(out, readLineResult, header);
    const warnings: string[] = [];
    (await openRejects(rejects, prior, (w) => warnings.push(w))).close();
    prior.close();
    expect(readFileSync(rejects, 'utf8')).toBe('only one\n');
    expect(warnings[0]).toMatch(/has 1 line for 2 results without a decision/);
  });
});
