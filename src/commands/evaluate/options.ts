import { InvalidArgumentError } from 'commander';
import { isCurrencyCode } from '../../contract/currency.js';
import { parseDuration } from '../../render/ages.js';
import type { Period } from './figures/over-time.js';
import type { Thresholds } from './figures/sweep.js';

/*
 * What `evaluate` is asked to do, as one typed value: command.ts makes it from argv, run.ts does
 * it. Nothing here reads a file or the environment; the parsers turn a flag's text into its value
 * or say what is wrong with it (commander then exits 2 naming the flag).
 */

/** How the outcomes file says which events were fraud (read-outcomes.ts). */
export interface OutcomeMapping {
  /** The id column; null: the first of id, eventId, event_id, order_id the file has. */
  idColumn: string | null;
  /** The column saying fraud/legit (1/0, true/false); null: `label` when the file has one. */
  labelColumn: string | null;
  /** A row is fraud when one of these columns holds one of its values (a dispute reason code); other rows are not. */
  fraudWhen: { column: string; values: string[] }[];
}

export const CSV_FIGURES = ['decisions', 'rules', 'sweep', 'over-time', 'shift'] as const;
export type CsvFigure = (typeof CSV_FIGURES)[number];

export const PERIODS = ['day', 'week'] as const satisfies readonly Period[];

export interface EvaluateOptions {
  /** Results files of `submit --out`. */
  results: string[];
  /** A list of ids (or a results file) of events submitted some other way: each is read. */
  from: string | null;
  /** The outcomes file: reported fraud, disputes, or every event with a label. */
  labels: string;
  mapping: OutcomeMapping;
  /** Events younger than this (ms) are left out: their chargebacks may still come. */
  maturityMs: number | null;
  by: Period | null;
  /** The service's thresholds, marked in the sweep. */
  thresholds: Thresholds;
  format: 'terminal' | 'json' | 'csv';
  csvFigure: CsvFigure | null;
  /** Also write the report as one HTML file. */
  html: string | null;
  /** The service's base currency (--base-currency): a line's amount in it is its base amount, nothing read. */
  baseCurrency: string | null;
  /** A candidate configuration (sandbox format) to replay the events under. */
  rules: string | null;
  /** The events as submitted (--events: submit's input files): the payloads a replay screens, none read. */
  events: string[];
  /** Events read at once, for lines that lack what evaluation needs and for --from ids. */
  concurrency: number;
  noColor: boolean;
}

/** `--maturity 90d`: days, hours, minutes (as review --sla takes them). */
export function parseMaturity(value: string): number {
  const ms = parseDuration(value);
  if (ms === null || ms <= 0) throw new InvalidArgumentError('not a duration: give e.g. 90d, 60d or 12h');
  return ms;
}

/** `--fraud-when reason=fraudulent,card_stolen`: a column, =, and the values that mean fraud. */
export function parseFraudWhen(value: string, previous: OutcomeMapping['fraudWhen'] = []): OutcomeMapping['fraudWhen'] {
  const at = value.indexOf('=');
  const column = value.slice(0, at).trim();
  const values = value
    .slice(at + 1)
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (at < 1 || column === '' || values.length === 0)
    throw new InvalidArgumentError('give COLUMN=VALUE[,VALUE...], e.g. reason=fraudulent');
  return [...previous, { column, values }];
}

/** `--base-currency eur`: an ISO 4217 code, upper-cased. */
export function parseCurrency(value: string): string {
  const code = value.trim().toUpperCase();
  if (!isCurrencyCode(code)) throw new InvalidArgumentError('give an ISO 4217 code, e.g. EUR');
  return code;
}

/** `--thresholds 30,70`: the service's review and decline thresholds. */
export function parseThresholds(value: string): Thresholds {
  const parts = value.split(',').map((p) => Number(p.trim()));
  const [review, decline] = parts;
  const whole = (n: number | undefined): n is number => Number.isInteger(n) && n! >= 0 && n! <= 100;
  if (parts.length !== 2 || !whole(review) || !whole(decline) || review > decline) {
    throw new InvalidArgumentError(
      'give REVIEW,DECLINE: two whole scores 0-100, review not above decline (e.g. 30,70)',
    );
  }
  return { review, decline };
}
