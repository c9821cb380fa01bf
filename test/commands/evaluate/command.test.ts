import { PassThrough } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../../src/process/cli-context.js';
import { evaluateCommand, type EvaluateOptions } from '../../../src/commands/evaluate/command.js';

/*
 * evaluate's command file, in-process: argv → one EvaluateOptions value (defaults included), and
 * the bad values and combinations refused before any work runs. The work is replaced by a
 * function that records what it was asked.
 */

const context = (): CliContext => ({
  stdin: new PassThrough(),
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  env: {},
  debug: false,
  waitForShutdown: () => new Promise(() => {}),
  onStdoutClosed: () => () => {},
});

async function parse(argv: string[]): Promise<{ asked: EvaluateOptions[]; errors: string }> {
  const asked: EvaluateOptions[] = [];
  let errors = '';
  const output = { writeOut: () => {}, writeErr: (s: string) => void (errors += s) };
  const root = new Command('fraudctl').option('--json').option('--no-color').exitOverride().configureOutput(output);
  root.addCommand(
    evaluateCommand(context(), async (_command, options) => void asked.push(options))
      .exitOverride()
      .configureOutput(output),
  );
  await root.parseAsync(argv, { from: 'user' });
  return { asked, errors };
}

describe('evaluate: argv → EvaluateOptions', () => {
  it('results files and --labels alone: the defaults', async () => {
    const { asked } = await parse(['evaluate', 'a.jsonl', 'b.jsonl', '--labels', 'cb.csv']);
    expect(asked).toEqual([
      {
        results: ['a.jsonl', 'b.jsonl'],
        from: null,
        labels: 'cb.csv',
        mapping: { idColumn: null, labelColumn: null, fraudWhen: [] },
        maturityMs: null,
        by: null,
        thresholds: { review: 30, decline: 70 },
        format: 'terminal',
        csvFigure: null,
        html: null,
        baseCurrency: null,
        rules: null,
        events: [],
        concurrency: 8,
        noColor: false,
      },
    ]);
  });

  it('every option bound once, --fraud-when repeatable, the global --json and --no-color', async () => {
    const { asked } = await parse([
      '--json',
      '--no-color',
      'evaluate',
      '--from',
      'ids.txt',
      '--labels',
      'd.csv',
      '--id-column',
      'charge_id',
      '--label-column',
      'verdict',
      '--fraud-when',
      'reason=fraudulent',
      '--fraud-when',
      'fraud_type=0, 1,6',
      '--maturity',
      '90d',
      '--by',
      'week',
      '--thresholds',
      '40,80',
      '--html',
      'r.html',
      '--rules',
      'c.json',
      '--events',
      'monday.jsonl',
      '--events',
      'tuesday.jsonl.gz',
      '--base-currency',
      'eur',
      '--concurrency',
      '32',
    ]);
    expect(asked[0]).toStrictEqual({
      results: [],
      from: 'ids.txt',
      labels: 'd.csv',
      mapping: {
        idColumn: 'charge_id',
        labelColumn: 'verdict',
        fraudWhen: [
          { column: 'reason', values: ['fraudulent'] },
          { column: 'fraud_type', values: ['0', '1', '6'] },
        ],
      },
      maturityMs: 90 * 86_400_000,
      by: 'week',
      thresholds: { review: 40, decline: 80 },
      format: 'json',
      csvFigure: null,
      html: 'r.html',
      baseCurrency: 'EUR',
      rules: 'c.json',
      events: ['monday.jsonl', 'tuesday.jsonl.gz'],
      concurrency: 32,
      noColor: true,
    });
  });

  it('--csv takes a figure from its choices', async () => {
    expect((await parse(['evaluate', 'r.jsonl', '--labels', 'l.csv', '--csv', 'sweep'])).asked[0]).toMatchObject({
      format: 'csv',
      csvFigure: 'sweep',
    });
    await expect(parse(['evaluate', 'r.jsonl', '--labels', 'l.csv', '--csv', 'everything'])).rejects.toThrow(
      /argument 'everything' is invalid. Allowed choices are decisions, rules, sweep, over-time, shift/,
    );
  });

  it.each([
    [['--by', 'month'], /Allowed choices are day, week/],
    [['--maturity', 'soon'], /not a duration: give e.g. 90d/],
    [['--thresholds', '70,30'], /review not above decline/],
    [['--thresholds', '30'], /give REVIEW,DECLINE/],
    [['--fraud-when', 'reason'], /give COLUMN=VALUE/],
    [['--concurrency', '0'], /the concurrency is a whole number from 1 to 256/],
    [['--base-currency', 'euro'], /give an ISO 4217 code, e.g. EUR/],
  ])('refuses %j before any work', async (extra, message) => {
    await expect(parse(['evaluate', 'r.jsonl', '--labels', 'l.csv', ...extra])).rejects.toThrow(CommanderError);
    await expect(parse(['evaluate', 'r.jsonl', '--labels', 'l.csv', ...extra])).rejects.toThrow(message);
  });

  it('refuses a missing --labels, no input at all, and combinations that cannot be honoured', async () => {
    await expect(parse(['evaluate', 'r.jsonl'])).rejects.toThrow(/required option '--labels <file>' not specified/);
    await expect(parse(['evaluate', '--labels', 'l.csv'])).rejects.toThrow(
      'evaluate needs results files of submit --out, or --from FILE with ids',
    );
    await expect(parse(['--json', 'evaluate', 'r.jsonl', '--labels', 'l.csv', '--csv', 'rules'])).rejects.toThrow(
      '--json and --csv: one or the other',
    );
    await expect(parse(['evaluate', 'r.jsonl', '--labels', 'l.csv', '--csv', 'over-time'])).rejects.toThrow(
      '--csv over-time needs --by day or --by week',
    );
    await expect(parse(['evaluate', 'r.jsonl', '--labels', 'l.csv', '--csv', 'shift'])).rejects.toThrow(
      '--csv shift needs --rules FILE',
    );
    await expect(parse(['evaluate', 'r.jsonl', '--labels', 'l.csv', '--events', 'orders.jsonl'])).rejects.toThrow(
      '--events gives the payloads a replay screens: it needs --rules FILE',
    );
  });
});
