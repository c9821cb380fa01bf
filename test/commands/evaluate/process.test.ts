import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/sandbox.js';
import { HEADER, resultLine } from './evaluate-harness.js';

/*
 * The thin part that needs a process: exit codes and the one line of a bad input, through the
 * built CLI (npm run build first). Everything else is tested in-process through run().
 */

const tmp = tempDir('fraudctl-evaluate-process-');
afterAll(() => tmp.remove());
const env = cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, 'config'), XDG_DATA_HOME: join(tmp.dir, 'data') });
const put = (name: string, text: string) => {
  const path = join(tmp.dir, name);
  writeFileSync(path, text);
  return path;
};
const results = put(
  'results.jsonl',
  [
    HEADER,
    resultLine(1, 'p-1', 'APPROVE', 10, [], 5),
    resultLine(2, 'p-2', 'DECLINE', 90, ['high_amount'], 50),
    '',
  ].join('\n'),
);
const labels = put('labels.csv', 'id\np-2\n');

describe('fraudctl evaluate, as a process', () => {
  it('exit 0 with the report on stdout, nothing on stderr, no service asked (no sandbox started)', async () => {
    const r = await runCli(['evaluate', results, '--labels', labels, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ complete: true, decisions: { DECLINE: { fraud: 1 } } });
  });

  it.each([
    [
      'a missing outcomes file',
      [results, '--labels', join(tmp.dir, 'nope.csv')],
      `error: no such file: ${join(tmp.dir, 'nope.csv')} (an outcomes file (CSV with a header, or JSON Lines))`,
    ],
    [
      'a missing results file',
      [join(tmp.dir, 'gone.jsonl'), '--labels', labels],
      `error: no such file: ${join(tmp.dir, 'gone.jsonl')} (a results file of fraudctl submit --out)`,
    ],
    [
      'a results file that is not one',
      [labels, '--labels', labels],
      `error: ${labels}:1 is not a result of fraudctl submit: id`,
    ],
  ])('%s: exit 2, one line (and its hint), nothing on stdout', async (_what, args, first) => {
    const r = await runCli(['evaluate', ...args], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(first);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a bad flag value: exit 2 naming the flag', async () => {
    const r = await runCli(['evaluate', results, '--labels', labels, '--by', 'month'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/option '--by <period>' argument 'month' is invalid/);
  });
});
