import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxInProcess } from '../support/in-process-cli.js';

/*
 * The one reader of a results file, as its users meet it: a file written by a real `submit
 * --out` against the sandbox, read by `evaluate`, by `show --from` and by `submit --resume`.
 * Events sent without an id make submit mark each send (`sending`) before it goes: every reader
 * must take those marks for what they are, the run's own records, never an unreadable result.
 */

const cli = useSandboxInProcess();

describe('a results file with sending marks (events sent without an id)', () => {
  it('evaluate, show --from and submit --resume read every result of it', async () => {
    const input = join(cli.dir, 'no-ids.jsonl');
    const out = join(cli.dir, 'no-ids.out.jsonl');
    const events = [1500, 20, 90_000].map((amount) => ({ amount, currency: 'EUR' }));
    writeFileSync(input, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const submitted = await cli.run(['submit', input, '--out', out]);
    expect(submitted.stderr).not.toContain('error');
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    // What the test is about: the file submit leaves holds a mark for each send.
    expect(lines.filter((l) => l.startsWith('{"fraudctl":"sending"'))).toHaveLength(3);

    const labels = join(cli.dir, 'labels.csv');
    const ids = lines.flatMap((l) => {
      const v = JSON.parse(l) as { id?: string; outcome?: string };
      return v.outcome === 'DECIDED' && v.id !== undefined ? [v.id] : [];
    });
    expect(ids).toHaveLength(3);
    writeFileSync(labels, `id,label\n${ids.map((id, i) => `${id},${i === 0 ? 'fraud' : 'legit'}`).join('\n')}\n`);
    const evaluated = await cli.run(['evaluate', out, '--labels', labels, '--json']);
    expect(evaluated.stderr).toBe('');
    expect(evaluated.code).toBe(0);
    const report = JSON.parse(evaluated.stdout) as { events: { evaluated: number } };
    expect(report.events.evaluated).toBe(3);

    const shown = await cli.run(['show', '--from', out, '--json']);
    expect(shown.code).toBe(0);
    expect(shown.stdout.trimEnd().split('\n')).toHaveLength(3);

    const resumed = await cli.run(['submit', input, '--out', out, '--resume']);
    expect(resumed.code).toBe(0);
    expect(
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"outcome":"DECIDED"')),
    ).toHaveLength(3);
  }, 60_000);
});
