import { describe, expect, it } from 'vitest';
import {
  detectLayout,
  SINGLE_MAX_BYTES,
  type Detected,
  type LayoutHints,
} from '../../../src/submit-batch/input-records/detect-layout.js';

/** Runs a detection over these chunks: what it decided, and the chunks it did not ask for. */
const detect = (chunks: readonly Buffer[], hints: LayoutHints): Detected & { unread: Buffer[] } => {
  const detection = detectLayout(hints);
  let step = detection.next();
  let given = 0;
  while (!step.done) step = detection.next(given < chunks.length ? chunks[given++]! : null);
  return { ...step.value, unread: chunks.slice(given) };
};

/** The input cut into chunks of `size` bytes (the last one shorter). */
const chunked = (input: Buffer, size: number): Buffer[] => {
  const chunks: Buffer[] = [];
  for (let i = 0; i < input.length; i += size) chunks.push(input.subarray(i, i + size));
  return chunks;
};

const plain: LayoutHints = { batchOption: false, linesByName: false };
const option: LayoutHints = { batchOption: true, linesByName: false };
const jsonlName: LayoutHints = { batchOption: false, linesByName: true };
const BOM = '\ufeff';
const deep = (depth: number) => `{"id":"deep","x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
const over16MiB = `{\n"x": "${'y'.repeat(SINGLE_MAX_BYTES)}"\n}\n`;

describe('detectLayout: every layout it recognises, whatever the chunks', () => {
  it.each<[string, 'single' | 'jsonl' | 'values', string, LayoutHints]>([
    // One event: one value, on one line or many, or nothing at all, or broken JSON (for its own error).
    ['a pretty-printed object', 'single', '{\n  "id": "a",\n  "amount": 1\n}\n', plain],
    ['a one-line object', 'single', '{"id":"a"}\n', plain],
    ['a one-line object without a line end', 'single', '{"id":"a"}', plain],
    ['one line then blank lines', 'single', '{"id":"a"}\n\n \r\n', plain],
    ['an empty input', 'single', '', plain],
    ['only whitespace', 'single', ' \n\t\r\n', plain],
    ['a byte order mark and an object', 'single', `${BOM}{\n "id": "é"\n}`, plain],
    ['a string at the top', 'single', '"just text"\n', plain],
    [
      'a pretty-printed object with a syntax error, then another value',
      'single',
      '{\n  "id": "a",\n}\n{"id":"b"}',
      plain,
    ],
    ['broken JSON on one line', 'single', '{"id": "a"\n', plain],
    ['two numbers on one line (the second not known ended)', 'single', '1 2', plain],
    ['one object nested 100,000 levels deep', 'single', `${deep(100_000)}\n`, plain],
    // JSON Lines: a first line that is JSON on its own, and another non-blank line (or a name or option saying so).
    ['two lines of JSON', 'jsonl', '{"id":"a"}\n{"id":"b"}\n', plain],
    ['two lines with CRLF', 'jsonl', '{"id":"a"}\r\n{"id":"b"}\r\n', plain],
    ['two lines after blank lines, no final line end', 'jsonl', '\n \n{"id":"a"}\n\n{"id":"b"}', plain],
    ['two lines, the second not JSON', 'jsonl', '{"id":"a"}\nnot json\n', plain],
    ['two lines after a byte order mark', 'jsonl', `${BOM}{"a":1}\n{"a":2}\n`, plain],
    ['two numbers on two lines', 'jsonl', '1\n2\n', plain],
    ['two lines, the first 100,000 levels deep', 'jsonl', `${deep(100_000)}\n{"id":"b"}\n`, plain],
    ['one line, a .jsonl name', 'jsonl', '{"id":"a"}\n', jsonlName],
    ['one line without a line end, a .jsonl name', 'jsonl', '{"id":"a"}', jsonlName],
    ['one line, the batch option', 'jsonl', '{"id":"a"}\n', option],
    ['one line without a line end, the batch option', 'jsonl', '{"id":"a"}', option],
    ['an empty input, a .jsonl name', 'jsonl', '', jsonlName],
    ['only whitespace, the batch option', 'jsonl', ' \n', option],
    ['a broken first line, a .jsonl name', 'jsonl', '{"id":\n{"id":"b"}\n', jsonlName],
    // Values: an array, values one after another, more than one event can hold.
    ['a JSON array', 'values', ' \n [{"id":"a"}]', plain],
    ['a JSON array after a byte order mark', 'values', `${BOM}[{"a":1}]`, plain],
    ['an empty array', 'values', '[]', plain],
    ['a JSON array, a .jsonl name', 'values', '[{"id":"a"}]', jsonlName],
    ['two pretty-printed objects, as jq prints them', 'values', '{\n  "id": "a"\n}\n{\n  "id": "b"\n}\n', plain],
    ['two objects on one line', 'values', '{"id":"a"} {"id":"b"}', plain],
    ['two objects on one line, the first 100,000 levels deep', 'values', `${deep(100_000)} {"id":"b"}\n`, plain],
    ['a pretty-printed object, the batch option', 'values', '{\n  "id": "a",\n  "amount": 1\n}\n', option],
    ['a broken first line, the batch option', 'values', '{"id":\n"a"}\n', option],
    ['more than 16 MiB', 'values', over16MiB, plain],
  ])('%s → %s', (_what, expected, text, hints) => {
    const input = Buffer.from(text);
    // Whole, and cut anywhere: the same layout, and the same bytes to read again (a byte order mark dropped).
    const sizes = input.length > 100_000 ? [input.length || 1, 65_536, 4_093] : [input.length || 1, 1, 2, 7];
    for (const size of sizes) {
      const { layout, rest, unread } = detect(chunked(input, size), hints);
      const withoutBom = text.startsWith(BOM) ? text.slice(1) : text;
      if (expected === 'single') {
        expect(layout).toEqual({ kind: 'single', text: withoutBom.trim() === '' ? '' : withoutBom });
        expect([rest, unread]).toEqual([[], []]);
      } else {
        expect(layout).toEqual({ kind: 'batch', format: expected });
        expect(Buffer.concat([...rest, ...unread]).toString('utf8')).toBe(withoutBom);
      }
    }
  });

  it.each([
    ['JSON Lines: the start of a second line', ['{"id":"a"}\n', '{', '"id":"b"}\n'], 'jsonl'],
    ['an array: its bracket', [' \n', '[', '{"id":"a"}]'], 'values'],
  ])('asks for no more input than it needs (%s), so a stream that pauses there is decided', (_what, chunks, format) => {
    const { layout, unread } = detect(
      chunks.map((c) => Buffer.from(c)),
      plain,
    );
    expect(layout).toEqual({ kind: 'batch', format });
    expect(unread.map(String)).toEqual([chunks[2]]);
  });
});
