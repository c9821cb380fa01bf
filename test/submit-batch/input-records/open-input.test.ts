import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  KEEP_BYTES,
  openInput as openInputOf,
  type BatchInput,
  type InputRecord,
  type SingleInput,
} from '../../../src/submit-batch/input-records/open-input.js';
import { CliError, ExitCode, UsageError } from '../../../src/errors/cli-error.js';
import { descriptorsOn as fdsOn } from '../../support/open-files.js';
import { notOnWindows, ON_WINDOWS, onWindows } from '../../support/prerequisites.js';

const dir = mkdtempSync(join(tmpdir(), 'fraudctl-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Every input a test opens is closed after it, as the product's callers do: a file handle left
// to the garbage collector fails the suite (test/support/no-warnings.ts).
const opened: BatchInput[] = [];
afterEach(() => {
  for (const input of opened.splice(0)) input.close();
});
const openInput: typeof openInputOf = async (...args) => {
  const input = await openInputOf(...args);
  if (input.kind === 'batch') opened.push(input);
  return input;
};
let files = 0;
/** A new file in the temp dir holding `content`; its name ends in `name`. */
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, `${++files}-${name}`);
  writeFileSync(path, content);
  return path;
};

type Stdin = PassThrough & { isTTY: boolean };
const newStdin = (options?: { highWaterMark: number }): Stdin =>
  Object.assign(new PassThrough(options), { isTTY: false });
/** Unused stdin, for inputs read from a file. */
const noStdin = { stdin: newStdin() };
/** stdin holding `content`, delivered in chunks of `size` bytes. */
function stdinOf(content: string | Buffer, size = 65536): { stdin: Stdin } {
  const stdin = newStdin();
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
  for (let i = 0; i < bytes.length; i += size) stdin.write(bytes.subarray(i, i + size));
  stdin.end();
  return { stdin };
}

function asBatch(input: SingleInput | BatchInput): BatchInput {
  if (input.kind !== 'batch') throw new Error(`expected a batch, got one event: ${input.text.slice(0, 80)}`);
  return input;
}
async function all(input: SingleInput | BatchInput): Promise<InputRecord[]> {
  const records: InputRecord[] = [];
  for await (const r of asBatch(input).records) records.push(r);
  return records;
}
/** Records as [line, text, problem], the problem null when there is none. */
const brief = (records: InputRecord[]) => records.map((r) => [r.line, r.text, r.problem ?? null]);
/** The records of `content` read from a file named `name`, and from stdin in chunks of each size: all must agree. */
async function readEverywhere(
  name: string,
  content: string | Buffer,
  options: { maxRecordBytes?: number; sizes?: number[] } = {},
): Promise<InputRecord[]> {
  const open = { batch: false, ...(options.maxRecordBytes ? { maxRecordBytes: options.maxRecordBytes } : {}) };
  const fromFile = await all(await openInput(file(name, content), noStdin, open));
  for (const size of options.sizes ?? [1, 3, 7]) {
    expect(
      await all(await openInput('-', stdinOf(content, size), { ...open, batch: name.endsWith('.jsonl') })),
    ).toEqual(fromFile);
  }
  return fromFile;
}
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as Error,
  );
async function expectReleased(path: string) {
  for (let i = 0; i < 50 && (fdsOn(path) ?? 0) > 0; i++) await sleep(10);
  expect(fdsOn(path) ?? 0).toBe(0);
}

