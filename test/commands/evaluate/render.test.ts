import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/evaluate/run.js';
import { displayWidth } from '../../../src/render/display-width.js';
import { useSymbolsFor } from '../../../src/render/symbols.js';
import { tempDir } from '../../support/sandbox.js';
import { HEADER, options, resultLine, testDeps, writeFile } from './evaluate-harness.js';

/*
 * What a person sees: on a terminal, tables within its width and charts (the sweep, the rules,
 * the time series); off one, tables only; no colour under NO_COLOR; ASCII under LANG=C. And the
 * same figures as --csv.
 */

const tmp = tempDir('fraudctl-evaluate-render-');
afterAll(() => tmp.remove());
afterEach(() => void useSymbolsFor({}, 'linux'));

const days = ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'];
const lines = [
  HEADER,
  ...Array.from({ length: 40 }, (_, i) => {
    const score = (i * 7) % 101;
    const action = score >= 70 ? 'DECLINE' : score >= 30 ? 'REVIEW' : 'APPROVE';
    const rules =
      score >= 30 ? ['high_amount', ...(score >= 60 ? ['a_rule_with_a_rather_long_identifier_name'] : [])] : [];
    return resultLine(i + 1, `t-${i}`, action, score, rules, 10 * i, `${days[i % 5]}T12:00:00Z`);
  }),
];
const results = writeFile(tmp.dir, 'results.jsonl', lines);
const labels = writeFile(tmp.dir, 'labels.csv', [
  'id',
  ...Array.from({ length: 40 }, (_, i) => i)
    .filter((i) => i % 3 === 0)
    .map((i) => `t-${i}`),
]);

async function terminal(
  deps: ReturnType<typeof testDeps>,
  extra: Partial<Parameters<typeof options>[0]> = {},
): Promise<string> {
  await run(options({ results: [results], labels, format: 'terminal', by: 'day', ...extra }), deps);
  return deps.written.stdout;
}

// eslint-disable-next-line no-control-regex -- the escape that starts every colour
const ESC = /\u001b\[/;

describe('evaluate on a terminal', () => {
  for (const columns of [60, 100, 140]) {
    it(`fits ${columns} columns: every line, tables and charts alike`, async () => {
      const text = await terminal(testDeps({ tty: true, columns, env: { NO_COLOR: '1' } }));
      const wide = text.split('\n').filter((l) => displayWidth(l) > columns);
      // The opening lines of words wrap in the terminal by themselves; tables and charts must fit.
      expect(wide.filter((l) => /[│┤┼█░╭╮╯╰─]/.test(l))).toEqual([]);
    });
  }

  it('draws the charts: the sweep’s precision and recall, fraud per rule, the fraud rate over time', async () => {
    const text = await terminal(testDeps({ tty: true, columns: 120, env: { NO_COLOR: '1' } }));
    expect(text).toContain('fraud hits (█) of all hits, per rule:');
    expect(text).toMatch(/high_amount\s+█+░*\s+\d+\/\d+/);
    expect(text).toMatch(/─ precision {2}─ recall|threshold 0 – 100/);
    expect(text).toContain('2026-11-16 – 2026-11-20');
    expect(text).toMatch(/[╭╮╯╰]/);
  });

  it('off a terminal: the tables only, no chart', async () => {
    const text = await terminal(testDeps({ tty: false }));
    expect(text).toContain('Decisions and outcomes');
    expect(text).not.toContain('fraud hits (');
    expect(text).not.toMatch(/[╭╮╯╰█░]/);
    expect(text).not.toMatch(ESC);
  });

  it('colour on a terminal, none under NO_COLOR', async () => {
    expect(await terminal(testDeps({ tty: true, env: { TERM: 'xterm-256color' } }))).toMatch(ESC);
    expect(await terminal(testDeps({ tty: true, env: { TERM: 'xterm-256color', NO_COLOR: '1' } }))).not.toMatch(ESC);
  });

  it('ASCII under LANG=C: the tables (main chooses for the process) and the charts', async () => {
    useSymbolsFor({ LANG: 'C' }, 'linux');
    const text = await terminal(testDeps({ tty: true, columns: 100, env: { LANG: 'C', NO_COLOR: '1' } }));
    expect(text.replace(/[\x20-\x7e\n]/g, '')).toBe('');
    expect(text).toContain('fraud hits (#) of all hits, per rule:');
  });

  it('says what it left out and that declined events are unknowable', async () => {
    const text = await terminal(testDeps({ tty: false }));
    expect(text).toMatch(/^Evaluated 40 events · fraud reported 14 \(35\.0%\)/);
    expect(text).toMatch(/DECLINE\s+│\s+\d+ │\s+\d+ │\s+\d+ unknowable/);
    expect(text).toContain('good customers declined: at most');
    expect(text).toMatch(/30 ← review/);
    expect(text).toMatch(/70 ← decline/);
  });
});

describe('evaluate --csv', () => {
  it('the sweep: a head and one row per threshold 0–100, null as an empty cell', async () => {
    const d = testDeps();
    await run(options({ results: [results], labels, format: 'csv', csvFigure: 'sweep' }), d);
    const rows = d.written.stdout.trimEnd().split('\r\n');
    expect(rows[0]).toBe(
      'threshold,flagged,fraudFlagged,legitFlagged,unknownFlagged,precision,recall,falsePositiveRate,approvalRate,' +
        'fraudAmountCaught,current',
    );
    expect(rows).toHaveLength(102);
    expect(rows[101]).toMatch(/^100,0,0,0,0,,0,0,1,0,$/);
    expect(rows[31]).toMatch(/,review$/);
  });

  it('the decisions', async () => {
    const d = testDeps();
    await run(options({ results: [results], labels, format: 'csv', csvFigure: 'decisions' }), d);
    expect(d.written.stdout.split('\r\n')[0]).toBe(
      'decision,fraud,legit,unknown,fraudAmount,legitAmount,unknownAmount',
    );
    expect(d.written.stdout).toMatch(/\r\nDECLINE,\d+,0,\d+,/);
  });
});
