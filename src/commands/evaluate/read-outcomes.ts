import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { UsageError } from '../../errors/cli-error.js';
import { terminalSafe, truncate } from '../../render/terminal-text.js';
import { openInput } from './input-files.js';
import type { OutcomeMapping } from './options.js';

/*
 * The outcomes file, as a team gets it back: a CSV with a header, or JSON Lines, of reported
 * fraud or disputes (a Stripe dispute export, a card network's fraud report), or of every event
 * with a label. Which events were fraud is read three ways, the first that applies:
 *   --fraud-when COLUMN=VALUES: a row is fraud when the column holds one of the values (a
 *     dispute reason code), not fraud otherwise;
 *   a label column (`label`, or --label-column): fraud/legit, 1/0, true/false, yes/no;
 *   neither: every row lists a fraud (a file of disputes or fraud reports).
 * An event the file does not list has no fraud reported. An id listed twice is fraud when any of
 * its rows says so (a dispute and its fraud report).
 */

export const ID_COLUMNS = ['id', 'eventId', 'event_id', 'order_id'] as const;

const FRAUD = new Set(['fraud', '1', 'true', 'yes']);
const LEGIT = new Set(['legit', '0', 'false', 'no']);

/**
 * Bits of an id in Outcomes.ids: listed in the outcomes file, listed as fraud, and named by a
 * result (claimed). One map for both: an id evaluated and listed costs one entry, not two.
 */
export const LISTED_BIT = 4;
export const FRAUD_BIT = 1;
export const SEEN_BIT = 2;

export interface Outcomes {
  /** id → its bits: the ids the outcomes file lists, and (once claimed) every id a result names. */
  ids: Map<string, number>;
  rows: number;
  fraud: number;
  /** How the file said fraud, for the report's words. */
  mode: 'fraud-when' | 'label' | 'listed';
  idColumn: string;
}

type Row = (column: string) => unknown;

interface Reading {
  idColumn: string;
  decide: (row: Row, where: string) => boolean;
  mode: Outcomes['mode'];
}

/** How to read the rows of a file with these columns. */
function reading(path: string, columns: readonly string[], mapping: OutcomeMapping): Reading {
  const has = (name: string) => columns.includes(name);
  const named = columns.map((c) => terminalSafe(truncate(c, 40))).join(', ');
  const idColumn = mapping.idColumn ?? ID_COLUMNS.find(has);
  if (idColumn === undefined) {
    throw new UsageError(
      `${path} has no id column (looked for ${ID_COLUMNS.join(', ')}; it has ${named})`,
      'name it with --id-column COLUMN',
    );
  }
  if (!has(idColumn))
    throw new UsageError(`${path} has no column ${terminalSafe(idColumn)} (--id-column); it has ${named}`);
  for (const { column } of mapping.fraudWhen) {
    if (!has(column))
      throw new UsageError(`${path} has no column ${terminalSafe(column)} (--fraud-when); it has ${named}`);
  }
  if (mapping.fraudWhen.length > 0) {
    const when = mapping.fraudWhen.map(({ column, values }) => ({ column, values: new Set(values) }));
    return {
      idColumn,
      mode: 'fraud-when',
      decide: (row) => when.some(({ column, values }) => values.has(text(row(column)))),
    };
  }
  const labelColumn = mapping.labelColumn ?? (has('label') ? 'label' : null);
  if (labelColumn !== null && !has(labelColumn))
    throw new UsageError(`${path} has no column ${terminalSafe(labelColumn)} (--label-column); it has ${named}`);
  if (labelColumn === null) return { idColumn, mode: 'listed', decide: () => true };
  return {
    idColumn,
    mode: 'label',
    decide: (row, where) => {
      const value = text(row(labelColumn)).toLowerCase();
      if (FRAUD.has(value)) return true;
      if (LEGIT.has(value)) return false;
      throw new UsageError(
        `${where}: the ${terminalSafe(labelColumn)} ${JSON.stringify(terminalSafe(truncate(value, 40)))} ` +
          'is neither fraud nor legit (1/0, true/false, yes/no)',
        `say which values mean fraud: --fraud-when ${labelColumn}=VALUE`,
      );
    },
  };
}

const text = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value.trim() : String(value);

export async function readOutcomes(path: string, mapping: OutcomeMapping): Promise<Outcomes> {
  const handle = await openInput(path, 'an outcomes file (CSV with a header, or JSON Lines)');
  const labels = new Map<string, number>();
  let rows = 0;
  let fraud = 0;
  let how: Reading | null = null;
  const take = (id: unknown, isFraud: boolean, where: string) => {
    const key = text(id);
    if (key === '')
      throw new UsageError(
        `${where}: no id in column ${terminalSafe(how!.idColumn)}`,
        'every row names the event it reports',
      );
    rows++;
    const before = labels.get(key);
    if (before === undefined) labels.set(key, LISTED_BIT | (isFraud ? FRAUD_BIT : 0));
    else if (isFraud && !(before & FRAUD_BIT)) labels.set(key, before | FRAUD_BIT);
    else return;
    if (isFraud) fraud++;
  };
  try {
    const first = Buffer.alloc(64);
    const { bytesRead } = await handle.read(first, 0, first.length, 0);
    const start = first
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    const stream = handle.createReadStream({ autoClose: false, start: 0 });
    if (start.startsWith('{')) {
      let n = 0;
      for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
        n++;
        const trimmed = (n === 1 ? line.replace(/^\uFEFF/, '') : line).trim();
        if (trimmed === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(trimmed);
        } catch {
          throw new UsageError(
            `${path}:${n} is not JSON (an outcomes file is CSV with a header, or one JSON object per line)`,
          );
        }
        if (typeof value !== 'object' || value === null || Array.isArray(value))
          throw new UsageError(`${path}:${n} is not a JSON object`);
        const record = value as Record<string, unknown>;
        how ??= reading(path, Object.keys(record), mapping);
        const row: Row = (column) => record[column];
        take(record[how.idColumn], how.decide(row, `${path}:${n}`), `${path}:${n}`);
      }
    } else {
      const parser = stream.pipe(
        parse({ bom: true, skip_empty_lines: true, relax_column_count: true, trim: true, info: true }),
      );
      let columns: string[] | null = null;
      let index = new Map<string, number>();
      try {
        for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
          if (columns === null) {
            columns = record;
            index = new Map(columns.map((c, i) => [c, i]));
            how = reading(path, columns, mapping);
            continue;
          }
          const where = `${path}:${info.lines}`;
          const row: Row = (column) => record[index.get(column)!];
          take(row(how!.idColumn), how!.decide(row, where), where);
        }
      } catch (e) {
        if (e instanceof UsageError) throw e;
        throw new UsageError(
          `${path} is not CSV this can read: ${terminalSafe(truncate((e as Error).message, 200))}`,
          'an outcomes file is CSV with a header row, or one JSON object per line',
        );
      }
    }
  } finally {
    await handle.close();
  }
  if (how === null)
    throw new UsageError(
      `${path} is empty: no header, no outcome`,
      'an outcomes file lists reported fraud or disputes, one per row, under a header naming the id column',
    );
  return { ids: labels, rows, fraud, mode: how.mode, idColumn: how.idColumn };
}

/** Marks `id` as named by a result: false when a result named it already (it counts once). */
export function claim(outcomes: Outcomes, id: string): boolean {
  const bits = outcomes.ids.get(id);
  if (bits === undefined) {
    outcomes.ids.set(id, SEEN_BIT);
    return true;
  }
  if (bits & SEEN_BIT) return false;
  outcomes.ids.set(id, bits | SEEN_BIT);
  return true;
}