describe('openInput: one event or a batch', () => {
  it.each([
    ['a pretty-printed object', 'one.json', '{\n  "id": "a",\n  "amount": 1\n}\n', 'single'],
    ['a one-line object in a .json file', 'one.json', '{"id":"a"}\n', 'single'],
    ['one line then blank lines', 'one.json', '{"id":"a"}\n\n \r\n', 'single'],
    ['two lines of JSON', 'two.json', '{"id":"a"}\n{"id":"b"}\n', 'jsonl'],
    ['two lines after blank lines, no final newline', 'two.txt', '\n \n{"id":"a"}\n\n{"id":"b"}', 'jsonl'],
    ['two lines, the second not JSON', 'two.json', '{"id":"a"}\nnot json\n', 'jsonl'],
    ['one line in a .jsonl file', 'one.jsonl', '{"id":"a"}\n', 'jsonl'],
    ['one line in a .NDJSON file', 'one.NDJSON', '{"id":"a"}', 'jsonl'],
    ['an empty .jsonl file', 'empty.jsonl', '', 'jsonl'],
    ['a JSON array', 'list.json', ' \n [{"id":"a"}]', 'values'],
    ['a JSON array in a .jsonl file', 'list.jsonl', '[{"id":"a"}]', 'values'],
    ['two pretty-printed objects, as jq prints them', 'jq.json', '{\n  "id": "a"\n}\n{\n  "id": "b"\n}\n', 'values'],
    ['two objects on one line', 'two.json', '{"id":"a"} {"id":"b"}', 'values'],
    [
      'a pretty-printed object with a syntax error (one event: its own error message)',
      'bad.json',
      '{\n  "id": "a",\n}\n{"id":"b"}',
      'single',
    ],
    ['an empty file', 'empty.json', '', 'single'],
    ['a file of whitespace', 'blank.json', ' \n\t\r\n', 'single'],
    // Deep nesting: the grammar holds one flag per level (grammar.ts), its time linear in the depth.
    [
      'one object nested 20,000 levels deep',
      'deep.json',
      `{"id":"deep","x":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}\n`,
      'single',
    ],
    [
      'two objects on one line, the first nested 20,000 levels deep',
      'deep2.json',
      `{"x":${'['.repeat(20_000)}${']'.repeat(20_000)}} {"id":"b"}\n`,
      'values',
    ],
  ])('%s → %s', async (_what, name, content, expected) => {
    const input = await openInput(file(name, content), noStdin, { batch: false });
    if (input.kind === 'batch') input.close();
    expect(input.kind === 'batch' ? input.format : input.kind).toBe(expected);
    if (input.kind === 'single') expect(input.text).toBe(content.trim() === '' ? '' : content);
  });

  it('a batch option makes even one object a batch, and an empty input a batch of nothing', async () => {
    expect(brief(await all(await openInput(file('one.json', '{"id":"a"}'), noStdin, { batch: true })))).toEqual([
      [1, '{"id":"a"}', null],
    ]);
    expect(await all(await openInput(file('empty.json', ''), noStdin, { batch: true }))).toEqual([]);
    expect(await all(await openInput('-', stdinOf(' \n'), { batch: true }))).toEqual([]);
  });

  it('one event from stdin, whole', async () => {
    const text = '{\n  "id": "a",\n  "note": "ünï 🚀"\n}\n';
    expect(await openInput('-', stdinOf(text, 5), { batch: false })).toEqual({ kind: 'single', text });
    expect(await openInput('-', stdinOf(''), { batch: false })).toEqual({ kind: 'single', text: '' });
  });

  it('drops a byte order mark, even one split over chunks', async () => {
    expect(await openInput(file('bom.json', '\ufeff{\n "id": "é"\n}'), noStdin, { batch: false })).toEqual({
      kind: 'single',
      text: '{\n "id": "é"\n}',
    });
    expect(brief(await all(await openInput('-', stdinOf('\ufeff{"a":1}\n{"a":2}\n', 1), { batch: false })))).toEqual([
      [1, '{"a":1}', null],
      [2, '{"a":2}', null],
    ]);
    const array = await openInput('-', stdinOf('\ufeff[{"a":1}]', 1), { batch: false });
    expect(asBatch(array).format).toBe('values');
    expect(brief(await all(array))).toEqual([[1, '{"a":1}', null]]);
  });

  it('an input over 16 MiB is a batch of values, too large ones rejected as such', async () => {
    const huge = `{\n"x": "${'y'.repeat(16 * 1024 * 1024)}"\n}\n`;
    const records = await all(await openInput(file('huge.json', huge), noStdin, { batch: false }));
    expect(records.map((r) => [r.line, r.column, r.problem, r.bytes])).toEqual([[1, 1, 'too large', huge.length - 1]]);
  });

  it('a pretty-printed object with a batch option is a batch of one value', async () => {
    const text = '{\n  "id": "a",\n  "amount": 1\n}\n';
    const input = asBatch(await openInput(file('one.json', text), noStdin, { batch: true }));
    expect(input.format).toBe('values');
    expect(await all(input)).toEqual([
      { line: 1, column: 1, text: text.trim(), bytes: text.length - 1, truncated: false },
    ]);
  });

  it.each([
    [
      'no such file',
      () => join(dir, 'missing.jsonl'),
      /^cannot read the file of events .*missing\.jsonl: no such file$/,
    ],
    ['a directory', () => dir, /^cannot read the file of events .*: it is a directory$/],
    // Windows says a path through a file does not exist (ENOENT), where POSIX says ENOTDIR.
    [
      'a path through a file',
      () => join(file('plain.json', '{}'), 'x.jsonl'),
      onWindows
        ? /^cannot read the file of events .*x\.jsonl: no such file$/
        : /^cannot read the file of events .*x\.jsonl: a part of the path is a file, not a directory \(ENOTDIR\)$/,
    ],
  ])('%s: a usage error', async (_what, path, message) => {
    const error = await errorOf(openInput(path(), noStdin, { batch: false }));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(message);
    // What to do: a file to give, or the path to look at (a command that runs as written).
    expect((error as UsageError).hint).toMatch(/^(give a file \(JSON Lines|check (the path|the directory): \S)/);
  });

  const asRoot = process.getuid?.() === 0;
  it.skipIf(asRoot)(
    `an unreadable file: a usage error with the code${asRoot ? ' (skipped: not as root: no file mode keeps root out)' : ''}`,
    async () => {
      notOnWindows(ON_WINDOWS.modes);
      const path = file('secret.jsonl', '{}\n');
      chmodSync(path, 0o200);
      const error = await errorOf(openInput(path, noStdin, { batch: false }));
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toMatch(/^cannot read the file of events .*secret\.jsonl: permission denied \(EACCES\)$/);
      expect((error as UsageError).hint).toMatch(/^check who owns it and its mode: ls -l .*secret\.jsonl/);
    },
  );

  it('stdin that is a terminal: a usage error saying how to pipe events in', async () => {
    const error = await errorOf(
      openInput('-', { stdin: Object.assign(new PassThrough(), { isTTY: true }) }, { batch: false }),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('reading events from stdin, but stdin is a terminal');
    expect((error as UsageError).hint).toBe('pipe the events in (fraudctl submit - < events.jsonl) or give a file');
  });
});

describe('JSON Lines', () => {
  it('numbers lines as in the input, skips blank ones, drops one \\r before \\n', async () => {
    const content = '{"a":1}\r\n\r\n  \n\t\r\n{"a":2}\n{"a":3} \r\r\n  {"a":4}';
    expect(brief(await readEverywhere('e.jsonl', content))).toEqual([
      [1, '{"a":1}', null],
      [5, '{"a":2}', null],
      [6, '{"a":3} \r', null],
      [7, '  {"a":4}', null],
    ]);
  });

  it('agrees with a plain split for any lines in any chunk sizes', async () => {
    // (Objects: a first line starting with `[` would make it an array.)
    const line = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify({ v })),
      fc.constantFrom('', ' ', '\t', 'not json', '{"é":"日本 🚀"}', ' {"b":[1]}\t'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n')), { maxLength: 20 }),
        fc.integer({ min: 1, max: 40 }),
        async (lines, size) => {
          // A first line of JSON, as JSON Lines given by a batch option start (else they would be read as values).
          const content = `{}\n${lines.map(([text, end]) => text + end).join('')}`;
          const expected = [
            [1, '{}', null],
            ...lines.map(([text], i) => [i + 2, text, null]).filter(([, text]) => (text as string).trim() !== ''),
          ];
          const records = await all(await openInput('-', stdinOf(content, size), { batch: true }));
          expect(brief(records)).toEqual(expected);
          for (const r of records) expect(r.bytes).toBe(Buffer.byteLength(r.text));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('marks a line over the limit too large, with its full size in bytes, and goes on with the next', async () => {
    const big = `{"x":"${'é'.repeat(100)}"}`;
    const records = await readEverywhere('big.jsonl', `{"a":1}\n${big}\r\n{"a":2}\n${big}`, { maxRecordBytes: 100 });
    expect(brief(records)).toEqual([
      [1, '{"a":1}', null],
      [2, big, 'too large'],
      [3, '{"a":2}', null],
      [4, big, 'too large'],
    ]);
    expect(records[1]).toMatchObject({ bytes: Buffer.byteLength(big), truncated: false });
  });

  it(`keeps only the first KEEP_BYTES of a longer line, never half a character`, async () => {
    // 1 + 2n bytes: the cut at KEEP_BYTES falls inside a two-byte character.
    const long = `"${'é'.repeat(KEEP_BYTES / 2 + 10)}"`;
    const records = await all(await openInput(file('long.jsonl', `${long}\n{"a":1}\n`), noStdin, { batch: false }));
    expect(records).toHaveLength(2);
    const [cut, next] = records as [InputRecord, InputRecord];
    expect(cut).toMatchObject({ line: 1, bytes: Buffer.byteLength(long), truncated: true, problem: 'too large' });
    expect(Buffer.byteLength(cut.text)).toBe(KEEP_BYTES - 1);
    expect(cut.text.endsWith('é')).toBe(true);
    expect(next).toEqual({ line: 2, column: 1, text: '{"a":1}', bytes: 7, truncated: false });
  });

  it('never splits a multi-byte character, even fed one byte at a time', async () => {
    const text = '{"name":"Zoë 🚀 日本"}\n{"name":"ß"}\n';
    const records = await all(await openInput('-', stdinOf(text, 1), { batch: true }));
    expect(records.map((r) => JSON.parse(r.text) as unknown)).toEqual([{ name: 'Zoë 🚀 日本' }, { name: 'ß' }]);
    expect(records.map((r) => r.bytes)).toEqual([
      Buffer.byteLength('{"name":"Zoë 🚀 日本"}'),
      Buffer.byteLength('{"name":"ß"}'),
    ]);
  });

  it('reads gzip from a file or stdin, recognised by its bytes, not its name', async () => {
    const gz = gzipSync('{"a":1}\n\n{"a":"ü"}\n');
    const path = file('events.data', gz);
    for (const input of [
      await openInput(path, noStdin, { batch: false }),
      await openInput('-', stdinOf(gz, 7), { batch: false }),
    ]) {
      expect(brief(await all(input))).toEqual([
        [1, '{"a":1}', null],
        [3, '{"a":"ü"}', null],
      ]);
    }
    // A .gz name that is not gzip is read as it is.
    expect(brief(await all(await openInput(file('plain.jsonl.gz', '{"a":1}\n'), noStdin, { batch: false })))).toEqual([
      [1, '{"a":1}', null],
    ]);
  });

  it('gives the raw input size and how much of it was read', async () => {
    const gz = gzipSync('{"a":1}\n{"a":2}\n');
    const path = file('sized.jsonl.gz', gz);
    const input = asBatch(await openInput(path, noStdin, { batch: false }));
    expect(input.totalBytes).toBe(gz.length);
    await all(input);
    expect(input.bytesRead()).toBe(gz.length);
    expect(asBatch(await openInput('-', stdinOf('{"a":1}\n{"a":2}\n'), { batch: false })).totalBytes).toBeNull();
  });

  it('corrupt gzip part of the way: records so far, then a CliError naming the input', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) =>
      JSON.stringify({ i, r: ((i * 2654435761) % 4294967296).toString(36) }),
    ).join('\n');
    const gz = gzipSync(lines);
    const broken = Buffer.from(gz);
    broken.fill(0x55, gz.length >> 1, (gz.length >> 1) + 64);
    const cutShort = gz.subarray(0, gz.length - 100);
    for (const [data, why] of [
      [broken, /./],
      [cutShort, /unexpected end of file/],
    ] as const) {
      const input = asBatch(await openInput(file('broken.jsonl.gz', data), noStdin, { batch: false }));
      let seen = 0;
      const error = await errorOf(
        (async () => {
          for await (const r of input.records) seen = r.line;
        })(),
      );
      expect(seen).toBeGreaterThan(0);
      expect(error).toBeInstanceOf(CliError);
      expect(error).not.toBeInstanceOf(UsageError);
      expect((error as CliError).exitCode).toBe(ExitCode.FAILURE);
      expect(error.message).toMatch(/broken\.jsonl\.gz is not valid gzip data: /);
      expect(error.message).toMatch(why);
    }
    // Corrupt from the start: found while peeking, so openInput itself fails.
    const early = await errorOf(
      openInput('-', stdinOf(Buffer.from([0x1f, 0x8b, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09])), {
        batch: false,
      }),
    );
    expect(early).toBeInstanceOf(CliError);
    expect(early.message).toMatch(/^stdin is not valid gzip data: /);
  });

  it('counts the records of a plain file before the run; not for gzip, stdin or an array', async () => {
    const content = '\ufeff{"a":1}\r\n\n  \n{"a":2}\n\t\n{"a":3}';
    const input = asBatch(await openInput(file('c.jsonl', content), noStdin, { batch: false }));
    expect(await input.countRecords()).toBe(3);
    expect(await all(input)).toHaveLength(3);
    expect(
      await asBatch(await openInput(file('ends.jsonl', '{}\n{}\n\n'), noStdin, { batch: false })).countRecords(),
    ).toBe(2);
    for (const other of [
      await openInput(file('c.jsonl.gz', gzipSync('{"a":1}\n')), noStdin, { batch: false }),
      await openInput('-', stdinOf('{"a":1}\n{"a":2}\n'), { batch: false }),
      await openInput(file('c.json', '[{"a":1}]'), noStdin, { batch: false }),
    ]) {
      expect(await asBatch(other).countRecords()).toBeNull();
      asBatch(other).close();
    }
  });

  it('releases the file when the reader stops early, and on close()', async () => {
    const path = file('many.jsonl', '{"a":1}\n'.repeat(100_000));
    const input = asBatch(await openInput(path, noStdin, { batch: false }));
    for await (const r of input.records) if (r.line === 2) break;
    await expectReleased(path);

    const closed = asBatch(await openInput(path, noStdin, { batch: false }));
    const iterator = closed.records[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ line: 1 });
    closed.close();
    closed.close();
    expect((await iterator.next()).done).toBe(true);
    await expectReleased(path);

    const gz = file('many.jsonl.gz', gzipSync('{"a":1}\n'.repeat(100_000)));
    for await (const r of asBatch(await openInput(gz, noStdin, { batch: false })).records) if (r.line === 2) break;
    await expectReleased(gz);

    const { stdin } = stdinOf('{"a":1}\n{"a":2}\n');
    const piped = asBatch(await openInput('-', { stdin }, { batch: true }));
    for await (const r of piped.records) if (r.line === 1) break;
    expect(stdin.destroyed).toBe(true);
  });

  it('streams: a slow reader of 200,000 lines never has more than a few chunks of input pending', async () => {
    const stdin = newStdin({ highWaterMark: 64 * 1024 });
    const line = `${JSON.stringify({ id: 'x'.repeat(40), amount: 12.5, currency: 'EUR' })}\n`;
    let written = 0;
    const produce = () => {
      while (written < 200_000) {
        written++;
        if (!stdin.write(line)) return void stdin.once('drain', produce);
      }
      stdin.end();
    };
    produce();
    const input = asBatch(await openInput('-', { stdin }, { batch: true }));
    let seen = 0;
    let maxAhead = 0;
    for await (const r of input.records) {
      seen++;
      // Lines written but not yet read: the pipe's buffers and the chunk being split, however slow the reader.
      maxAhead = Math.max(maxAhead, written - r.line);
      if (seen % 10_000 === 0) await sleep(5);
    }
    expect(seen).toBe(200_000);
    // 64 KiB each for the pipe's two sides and one chunk: about 2,500 lines of 78 bytes.
    expect(maxAhead * line.length).toBeLessThan(400 * 1024);
  });
});

describe('JSON values: an array, one value over many lines, values one after another', () => {
  const events = [
    { id: 'a', note: 'has ] and [ and , and } { and "quotes"' },
    { id: 'b', q: 'say \\"hi\\" \\', u: 'ünï 🚀 日本', esc: '\n\t\u0001' },
    { id: 'c', nested: [[1, 2], { x: [3, { y: '],[' }] }], empty: {}, none: [] },
    'a string',
    -12.5e3,
    null,
  ];
  /** Records as [line, column, text, problem]. */
  const placed = (records: InputRecord[]) => records.map((r) => [r.line, r.column, r.text, r.problem ?? null]);

  it('gives each element its exact text and where it starts, one-liner or pretty-printed', async () => {
    const oneLine = await readEverywhere('a.json', `[${events.map((e) => JSON.stringify(e)).join(', ')}]`);
    expect(oneLine.map((r) => r.text)).toEqual(events.map((e) => JSON.stringify(e)));
    expect(oneLine.map((r) => r.line)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(oneLine[1]!.column).toBe(2 + JSON.stringify(events[0]).length + 2);
    const pretty = await readEverywhere('p.json', `${JSON.stringify(events, null, 2)}\n`);
    expect(pretty.map((r) => JSON.parse(r.text) as unknown)).toEqual(events);
    for (const r of pretty) expect(r.bytes).toBe(Buffer.byteLength(r.text));
    expect(pretty[2]!.text).toBe(JSON.stringify(events[2], null, 2).replace(/\n/g, '\n  '));
    expect(pretty.map((r) => r.column)).toEqual([3, 3, 3, 3, 3, 3]);
    expect(pretty[1]!.line).toBe(6);
  });

  it('reads values one after another as jq prints them, each named by the line and column where it starts', async () => {
    const jq = `${events
      .slice(0, 3)
      .map((e) => JSON.stringify(e, null, 2))
      .join('\n')}\n`;
    const records = await readEverywhere('jq.json', jq);
    expect(records.map((r) => JSON.parse(r.text) as unknown)).toEqual(events.slice(0, 3));
    expect(records.map((r) => [r.line, r.column])).toEqual([
      [1, 1],
      [5, 1],
      [11, 1],
    ]);
    // Columns count characters, not bytes; several values may share a line; an array's elements are the records.
    expect(placed(await readEverywhere('mixed.json', '{"é":1} {"b":2}\n"ü" [3,\n {"c":4}] 5'))).toEqual([
      [1, 1, '{"é":1}', null],
      [1, 9, '{"b":2}', null],
      [2, 1, '"ü"', null],
      [2, 6, '3', null],
      [3, 2, '{"c":4}', null],
      [3, 11, '5', null],
    ]);
  });

  it('agrees with JSON.parse for any values, spacing and chunk size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { minLength: 2, maxLength: 8 }),
        fc.constantFrom(undefined, 1, 2, '\t'),
        fc.integer({ min: 1, max: 50 }),
        async (values, space, size) => {
          const events = values.map((v) => ({ v }));
          const text = events.map((e) => JSON.stringify(e, null, space)).join('\n');
          const records = await all(await openInput('-', stdinOf(text, size), { batch: true }));
          expect(records.map((r) => [JSON.parse(r.text) as unknown, r.problem])).toEqual(
            events.map((e) => [JSON.parse(JSON.stringify(e)) as unknown, undefined]),
          );
          const lines = text.split('\n');
          for (const r of records)
            expect(lines[r.line - 1]!.slice(r.column - 1).startsWith(r.text.split('\n')[0]!)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a broken value is a NOT_JSON record saying where it broke, and reading goes on at the next value at its column', async () => {
    const jq = '{\n  "id": "a"\n}\n{\n  "id": "b",\n  "amount": 1 2\n}\n{\n  "id": "c"\n}\n';
    const records = await readEverywhere('broken.json', jq);
    expect(placed(records)).toEqual([
      [1, 1, '{\n  "id": "a"\n}', null],
      [4, 1, '{\n  "id": "b",\n  "amount": 1 2\n}', 'not JSON'],
      [8, 1, '{\n  "id": "c"\n}', null],
    ]);
    expect(records[1]!.detail).toBe('at line 6 column 15: unexpected 2');
    // In an indented array: the next element at the same indent.
    const array = '[\n  {"id": "a"},\n  {"id": "b" "x"},\n  {"id": "c"}\n]\n';
    const inArray = await readEverywhere('broken-array.json', array);
    expect(placed(inArray)).toEqual([
      [2, 3, '{"id": "a"}', null],
      [3, 3, '{"id": "b" "x"},', 'not JSON'],
      [4, 3, '{"id": "c"}', null],
    ]);
    expect(inArray[1]!.detail).toBe('at line 3 column 14: unexpected "x"');
  });

  it('a broken value with no later value start: the records before it, then an error saying where it broke', async () => {
    for (const [content, message] of [
      // (Pretty-printed, or the first line alone would make it JSON Lines.)
      [
        '{\n"a":1}\n{"b":2,}\n',
        /^stdin: not JSON at line 3 column 8: unexpected "}", and no later line starts a value at column 1/,
      ],
      ['[{"a":1}, {"b":}, {"c":3}]', /^stdin: not JSON at line 1 column 16: unexpected "}"/],
      ['{\n"a":1}\n{"b":tru}\n', /^stdin: not JSON at line 3 column 9: unexpected "}"/],
    ] as const) {
      const input = asBatch(await openInput('-', stdinOf(content, 3), { batch: true }));
      const seen: InputRecord[] = [];
      const error = await errorOf(
        (async () => {
          for await (const r of input.records) seen.push(r);
        })(),
      );
      expect(placed(seen)[0]).toEqual(content.startsWith('[') ? [1, 2, '{"a":1}', null] : [1, 1, '{\n"a":1}', null]);
      expect(seen).toHaveLength(1);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(ExitCode.FAILURE);
      expect(error.message).toMatch(message);
    }
  });

  it('an input that ends inside a value or the array: the records before it, then an error', async () => {
    for (const [content, message] of [
      ['[{"a":1},{"b":2', /^stdin ends inside a value that starts at line 1 column 10$/],
      ['{\n"a":1}\n{"b":"x', /^stdin ends inside a value/],
      ['[{"a":1},\n', /^stdin ends inside a JSON array$/],
    ] as const) {
      const input = asBatch(await openInput('-', stdinOf(content, 2), { batch: true }));
      const seen: InputRecord[] = [];
      const error = await errorOf(
        (async () => {
          for await (const r of input.records) seen.push(r);
        })(),
      );
      expect(seen.map((r) => r.text.replace('\n', ''))).toEqual(['{"a":1}']);
      expect(error.message).toMatch(message);
    }
  });

  it.each([['[]'], [' [ ] '], ['[\n]\n']])('%j has no records', async (content) => {
    expect(await readEverywhere('empty.json', content)).toEqual([]);
  });

  it('a value over the limit is too large, with its full size in bytes and its first bytes as text; the next is still right', async () => {
    const big = JSON.stringify({ x: 'ü'.repeat(100) });
    const records = await readEverywhere('big.json', `[\n  ${big},\n  {"a":1}\n]`, { maxRecordBytes: 100 });
    // The first 100 bytes, whole characters only: the same whether it came in one piece or in many.
    const head = big.slice(0, 6 + 47);
    expect(placed(records)).toEqual([
      [2, 3, head, 'too large'],
      [3, 3, '{"a":1}', null],
    ]);
    expect(records[0]).toMatchObject({ bytes: Buffer.byteLength(big), truncated: true });
  });

  it('reads gzip values fed in tiny chunks', async () => {
    const records = await all(await openInput('-', stdinOf(gzipSync('[{"a":"ü"},{"b":2}]'), 3), { batch: false }));
    expect(records.map((r) => r.text)).toEqual(['{"a":"ü"}', '{"b":2}']);
    const jq = await all(
      await openInput('-', stdinOf(gzipSync('{\n  "a": 1\n}\n{\n  "b": 2\n}\n'), 3), { batch: false }),
    );
    expect(placed(jq)).toEqual([
      [1, 1, '{\n  "a": 1\n}', null],
      [4, 1, '{\n  "b": 2\n}', null],
    ]);
  });
});

describe('a value over the limit, outside JSON Lines', () => {
  /**
   * stdin that really comes in chunks of `size` bytes: one at a time, after a turn of the event
   * loop (written all at once, a PassThrough gives its reader everything buffered as one chunk).
   */
  const trickled = (content: string, size: number): { stdin: Stdin } => {
    const bytes = Buffer.from(content);
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += size) {
        await new Promise((resolve) => setImmediate(resolve));
        yield bytes.subarray(i, i + size);
      }
    }
    return {
      stdin: Object.assign(Readable.from(chunks(), { objectMode: false }), { isTTY: false }) as unknown as Stdin,
    };
  };
  /** The records of `content` from a file, and from stdin in chunks of each size: all must agree. */
  const readChunked = async (
    name: string,
    content: string,
    maxRecordBytes: number,
    sizes = [1, 3, 7, 64],
  ): Promise<InputRecord[]> => {
    const fromFile = await all(await openInput(file(name, content), noStdin, { batch: false, maxRecordBytes }));
    for (const size of sizes)
      expect(await all(await openInput('-', trickled(content, size), { batch: false, maxRecordBytes }))).toEqual(
        fromFile,
      );
    return fromFile;
  };
  /** Records as [line, column, text, problem, bytes, id]. */
  const seen = (records: InputRecord[]) =>
    records.map((r) => [r.line, r.column, r.text, r.problem ?? null, r.bytes, r.id ?? null]);
  // Brackets, braces and quotes inside strings, escaped quotes and backslashes: where the value
  // ends is found by following its strings, not by counting every bracket.
  const tricky = {
    id: 'big-1',
    note: 'a ] b } c [ d { e "quoted" f \\ g \\" h',
    more: [1, { x: ']}"[{' }, [[]]],
    tail: 'z'.repeat(300),
  };
  const big = JSON.stringify(tricky);

  it('is skipped to its end, unparsed: its first bytes kept, its id read from them, the values after it read as before, whatever the chunks', async () => {
    const content = `[\n  {"id":"ok-1","a":1},\n  ${big}, {"id":"ok-2","s":"]"},\n  "text",\n  {"id":"ok-3"}\n]\n`;
    const records = await readChunked('skip.json', content, 64);
    expect(seen(records)).toEqual([
      [2, 3, '{"id":"ok-1","a":1}', null, 19, null],
      [3, 3, big.slice(0, 64), 'too large', Buffer.byteLength(big), 'big-1'],
      [3, 5 + big.length, '{"id":"ok-2","s":"]"}', null, 21, null],
      [4, 3, '"text"', null, 6, null],
      [5, 3, '{"id":"ok-3"}', null, 13, null],
    ]);
    expect(records[1]!.truncated).toBe(true);
  });

  it('values one after another (jq): the same', async () => {
    const content = `${JSON.stringify(tricky, null, 2)}\n{"id":"ok-4"}\n`;
    const records = await readChunked('skip-jq.json', content, 64, [1, 5, 4096]);
    expect(records.map((r) => [r.line, r.problem ?? null, r.id ?? null])).toEqual([
      [1, 'too large', 'big-1'],
      [JSON.stringify(tricky, null, 2).split('\n').length + 1, null, null],
    ]);
    expect(records[1]!.text).toBe('{"id":"ok-4"}');
  });

  it('an id after the first bytes is not read: the record has none, the same in every run', async () => {
    const late = JSON.stringify({ pad: 'p'.repeat(200), id: 'late-1' });
    const records = await readChunked('late.json', `[${late}]`, 64);
    expect(records.map((r) => [r.problem, r.id ?? null])).toEqual([['too large', null]]);
  });

  it('a string or number at the top over the limit is too large as well, and what follows is read', async () => {
    const records = await all(
      await openInput('-', trickled(`["${'s'.repeat(500)}", ${'9'.repeat(500)}, {"id":"after"}]`, 16), {
        batch: false,
        maxRecordBytes: 64,
      }),
    );
    expect(records.map((r) => [r.problem ?? null, r.truncated])).toEqual([
      ['too large', true],
      ['too large', true],
      [null, false],
    ]);
    expect(records[0]!.text.startsWith('"sss')).toBe(true);
    expect(records[2]!.text).toBe('{"id":"after"}');
  });

  it('an input that ends inside the skipped value is cut short, saying where the value started', async () => {
    const input = await openInput('-', trickled(`[{"id":"ok"},\n {"id":"cut","s":"${'x'.repeat(300)}`, 7), {
      batch: false,
      maxRecordBytes: 64,
    });
    const error = await errorOf(all(input));
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toBe('stdin ends inside a value that starts at line 2 column 2');
  });

  it('a large array of small events is read whole: the limit is per value, not per input', async () => {
    const events = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ id: `e-${i}`, amount: i }));
    const records = await readChunked('many.json', `[${events.join(',\n')}]`, 64, [4096]);
    expect(records.map((r) => r.text)).toEqual(events);
    expect(records.filter((r) => r.problem)).toEqual([]);
  });
});

