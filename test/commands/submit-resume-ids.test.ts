import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { byLine, makeEvent, makeLines, readResults } from '../support/batch-events.js';

/*
 * --resume and the ids of settled lines: every settled line's id is
 * compared with the input's, read back from the results file as the input reaches it; a line
 * rejected locally (over 1 MiB) has its id recorded when it can be read, and is compared the
 * same way.
 */

const cli = useSandboxInProcess();
let fileNo = 0;
const file = (name: string, lines: string[]) => {
  const path = join(cli.dir, `${++fileNo}-${name}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};
const outPath = () => join(cli.dir, `${++fileNo}-results.jsonl`);

describe('--resume compares ids', () => {
  it('a line over 1 MiB with an id: rejected with its id recorded, and the resume accepts its own input', async () => {
    const big = JSON.stringify({ ...makeEvent('res-big', 1), comments: 'x'.repeat(1024 * 1024 + 10) });
    const input = file('big.jsonl', [
      JSON.stringify(makeEvent('res-small', 1)),
      big,
      JSON.stringify(makeEvent('res-small', 3)),
      '{not json',
    ]);
    const out = outPath();
    const first = await cli.run(['submit', input, '--out', out]);
    expect(first.code).toBe(1);
    const { lines } = byLine(readResults(out));
    expect(lines.get(2)).toMatchObject({ id: 'res-big-1', outcome: 'REJECTED', errorCodes: ['TOO_LARGE'] });
    expect(lines.get(4)).toMatchObject({ id: null, outcome: 'REJECTED', errorCodes: ['NOT_JSON'] });

    const resumed = await cli.run(['submit', input, '--out', out, '--resume']);
    expect(resumed.stderr).not.toContain('does not belong');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('4 already done by the earlier run');
    expect(readResults(out)).toHaveLength(4);
  });

  it('another input that shares only its first lines: caught at the first line that differs, nothing sent', async () => {
    const a = makeLines('share-a', 300);
    const out = outPath();
    expect((await cli.run(['submit', file('a.jsonl', a), '--out', out])).code).toBe(0);
    // The same first 200 lines, then other events.
    const b = [...a.slice(0, 200), ...makeLines('share-b', 300).slice(200)];
    const other = await cli.run(['submit', file('b.jsonl', b), '--out', out, '--resume', '--concurrency', '1']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /^error: .*results\.jsonl does not belong to this input: its line 201 is event "share-a-201", the input's is "share-b-201"$/m,
    );
    expect(readResults(out)).toHaveLength(300);
    for (const id of ['share-b-201', 'share-b-300'])
      expect((await cli.sb.call('GET', `/event/${id}`)).status).toBe(404);
  });

  it('a line without an id where the results file has one, and the other way round', async () => {
    const a = makeLines('noid', 3);
    const out = outPath();
    expect((await cli.run(['submit', file('a.jsonl', a), '--out', out])).code).toBe(0);
    const withoutId = [a[0]!, JSON.stringify({ ...makeEvent('noid', 2), id: undefined }), a[2]!];
    const resumed = await cli.run([
      'submit',
      file('b.jsonl', withoutId),
      '--out',
      out,
      '--resume',
      '--concurrency',
      '1',
    ]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/its line 2 is event "noid-2", the input's is without an id/);
  });
});
