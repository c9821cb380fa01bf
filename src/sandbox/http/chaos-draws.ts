import { createHash } from 'node:crypto';

/*
 * The numbers behind `--chaos seed=N`. A generator seeded once and drawn in arrival order
 * would not make a concurrent batch reproducible: with 32 requests in flight, which request
 * gets which draw depends on timing. So each number is a function of what the request is, not
 * of when it came:
 *
 *   draw = first 32 bits of sha256("seed:identity:occurrence:purpose") / 2^32
 *
 * where `identity` names the request (the caller decides: method, route, event id, …) and
 * `occurrence` counts the earlier requests with the same identity. The same seed and the same
 * requests then give each event the same numbers on its 1st, 2nd, … attempt, in any order.
 * The string is unambiguous although an identity may hold colons: seed, occurrence and purpose
 * never do, so it reads back from both ends.
 *
 * The occurrence counts are kept for as long as the server runs: one entry per distinct
 * identity, roughly 150 bytes each (a million event ids, some 150 MB). Acceptable for a test
 * tool; forgetting entries would silently make a long run irreproducible.
 */

/** What a number is for: separate numbers, so adding latency does not change the faults. */
export type DrawPurpose = 'fault' | 'latency';

/** The numbers in [0, 1) of one request, one per purpose. */
export type RequestDraws = (purpose: DrawPurpose) => number;

/** Counts one more request of `identity` and returns its numbers. */
export type SeededDraws = (identity: string) => RequestDraws;

export function seededDraws(seed: number): SeededDraws {
  const seen = new Map<string, number>();
  return (identity) => {
    const occurrence = seen.get(identity) ?? 0;
    seen.set(identity, occurrence + 1);
    return (purpose) => keyedDraw(`${seed}:${identity}:${occurrence}:${purpose}`);
  };
}

/** A number in [0, 1) that depends only on `key`. */
export function keyedDraw(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) / 2 ** 32;
}
