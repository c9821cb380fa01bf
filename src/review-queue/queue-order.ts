import type { ApiClient } from '../api/api-client.js';
import { classifyFailure } from '../failures/failure-kind.js';
import { isFields, type Fields } from '../render/json-fields.js';
import type { QueueEntry } from './queue-model.js';

/*
 * `review --sort age|score|amount`: the queue in another order than the list's. Each event is
 * read (GET, a few at a time) before the first screen, with a count of how many are read; a
 * results file's scores are taken as they are, with no read, for `--sort score`. The order:
 * age, the oldest eventDate first; score, the highest totalScore first; amount, the largest
 * first (amountInBaseCurrency where the service gives it, else amount). Ties keep the list's
 * order; an event that cannot be read, or has no such value, goes to the end in the list's order,
 * and the queue then reads it as it reads any event (a failure is handled there, as without --sort).
 */

export const SORT_KEYS = ['age', 'score', 'amount'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** Events read at once while sorting. */
export const SORT_CONCURRENCY = 8;

/** An entry of the list: its id, and the score its results line recorded, if any. */
export interface SortInput {
  id: string;
  score?: number;
}

/** The value an event is sorted by, larger first (an age is the date negated); null when it has none. */
export function sortValue(summary: Fields, key: SortKey): number | null {
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  if (key === 'score') return number(summary.totalScore);
  if (key === 'amount') return number(summary.amountInBaseCurrency) ?? number(summary.amount);
  const at = typeof summary.eventDate === 'string' ? Date.parse(summary.eventDate) : NaN;
  return Number.isNaN(at) ? null : -at;
}

/** The entries, larger value first; ties and those without a value (at the end) keep their order. */
export function sortedEntries(entries: readonly QueueEntry[], values: readonly (number | null)[]): QueueEntry[] {
  const indexed = entries.map((entry, i) => ({ entry, i, value: values[i] ?? null }));
  // Array.prototype.sort is stable (ES2019): equal values keep the list's order.
  indexed.sort((a, b) => {
    if (a.value === null || b.value === null) return a.value === null ? (b.value === null ? a.i - b.i : 1) : -1;
    return b.value - a.value;
  });
  return indexed.map(({ entry }) => entry);
}

export interface OrderResult {
  entries: QueueEntry[];
  /** The eventDate (ms) of each event read, for the summary's overdue count. */
  eventDates: Map<string, number>;
}

/**
 * Reads what the order needs and sorts. `progress(done, total)` is told after each read; `stop`
 * resolved (Ctrl-C) starts no more reads. A
 * failure that stops a run (the key refused, not the service, the proxy) stops the reading: the
 * events not read go to the end, and the queue's first read meets the same failure and says it.
 */
export async function orderQueue(
  inputs: readonly SortInput[],
  key: SortKey,
  client: Pick<ApiClient, 'getEvent'>,
  progress: (done: number, total: number) => void,
  stop?: Promise<unknown>,
): Promise<OrderResult> {
  const values: (number | null)[] = inputs.map((input) =>
    key === 'score' && input.score !== undefined ? input.score : null,
  );
  const toRead = inputs
    .map((input, i) => ({ input, i }))
    .filter(({ input }) => !(key === 'score' && input.score !== undefined));
  const eventDates = new Map<string, number>();
  let done = 0;
  let stopped = false;
  // Ctrl-C or a signal while reading: no more reads are started (the queue then ends at once, as it does on Ctrl-C).
  void stop?.then(() => (stopped = true));
  if (toRead.length > 0) {
    progress(0, toRead.length);
    const { default: pMap } = await import('p-map');
    await pMap(
      toRead,
      async ({ input, i }) => {
        if (stopped) return;
        try {
          const body = (await client.getEvent(input.id)).body;
          if (isFields(body)) {
            values[i] = sortValue(body, key);
            const at = typeof body.eventDate === 'string' ? Date.parse(body.eventDate) : NaN;
            if (!Number.isNaN(at)) eventDates.set(input.id, at);
          }
        } catch (error) {
          if (classifyFailure(error).stopsRun) stopped = true;
        }
        progress(++done, toRead.length);
      },
      { concurrency: SORT_CONCURRENCY },
    );
  }
  return {
    entries: sortedEntries(
      inputs.map(({ id }) => ({ id })),
      values,
    ),
    eventDates,
  };
}
