import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openInput, type BatchInput, type InputRecord, type SingleInput } from '../../src/batch/input-records.js';
import { CliError, UsageError } from '../../src/errors/cli-error.js';
import { tempDir } from '../support/sandbox.js';

const tmp = tempDir('fraudctl-input-');
afterAll(() => tmp.remove());
let n = 0;
const file = (name: string, content: string | Buffer) => {
  const p = join(tmp.dir, `${++n}-${name}`);
  writeFileSync(p, content);
  return p;
};
const noStdin = { stdin: Object.assign(new PassThrough(), { isTTY: false }) };

/** stdin fed in chunks of `size` bytes. */
function stdinOf(content: string | Buffer, size = 65536) {
  const stream = Object.assign(new PassThrough(), { isTTY: false });
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
  for (let i = 0; i < bytes.length; i += size) stream.write(bytes.subarray(i, i + size));
  stream.end();
  return { stdin: stream };
}

async function all(input: SingleInput | BatchInput): Promise<InputRecord[]> {
  expect(input.kind).toBe('batch');
  const records: InputRecord[] = [];
  for await (const r of (input as BatchInput).records) records.push(r);
  return records;
}
const brief = (records: InputRecord[]) => records.map((r) => [r.line, r.text, r.problem ?? null]);

describe('openInput: one event or a batch', () => {
  it.each([
    ['a pretty-printed object', 'one.json', '{\n  "id": "a",\n  "amount": 1\n}\n', 'single'],
    ['a one-line object in a .json file', 'one.json', '{"id":"a"}\n', 'single'],
    ['two lines of JSON', 'two.json', '{"id":"a"}\n{"id":"b"}\n', 'batch'],
    ['two lines after blank lines', 'two.json', '\n\n{"id":"a"}\n\n{"id":"b"}', 'batch'],
    ['one line in a .jsonl file', 'one.jsonl', '{"id":"a"}\n', 'batch'],
    ['a JSON array', 'list.json', ' [{"id":"a"}]', 'batch'],
    ['an empty file', 'empty.json', '', 'single'],
  ])('%s → %s', async (_what, name, content, kind) => {
    const input = await openInput(file(name, content), noStdin, { batch: false });
    expect(input.kind).toBe(kind);
    if (input.kind === 'batch') input.close();
  });

  it('a batch option makes even one object a batch', async () => {
    const records = await all(await openInput(file('one.json', '{"id":"a"}'), noStdin, { batch: true }));
    expect(brief(records)).toEqual([[1, '{"id":"a"}', null]]);
  });

  it('a single event comes back whole, byte order mark dropped', async () => {
    const input = await openInput(file('bom.json', '\ufeff{\n "id": "é"\n}'), noStdin, { batch: false });
    expect(input).toEqual({ kind: 'single', text: '{\n "id": "é"\n}' });
  });

  it.each([
    ['no such file', join(tmp.dir, 'missing.jsonl'), /^no such file: .*missing\.jsonl$/],
    ['a directory', tmp.dir, /is a directory/],
  ])('%s: a usage error', async (_what, path, message) => {
    const error = await openInput(path, noStdin, { batch: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('stdin that is a terminal: a usage error saying how to pipe events in', async () => {
    const error = await openInput('-', { stdin: Object.assign(new PassThrough(), { isTTY: true }) }, { batch: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).hint).toContain('fraudctl submit - < events.jsonl');
  });
});

describe('JSON Lines', () => {
  it('numbers lines as in the file, skips blank ones, strips CRLF', async () => {
    const records = await all(await openInput(file('e.jsonl', '{"a":1}\r\n\r\n  \n{"a":2}\n{"a":3}'), noStdin, { batch: false }));
    expect(brief(records)).toEqual([
      [1, '{"a":1}', null],
      [4, '{"a":2}', null],
      [5, '{"a":3}', null],
    ]);
  });

  it('marks a line over the limit too large, with its full size, and goes on with the next', async () => {
    const big = `{"x":"${'y'.repeat(200)}"}`;
    const records = await all(await openInput(file('big.jsonl', `{"a":1}\n${big}\n{"a":2}\n`), noStdin, { batch: false, maxRecordBytes: 100 }));
    expect(brief(records.filter((r) => r.line !== 2))).toEqual([
      [1, '{"a":1}', null],
      [3, '{"a":2}', null],
    ]);
    expect(records[1]).toMatchObject({ line: 2, bytes: big.length, problem: 'too large', text: big });
  });

  it('never splits a multi-byte character, even fed one byte at a time', async () => {
    const text = '{"name":"Zoë 🚀 日本"}\n{"name":"ß"}\n';
    const records = await all(await openInput('-', stdinOf(text, 1), { batch: true }));
    expect(records.map((r) => JSON.parse(r.text) as unknown)).toEqual([{ name: 'Zoë 🚀 日本' }, { name: 'ß' }]);
  });

  it('reads gzip, from a file or stdin, recognised by its bytes not its name', async () => {
    const gz = gzipSync('{"a":1}\n{"a":2}\n');
    for (const input of [await openInput(file('events.data', gz), noStdin, { batch: false }), await openInput('-', stdinOf(gz, 7), { batch: false })]) {
      expect(brief(await all(input))).toEqual([
        [1, '{"a":1}', null],
        [2, '{"a":2}', null],
      ]);
    }
  });

  it('corrupt gzip: a CliError naming the input', async () => {
    const gz = gzipSync(Buffer.alloc(100_000, '{"a":1}\n'));
    const broken = Buffer.concat([gz.subarray(0, 40), Buffer.alloc(40, 0xff), gz.subarray(80)]);
    // Found while peeking at the start, or later while reading: either way, this error.
    const error = await (async () => {
      const input = (await openInput(file('broken.jsonl.gz', broken), noStdin, { batch: false })) as BatchInput;
      for await (const _ of input.records) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(/broken\.jsonl\.gz is not valid gzip data/);
  });

  it('counts the records of a plain file before the run; not for gzip or stdin', async () => {
    const input = (await openInput(file('c.jsonl', '{"a":1}\n\n  \n{"a":2}\n{"a":3}'), noStdin, { batch: false })) as BatchInput;
    expect(await input.countRecords()).toBe(3);
    input.close();
    const gz = (await openInput(file('c.jsonl.gz', gzipSync('{"a":1}\n')), noStdin, { batch: false })) as BatchInput;
    expect(await gz.countRecords()).toBeNull();
    gz.close();
    const piped = (await openInput('-', stdinOf('{"a":1}\n{"a":2}\n'), { batch: false })) as BatchInput;
    expect(await piped.countRecords()).toBeNull();
    piped.close();
  });

  it('streams: a slow reader of 200,000 lines never makes the input pile up in memory', async () => {
    const stdin = Object.assign(new PassThrough({ highWaterMark: 64 * 1024 }), { isTTY: false });
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
    const input = (await openInput('-', { stdin }, { batch: true })) as BatchInput;
    let seen = 0;
    let maxAhead = 0;
    for await (const r of input.records) {
      seen++;
      // Lines written but not yet read stay within a few buffers' worth, however slow the reader.
      maxAhead = Math.max(maxAhead, written - r.line);
      if (seen % 20_000 === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(seen).toBe(200_000);
    expect(maxAhead).toBeLessThan(20_000);
  });
});

describe('JSON arrays', () => {
  it('gives each element its own text and number, strings with brackets, commas and escapes included', async () => {
    const events = [{ id: 'a', note: 'has ] and [ and , and } {' }, { id: 'b', q: 'say \\"hi\\"', u: 'ünï 🚀' }, { id: 'c', nested: [[1, 2], { x: [3] }] }];
    for (const text of [JSON.stringify(events), JSON.stringify(events, null, 2)]) {
      const records = await all(await openInput(file('a.json', text), noStdin, { batch: false }));
      expect(records.map((r) => r.line)).toEqual([1, 2, 3]);
      expect(records.map((r) => JSON.parse(r.text) as unknown)).toEqual(events);
    }
  });

  it('keeps going past a malformed element, and gives empty ones as empty text', async () => {
    const records = await all(await openInput(file('bad.json', '[{"a":1}, {"b":}, , {"c":3}]'), noStdin, { batch: false }));
    expect(brief(records)).toEqual([
      [1, '{"a":1}', null],
      [2, '{"b":}', null],
      [3, '', null],
      [4, '{"c":3}', null],
    ]);
  });

  it('an empty array has no records', async () => {
    expect(await all(await openInput(file('empty.json', ' [ ] '), noStdin, { batch: false }))).toEqual([]);
  });

  it('an input that ends inside the array: the partial element is reported unterminated', async () => {
    const records = await all(await openInput(file('cut.json', '[{"a":1},{"b":2'), noStdin, { batch: false }));
    expect(brief(records)).toEqual([
      [1, '{"a":1}', null],
      [2, '{"b":2', 'unterminated JSON array'],
    ]);
  });

  it('text after the closing bracket is one more record, reported', async () => {
    const records = await all(await openInput(file('after.json', '[{"a":1}]\n{"b":2}\n'), noStdin, { batch: false }));
    expect(brief(records)).toEqual([
      [1, '{"a":1}', null],
      [2, '{"b":2}', 'text after the end of the JSON array'],
    ]);
  });

  it('an element over the limit is too large; the next is still right', async () => {
    const big = { x: 'y'.repeat(300) };
    const records = await all(await openInput(file('big.json', JSON.stringify([big, { a: 1 }])), noStdin, { batch: false, maxRecordBytes: 100 }));
    expect(records[0]).toMatchObject({ line: 1, problem: 'too large', bytes: JSON.stringify(big).length });
    expect(records[1]).toMatchObject({ line: 2, text: '{"a":1}' });
  });

  it('reads a gzip array fed in tiny chunks', async () => {
    const records = await all(await openInput('-', stdinOf(gzipSync('[{"a":"ü"},{"b":2}]'), 3), { batch: false }));
    expect(records.map((r) => r.text)).toEqual(['{"a":"ü"}', '{"b":2}']);
  });
});
