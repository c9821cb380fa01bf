import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/api-client.js';
import { BadResponseError } from '../../src/api/api-error.js';
import { orderQueue, sortedEntries, sortValue } from '../../src/review-queue/queue-order.js';

/*
 * The order of --sort, in-process: the sandbox cannot show that a results file's scores spare
 * the reads, so a counting stand-in answers the reads here (the order against the real service
 * is tested in test/commands/review-order.test.ts).
 */

const ids = (entries: readonly { id: string }[]) => entries.map((e) => e.id);

/** A client whose getEvent answers from `events` (a missing id throws) and counts the calls. */
function countingClient(events: Record<string, Record<string, unknown>>) {
  const calls: string[] = [];
  const client = {
    getEvent: (id: string) => {
      calls.push(id);
      const body = events[id];
      return body
        ? Promise.resolve({ status: 200, body, requestId: null })
        : Promise.reject(new BadResponseError(`no answer for ${id}`));
    },
  } as unknown as ApiClient;
  return { client, calls };
}

describe('review --sort', () => {
  it('larger first, ties and those without a value keep the list order, the latter at the end', () => {
    const entries = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
    expect(ids(sortedEntries(entries, [10, null, 30, 10, null]))).toEqual(['c', 'a', 'd', 'b', 'e']);
  });

  it('age is the oldest eventDate first; amount the base amount where given; score the totalScore', () => {
    expect(
      sortValue({ eventDate: '2026-11-20T00:00:00Z' }, 'age')! >
        sortValue({ eventDate: '2026-11-21T00:00:00Z' }, 'age')!,
    ).toBe(true);
    expect(sortValue({ eventDate: 'soon' }, 'age')).toBeNull();
    expect(sortValue({ amount: 100, amountInBaseCurrency: 90 }, 'amount')).toBe(90);
    expect(sortValue({ amount: 100 }, 'amount')).toBe(100);
    expect(sortValue({ totalScore: '50' }, 'score')).toBeNull();
  });

  it("a results file's scores are taken without a read; only the lines without one are read", async () => {
    const { client, calls } = countingClient({ plain: { totalScore: 60 } });
    const progress: [number, number][] = [];
    const { entries } = await orderQueue(
      [{ id: 'low', score: 30 }, { id: 'plain' }, { id: 'high', score: 90 }],
      'score',
      client,
      (done, total) => progress.push([done, total]),
    );
    expect(ids(entries)).toEqual(['high', 'plain', 'low']);
    expect(calls).toEqual(['plain']);
    expect(progress).toEqual([
      [0, 1],
      [1, 1],
    ]);
  });

  it('an event that cannot be read goes to the end in the list order; the dates read are kept', async () => {
    const { client, calls } = countingClient({
      new: { eventDate: '2026-11-25T10:00:00Z' },
      old: { eventDate: '2026-11-20T10:00:00Z' },
    });
    const { entries, eventDates } = await orderQueue(
      [{ id: 'gone-1' }, { id: 'new' }, { id: 'gone-2' }, { id: 'old', score: 99 }],
      'age',
      client,
      () => {},
    );
    expect(ids(entries)).toEqual(['old', 'new', 'gone-1', 'gone-2']);
    expect(calls.sort()).toEqual(['gone-1', 'gone-2', 'new', 'old']);
    expect(eventDates.get('old')).toBe(Date.parse('2026-11-20T10:00:00Z'));
  });
});
