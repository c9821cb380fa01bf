import type { InputFormat } from './records.js';
import { NL, OPEN_BRACKET, skipWs } from './bytes.js';
import { syntax } from './grammar.js';

/*
 * Which layout the start of `submit`'s input has: one event, JSON Lines, or JSON values (an
 * array, values one after another). Pure: a generator given the input's chunks one at a time
 * (null at the end), which asks for the next only while it cannot decide yet, so a stream that
 * pauses after its second line is decided then. Invariant: it looks at no more than it needs, at
 * most a little over SINGLE_MAX_BYTES, and each byte once (linear however the input is cut).
 *
 * - first non-whitespace character `[` (after a byte order mark, if any) → a batch, 'values';
 * - a first line that is JSON on its own, followed by another non-blank line, or with a
 *   `.jsonl`/`.ndjson` name or the batch option → a batch, 'jsonl';
 * - else, with such a name or the batch option, or when the input holds more than one value or
 *   more than SINGLE_MAX_BYTES → a batch, 'values' (with only a name or the option and one line
 *   of JSON without a line end: 'jsonl');
 * - anything else (one value on one line or many, broken JSON, nothing at all) → the whole text
 *   as one event.
 */

export type Layout = { kind: 'single'; text: string } | { kind: 'batch'; format: InputFormat };

export interface LayoutHints {
  /** The user gave a batch-only option (such as --out). */
  batchOption: boolean;
  /** The input's name ends in .jsonl or .ndjson (optionally .gz). */
  linesByName: boolean;
}

export interface Detected {
  layout: Layout;
  /** The chunks looked at, to be read again, without a byte order mark; none for one event (its text is in `layout`). */
  rest: Buffer[];
}

/** Given chunks by next(chunk), null at the end; asks for more by yielding. */
export type LayoutDetection = Generator<void, Detected, Buffer | null | undefined>;

/** The most a single-event input may hold: more is read as a batch. */
export const SINGLE_MAX_BYTES = 16 * 1024 * 1024;

export function* detectLayout(hints: LayoutHints): LayoutDetection {
  const forcedBatch = hints.batchOption || hints.linesByName;
  const seen: Buffer[] = [];
  let seenBytes = 0;
  let ended = false;
  function* more(): Generator<void, boolean, Buffer | null | undefined> {
    if (ended) return false;
    const chunk = yield;
    if (chunk == null) {
      ended = true;
      return false;
    }
    seen.push(chunk);
    seenBytes += chunk.length;
    return true;
  }
  const batch = (format: InputFormat): Detected => ({
    layout: { kind: 'batch', format },
    rest: seen.filter((c) => c.length > 0),
  });

  // A UTF-8 byte order mark is dropped (first chunks could be shorter than it).
  while (seenBytes < 3 && (yield* more()));
  if (seen.length > 1) seen.splice(0, seen.length, Buffer.concat(seen));
  const first = seen[0];
  if (first && first.length >= 3 && first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf) {
    seen[0] = first.subarray(3);
    seenBytes -= 3;
  }

  // The first character that is not whitespace: chunk `c`, offset `at`.
  let c = 0;
  let at = -1;
  for (;;) {
    for (; c < seen.length; c++) {
      at = skipWs(seen[c]!, 0, seen[c]!.length);
      if (at >= 0) break;
    }
    if (at >= 0 || !(yield* more())) break;
  }
  if (at < 0) return forcedBatch ? batch('jsonl') : { layout: { kind: 'single', text: '' }, rest: [] };
  if (seen[c]![at] === OPEN_BRACKET) return batch('values');

  // The first line (searched chunk by chunk, not concatenated again for every chunk).
  let nc = c;
  let nl = seen[c]!.indexOf(NL, at);
  while (nl < 0) {
    if (nc + 1 < seen.length) nl = seen[++nc]!.indexOf(NL);
    else if (seenBytes > SINGLE_MAX_BYTES || !(yield* more())) break;
  }
  if (nl >= 0) {
    const parts =
      nc === c
        ? [seen[c]!.subarray(at, nl)]
        : [seen[c]!.subarray(at), ...seen.slice(c + 1, nc), seen[nc]!.subarray(0, nl)];
    if (isJson(Buffer.concat(parts).toString('utf8'))) {
      // JSON on its own: a batch if another non-blank line follows.
      let rc = nc;
      let next = skipWs(seen[nc]!, nl + 1, seen[nc]!.length);
      while (next < 0) {
        if (rc + 1 < seen.length) next = skipWs(seen[++rc]!, 0, seen[rc]!.length);
        else if (seenBytes > SINGLE_MAX_BYTES || !(yield* more())) break;
      }
      if (next >= 0 || forcedBatch) return batch('jsonl');
    }
  }
  if (forcedBatch) {
    // A .jsonl name says JSON Lines even when its first line is broken; one line without a line end is JSON Lines too.
    const oneLine = nl < 0 && seenBytes <= SINGLE_MAX_BYTES && isJson(Buffer.concat(seen).toString('utf8'));
    return batch(hints.linesByName || oneLine ? 'jsonl' : 'values');
  }

  while (seenBytes <= SINGLE_MAX_BYTES && (yield* more()));
  const whole = seenBytes > SINGLE_MAX_BYTES ? null : Buffer.concat(seen, seenBytes);
  if (whole === null || severalValues(whole)) return batch('values');
  return { layout: { kind: 'single', text: whole.toString('utf8') }, rest: [] };
}

/** Whether a second value starts after a first one that is whole (broken JSON is one event, for the one-event error). */
function severalValues(text: Buffer): boolean {
  let values = 0;
  const checked = syntax((_token, depth) => {
    // A token at the top, after a value there: a second value.
    if (depth === 0 && ++values > 1) throw new Several();
  });
  try {
    checked.tokenizer.write(text);
    return false;
  } catch (e) {
    return e instanceof Several;
  }
}
class Several extends Error {}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
