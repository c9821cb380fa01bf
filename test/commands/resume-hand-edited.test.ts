import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { makeLines, readResults } from '../support/batch-events.js';

/*
 * Results files edited by hand, then --resume: a line twice, a line past the end
 * of the input, a byte order mark an editor added, a huge region without a line break. Each is
 * refused with one line saying what is wrong and where (exit 2), no stack trace, the file as it
 * was and no temp file left beside it.
 */

const cli = useSandboxForCli();
let n = 0;

/** A finished batch of `count` events: its input, its results file, and the results file's lines. */
async function finished(name: string, count: number) {
  const dir = join(cli.dir, `${++n}-${name}`);
  (await import('node:fs')).mkdirSync(dir);
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, `${makeLines(`${name}-${n}`, count).join('\n')}\n`);
  const out = join(dir, 'out.jsonl');
  const first = await cli.run(['submit', input, '--out', out]);
  expect(first.code, first.stderr).toBe(0);
  return { dir, input, out, lines: readFileSync(out, 'utf8').split('\n').filter(Boolean) };
}

function expectRefused(result: { code: number | null; stderr: string }, message: RegExp) {
  expect(result.code, result.stderr).toBe(2);
  const errors = result.stderr.split('\n').filter((l) => l.startsWith('error: '));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(message);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}
const temps = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

describe('--resume of a results file edited by hand', () => {
  it('a result line twice: refused naming both lines, nothing sent, the file as it was', async () => {
    const { dir, input, out, lines } = await finished('dup', 20);
    appendFileSync(out, `${lines[5]}\n`);
    const before = readFileSync(out, 'utf8');
    const result = await cli.run(['submit', input, '--out', out, '--resume']);
    expectRefused(
      result,
      new RegExp(
        `out\\.jsonl line 22 is a second result for line ${(JSON.parse(lines[5]!) as { line: number }).line} of the input \\(line 6 is the first\\)`,
      ),
    );
    expect(readFileSync(out, 'utf8')).toBe(before);
    expect(temps(dir)).toEqual([]);
  });

  it('a result for a line past the end of the input: refused naming its line (21 results for 20 lines are never left unsaid)', async () => {
    const { input, out, lines } = await finished('past', 20);
    appendFileSync(out, `${lines[1]!.replace(/"line":\d+/, '"line":21')}\n`);
    const result = await cli.run(['submit', input, '--out', out, '--resume']);
    expectRefused(result, /out\.jsonl holds 1 result for events the input does not have \(the first at its line 22\)/);
    expect(result.stderr).toContain('remove that line from');
    expect(readResults(out)).toHaveLength(21);
  });

  it('a byte order mark (an editor saved the file): refused saying so and how to remove it; the command given removes it and the resume works', async () => {
    const { dir, input, out } = await finished('bom', 3);
    writeFileSync(out, `\uFEFF${readFileSync(out, 'utf8')}`);
    const result = await cli.run(['submit', input, '--out', out, '--resume']);
    expectRefused(result, /out\.jsonl starts with a byte order mark \(U\+FEFF\), which fraudctl never writes/);
    const hint = result.stderr
      .split('\n')
      .find((l) => l.startsWith('remove it: '))!
      .slice('remove it: '.length);
    const { execSync } = await import('node:child_process');
    execSync(hint);
    const resumed = await cli.run(['submit', input, '--out', out, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('3 already done by the earlier run');
    expect(temps(dir)).toEqual([]);
  });

  it('a file of one result line with a byte order mark, and no header: refused, never taken for a line cut off by a crash', async () => {
    const { dir, input, out, lines } = await finished('bom-one', 1);
    writeFileSync(out, `\uFEFF${lines[1]}\n`);
    const result = await cli.run(['submit', input, '--out', out, '--resume']);
    expectRefused(result, /starts with a byte order mark/);
    expect(temps(dir)).toEqual([]);
  });

  it('a huge region without a line break: refused by line, memory bounded, no stack trace, no temp file', async () => {
    const { dir, input, out, lines } = await finished('huge', 3);
    writeFileSync(out, `${lines[0]}\n${lines[1]}\n${'x'.repeat(64 * 1024 * 1024)}\n${lines[2]}\n`);
    const result = await cli.run(['submit', input, '--out', out, '--resume']);
    expectRefused(result, /out\.jsonl line 3 is longer than any result \(over 8 MiB without a line break\)/);
    expect(temps(dir)).toEqual([]);
  });
});
