import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { LineResult } from '../../src/results-file/submit-result.js';
import { cliEnv } from './cli.js';
import { tempDir } from './sandbox.js';

/*
 * Batch inputs for tests: valid, varied events with unique ids, as JSON Lines, and a way to
 * read a results file back.
 */

const COUNTRIES = ['DE', 'FR', 'GB', 'US', 'NL'];

export function makeEvent(prefix: string, n: number): Record<string, unknown> {
  return {
    id: `${prefix}-${n}`,
    eventDate: '2026-11-20T09:14:03Z',
    amount: 10 + ((n * 37) % 900),
    currency: ['EUR', 'USD', 'GBP'][n % 3],
    userEmail: `buyer${n % 50}@example.com`,
    userIp: `198.51.100.${n % 250}`,
    billingCountry: COUNTRIES[n % 5],
    shippingCountry: COUNTRIES[(n * 3) % 5],
    items: [
      { itemId: `sku-${n % 17}`, itemName: 'Thing', itemQuantity: 1 + (n % 3), itemPrice: 10, itemCategory: 'books' },
    ],
  };
}

export function makeLines(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => JSON.stringify(makeEvent(prefix, i + 1)));
}

/** A line of a results file, as the product writes it. */
export type ResultLine = LineResult;

/** The results of a results file, without its header (the first line: which run wrote it). */
export function readResults(path: string): ResultLine[] {
  return readResultsFile(path).results as unknown as ResultLine[];
}

/** A results file's header (null when it has none) and its results, of any command; `sending` records left out. */
export function readResultsFile(path: string): {
  header: Record<string, unknown> | null;
  results: Record<string, unknown>[];
} {
  const values = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const header = values[0]?.fraudctl === 'results' ? values[0] : null;
  // The run's other records (`sending`, before a send nothing could check afterwards) are no results either.
  return { header, results: values.filter((v) => v.fraudctl === undefined) };
}

/** Asserts-ready view: results by line number, and lines recorded more than once. */
export function byLine(results: ResultLine[]): { lines: Map<number, ResultLine>; repeated: number[] } {
  const lines = new Map<number, ResultLine>();
  const repeated: number[] = [];
  for (const r of results) {
    if (lines.has(r.line)) repeated.push(r.line);
    lines.set(r.line, r);
  }
  return { lines, repeated };
}

/**
 * A batch test's own directory: numbered paths in it (`path('out.jsonl')` → `…/3-out.jsonl`), an
 * input file of JSON Lines, and a CLI environment whose home and XDG directories are in it and
 * whose service is `url` with `key`. Removed after the file's tests.
 */
export function batchWorkspace(prefix: string) {
  const tmp = tempDir(prefix);
  afterAll(() => tmp.remove());
  let n = 0;
  const path = (name: string) => join(tmp.dir, `${++n}-${name}`);
  return {
    dir: tmp.dir,
    path,
    writeInput(lines: string[]): string {
      const p = path('events.jsonl');
      writeFileSync(p, `${lines.join('\n')}\n`);
      return p;
    },
    envFor: (url: string, key: string): NodeJS.ProcessEnv =>
      cliEnv({
        HOME: tmp.dir,
        XDG_CONFIG_HOME: join(tmp.dir, 'config'),
        XDG_DATA_HOME: join(tmp.dir, 'data'),
        FRAUDCTL_BASE_URL: url,
        FRAUDCTL_API_KEY: key,
      }),
  };
}
