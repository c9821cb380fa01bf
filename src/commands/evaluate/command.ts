import { Command, Option } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { UsageError } from '../../errors/cli-error.js';
import { sym } from '../../render/symbols.js';
import { withSession } from '../../session.js';
import { concurrencyOption } from '../number-options.js';
import {
  CSV_FIGURES,
  parseCurrency,
  parseFraudWhen,
  parseMaturity,
  parseThresholds,
  PERIODS,
  type CsvFigure,
  type EvaluateOptions,
  type OutcomeMapping,
} from './options.js';
import type { Period } from './figures/over-time.js';
import type { Thresholds } from './figures/sweep.js';

export type { EvaluateOptions } from './options.js';

/*
 * `evaluate`: argv → one EvaluateOptions value, every flag bound once here and checked (a bad
 * value or combination is exit 2 naming the flag); then the work (run.ts), import()ed when it
 * runs, with its dependencies built from the process and the session (deps.ts). `run` is
 * injectable, so a test checks argv → options in-process without doing the work.
 */

export type EvaluateRun = (command: Command, options: EvaluateOptions) => Promise<void>;

interface EvaluateFlags {
  labels: string;
  from?: string;
  idColumn?: string;
  labelColumn?: string;
  fraudWhen?: OutcomeMapping['fraudWhen'];
  maturity?: number;
  by?: Period;
  thresholds: Thresholds;
  csv?: CsvFigure;
  html?: string;
  rules?: string;
  events?: string[];
  baseCurrency?: string;
  concurrency: number;
}

const EXAMPLES = `Examples:
  $ fraudctl evaluate results.jsonl --labels chargebacks.csv
  $ fraudctl evaluate monday.jsonl tuesday.jsonl --labels fraud-reports.jsonl --maturity 90d --by week
  $ fraudctl evaluate results.jsonl --labels disputes.csv --id-column charge_id --fraud-when reason=fraudulent
  $ fraudctl evaluate --from other-system-ids.txt --labels tc40.csv --fraud-when fraud_type=0,1,2,6
  $ fraudctl evaluate results.jsonl --labels chargebacks.csv --json | jq '.sweep[] | select(.threshold == 50)'
  $ fraudctl evaluate results.jsonl --labels chargebacks.csv --csv sweep > sweep.csv
  $ fraudctl evaluate results.jsonl --labels chargebacks.csv --html report.html
  $ fraudctl sandbox default-config > candidate.json   # edit its rules and thresholds, then:
  $ fraudctl evaluate results.jsonl --labels chargebacks.csv --rules candidate.json --events orders.jsonl
`;

const AFTER = `
Inputs: results files of submit --out (a line records the decision, score, rules matched,
date, amount and currency: nothing is read for it when the currency is the service's base
currency, which --base-currency gives, the file records (baseCurrency) or one event's summary
says; a line in another currency, or of an older fraudctl, is read from the service: GET /event
and its risk assessment), and ids of --from (each read). A replay (--rules) screens the payloads
of --events, the files submit read; without them each event is read (GET /event). The outcomes file (--labels) is CSV with a header or JSON Lines:
its id column is id, eventId, event_id or order_id (or --id-column); a label column (label, or
--label-column) says fraud/legit (1/0, true/false); --fraud-when COLUMN=VALUES says which rows
are fraud (a dispute reason code); else every row lists a fraud. An event not listed has no
fraud reported; a declined event without a report is unknowable (no chargeback can come), never
legit. The figures and every --json field: fraudctl help evaluate.

Exit codes: 0 every event evaluated; 2 a missing or malformed input (nothing is printed); 4 or 6
some events could not be read (not found, unavailable): the report says how many and which.
`;