describe('a value nested very deep', () => {
  // The grammar was @streamparser/json's TokenParser, which searched its whole stack at every
  // value: its time grew with the square of the depth (200,000 levels in an array: tens of seconds).
  const deep = (depth: number) => `{"id":"deep","x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
  it.each([
    ['an element of a JSON array', (v: string) => `[${v},\n{"id":"b"}]\n`, 'values'],
    ['one of values one after another', (v: string) => `${v} {"id":"b"}\n`, 'values'],
    ['a line of JSON Lines', (v: string) => `${v}\n{"id":"b"}\n`, 'jsonl'],
    ['one event', (v: string) => `${v}\n`, 'single'],
  ])(
    '200,000 levels deep, as %s: read whole, with what follows, in time linear in the depth (under 5 s)',
    async (_what, wrap, layout) => {
      const value = deep(200_000);
      const started = performance.now();
      const input = await openInput(file('deep.json', wrap(value)), noStdin, {
        batch: false,
        maxRecordBytes: 4 * 1024 * 1024,
      });
      if (layout === 'single') expect(input).toEqual({ kind: 'single', text: `${value}\n` });
      else {
        expect(asBatch(input).format).toBe(layout);
        expect((await all(input)).map((r) => [r.text, r.problem ?? null])).toEqual([
          [value, null],
          ['{"id":"b"}', null],
        ]);
      }
      expect(performance.now() - started).toBeLessThan(5000);
    },
    120_000,
  );
});