export function evaluateCommand(context: CliContext, run?: EvaluateRun): Command {
  const runWork: EvaluateRun =
    run ??
    (async (command, options) => {
      const [{ run: evaluate }, { evaluateDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return withSession(context, command, (session) => evaluate(options, evaluateDeps(context, session)));
    });
  return new Command('evaluate')
    .description(
      `how well the decisions did, against the fraud reported since: decisions ${sym.times} outcomes, per rule, ` +
        'a score sweep, over time; what a rule change would have done',
    )
    .argument('[results...]', 'results files of submit --out')
    .addOption(
      new Option(
        '--labels <file>',
        'the outcomes: chargebacks, fraud reports or disputes (CSV with a header, or JSON Lines)',
      ).makeOptionMandatory(),
    )
    .option(
      '--from <file>',
      'also the events with these ids (one per line; - for stdin), submitted some other way: each is read',
    )
    .option('--id-column <name>', "the outcomes file's id column (default: id, eventId, event_id or order_id)")
    .option('--label-column <name>', 'the column saying fraud or legit (default: label, when there is one)')
    .addOption(
      new Option(
        '--fraud-when <column=values>',
        'a row is fraud when COLUMN holds one of VALUES (comma-separated); repeatable',
      ).argParser(parseFraudWhen),
    )
    .addOption(
      new Option(
        '--maturity <age>',
        'leave out events younger than this (e.g. 90d): their chargebacks may still come',
      ).argParser(parseMaturity),
    )
    .addOption(new Option('--by <period>', 'also the figures over time').choices(PERIODS))
    .addOption(
      new Option('--thresholds <review,decline>', "the service's review and decline thresholds, marked in the sweep")
        .argParser(parseThresholds)
        .default({ review: 30, decline: 70 }, '30,70'),
    )
    .addOption(new Option('--csv <figure>', 'one figure as CSV on stdout').choices(CSV_FIGURES))
    .option('--html <file>', 'also write the report as one HTML file (opens offline, prints)')
    .option(
      '--rules <file>',
      'replay the events under this candidate configuration (fraudctl sandbox default-config to start from)',
    )
    .addOption(
      new Option(
        '--events <file>',
        'with --rules: the events as submitted (a file submit read), screened without reading any; repeatable',
      ).argParser((file: string, previous: string[] = []) => [...previous, file]),
    )
    .addOption(
      new Option(
        '--base-currency <code>',
        "the service's base currency: a line's amount in it needs no read (default: as the file or an event says)",
      ).argParser(parseCurrency),
    )
    .addOption(concurrencyOption('events read at once, when some must be read (at most 256)').default(8))
    .addHelpText('before', EXAMPLES)
    .addHelpText('after', AFTER)
    .action(async (results: string[], flags: EvaluateFlags, command: Command) => {
      const globals = command.optsWithGlobals<{ json?: boolean; color?: boolean }>();
      if (globals.json && flags.csv) throw new UsageError('--json and --csv: one or the other');
      if (results.length === 0 && flags.from === undefined)
        throw new UsageError(
          'evaluate needs results files of submit --out, or --from FILE with ids',
          'e.g. fraudctl evaluate results.jsonl --labels chargebacks.csv',
        );
      if (flags.csv === 'over-time' && flags.by === undefined)
        throw new UsageError('--csv over-time needs --by day or --by week');
      if (flags.csv === 'shift' && flags.rules === undefined)
        throw new UsageError('--csv shift needs --rules FILE: the candidate to replay');
      if (flags.events !== undefined && flags.rules === undefined)
        throw new UsageError(
          '--events gives the payloads a replay screens: it needs --rules FILE',
          'e.g. fraudctl evaluate results.jsonl --labels chargebacks.csv --rules candidate.json --events orders.jsonl',
        );
      return runWork(command, {
        results,
        from: flags.from ?? null,
        labels: flags.labels,
        mapping: {
          idColumn: flags.idColumn ?? null,
          labelColumn: flags.labelColumn ?? null,
          fraudWhen: flags.fraudWhen ?? [],
        },
        maturityMs: flags.maturity ?? null,
        by: flags.by ?? null,
        thresholds: flags.thresholds,
        format: globals.json ? 'json' : flags.csv ? 'csv' : 'terminal',
        csvFigure: flags.csv ?? null,
        html: flags.html ?? null,
        baseCurrency: flags.baseCurrency ?? null,
        rules: flags.rules ?? null,
        events: flags.events ?? [],
        concurrency: flags.concurrency,
        noColor: globals.color === false,
      });
    });
}
