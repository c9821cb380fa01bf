import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { readIdList, type IdListEntry, type IdListOptions } from '../../src/id-lists/id-list.js';
import { UsageError } from '../../src/errors/cli-error.js';
import { descriptorsOn } from '../support/open-files.js';
import { tempDir } from '../support/sandbox.js';

const tmp = tempDir('fraudctl-ids-');
afterAll(() => tmp.remove());
let n = 0;
const file = (content: string) => {
  const p = join(tmp.dir, `${++n}.txt`);
  writeFileSync(p, content);
  return p;
};
const stdinOf = (content: string) => {
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end(content);
  return { stdin };
};
const noStdin = { stdin: Object.assign(new PassThrough(), { isTTY: false }) };

async function entries(options: Partial<IdListOptions>, context = noStdin): Promise<IdListEntry[]> {
  const all: IdListEntry[] = [];
  for await (const e of readIdList({ args: [], results: 'every', ...options }, context)) all.push(e);
  return all;
}
const ids = (list: IdListEntry[]) => list.map((e) => e.id);

const result = (line: number, id: string | null, outcome: string, actionType: string | null) =>
  JSON.stringify({
    line,
    id,
    outcome,
    status: 201,
    actionType,
    totalRiskScore: 1,
    errorType: null,
    errorCodes: [],
    attempts: 1,
    latencyMs: 3,
  });

describe('readIdList', () => {
  it('takes arguments, then the file: one id per line, blank lines and # comments skipped, whitespace and CRLF trimmed', async () => {
    const list = await entries({
      args: ['a-1', 'a-2'],
      from: file('\uFEFF# from the merchant\nord-1\r\n\n  ord-2  \n# done\nord-3'),
    });
    expect(ids(list)).toEqual(['a-1', 'a-2', 'ord-1', 'ord-2', 'ord-3']);
    expect(list.map((e) => e.where)).toEqual([
      'argument 1',
      'argument 2',
      expect.stringMatching(/:2$/),
      expect.stringMatching(/:4$/),
      expect.stringMatching(/:6$/),
    ]);
  });

  it('reads stdin with -, and refuses a terminal as stdin', async () => {
    expect(ids(await entries({ from: '-' }, stdinOf('x\ny\n')))).toEqual(['x', 'y']);
    const tty = { stdin: Object.assign(new PassThrough(), { isTTY: true }) };
    await expect(entries({ from: '-' }, tty)).rejects.toThrow(UsageError);
  });

  it('skips the header of a results file (its first line, which names the run, not an event)', async () => {
    const header = JSON.stringify({
      fraudctl: 'results',
      version: 1,
      command: 'submit',
      service: 'http://127.0.0.1:1',
      options: { rejects: null },
      closed: true,
    });
    const path = file(
      `${header}\n${result(1, 'h-1', 'DECIDED', 'REVIEW')}\n${result(2, 'h-2', 'DECIDED', 'APPROVE')}\n`,
    );
    const every = await entries({ from: path, results: 'every' });
    expect(every.map((e) => [e.id, e.problem])).toEqual([
      ['h-1', null],
      ['h-2', null],
    ]);
    expect(ids(await entries({ from: path, results: 'review' }))).toEqual(['h-1']);
  });

  it('recognises a results file of submit --out by its content and takes the ids asked for', async () => {
    const results = [
      result(1, 'r-1', 'DECIDED', 'APPROVE'),
      result(2, 'r-2', 'DECIDED', 'REVIEW'),
      result(3, null, 'REJECTED', null),
      result(4, 'r-4', 'FAILED', null),
      result(5, 'r-5', 'DECIDED', 'REVIEW'),
      result(6, 'r-6', 'DECIDED', 'DECLINE'),
      '{"line": 7, "id": "cut',
    ].join('\n');
    const path = file(`${results}\n`);
    const every = await entries({ from: path, results: 'every' });
    expect(ids(every)).toEqual(['r-1', 'r-2', null, 'r-4', 'r-5', 'r-6', null]);
    expect(every[2]).toMatchObject({ problem: expect.stringMatching(/^no id/), problemCode: 'NO_ID' });
    expect(every[6]).toMatchObject({ problem: expect.stringMatching(/^not JSON/), problemCode: 'NOT_JSON' });
    expect(every[0]!.problemCode).toBeUndefined();
    // A broken line is always an entry (with its problem), whatever the selection: it is never dropped unseen.
    expect(ids(await entries({ from: path, results: 'review' }))).toEqual(['r-2', 'r-5', null]);
    expect(ids(await entries({ from: path, results: 'decided' }))).toEqual(['r-1', 'r-2', 'r-5', 'r-6', null]);
    // From stdin, as `grep REVIEW results.jsonl | fraudctl review --from -` gives it.
    const grepped = results
      .split('\n')
      .filter((l) => l.includes('REVIEW'))
      .join('\n');
    expect(ids(await entries({ from: '-', results: 'review' }, stdinOf(grepped)))).toEqual(['r-2', 'r-5']);
  });

  it('splits ids pasted together (commas, semicolons, blanks, quotes, brackets): arguments, files and stdin alike', async () => {
    expect(ids(await entries({ args: ['ord-1, ord-2; ord-3', 'ord-4'] }))).toEqual([
      'ord-1',
      'ord-2',
      'ord-3',
      'ord-4',
    ]);
    const list = await entries({
      from: file('ord-5, ord-6;ord-7\n["ord-8", "ord-9"]\nord-10 ord-11 # the rest of the ring\n'),
    });
    expect(ids(list)).toEqual(['ord-5', 'ord-6', 'ord-7', 'ord-8', 'ord-9', 'ord-10', 'ord-11']);
    expect(list.map((e) => e.where.replace(/^.*:/, ''))).toEqual(['1', '1', '1', '2', '2', '3', '3']);
    expect(ids(await entries({ from: '-' }, stdinOf('ord-12;ord-13\t ord-14\r\n')))).toEqual([
      'ord-12',
      'ord-13',
      'ord-14',
    ]);
    // What no id holds but no list uses to separate stays in the id, which the service then calls malformed.
    expect(ids(await entries({ args: ['ord/15', 'ord=16'] }))).toEqual(['ord/15', 'ord=16']);
  });

  it("a spreadsheet's CSV: the ids of its id column (BOM, CRLF, quotes, a cell across lines), the header not taken for an id", async () => {
    const csv =
      '\uFEFFOrder no,Event ID,Amount,Note\r\n1,ord-1,"1,200.00",ok\r\n2,ord-2,5,"two\r\nlines"\r\n,,,\r\n3,,7,no id yet\r\n4,"ord-4",9,"said ""hi"""\r\n';
    const list = await entries({ from: file(csv) });
    expect(list.map((e) => [e.id, e.where.replace(/^.*:/, '')])).toEqual([
      ['ord-1', '2'],
      ['ord-2', '3'],
      [null, '6'],
      ['ord-4', '7'],
    ]);
    expect(list[2]).toMatchObject({ problem: 'no id (column 2 is empty)', problemCode: 'NO_ID' });
    // From stdin too, recognised by its header; the event_id spelling, a column not the first.
    expect(ids(await entries({ from: '-' }, stdinOf('amount,event_id\n10,ord-5\n11,ord-6\n')))).toEqual([
      'ord-5',
      'ord-6',
    ]);
    // What show --csv writes reads back as its ids.
    expect(ids(await entries({ from: file('"id","state","decision"\r\n"ord-7","APPROVED","APPROVE"\r\n') }))).toEqual([
      'ord-7',
    ]);
  });

  it('a file named .csv: the first column, under a header that names no id column or without a header', async () => {
    const csvFile = (content: string) => {
      const p = join(tmp.dir, `${++n}.CSV`);
      writeFileSync(p, content);
      return p;
    };
    expect(ids(await entries({ from: csvFile('Order no,Amount\nord-1,10\nord-2,"2,5"\n') }))).toEqual([
      'ord-1',
      'ord-2',
    ]);
    expect(ids(await entries({ from: csvFile('ord-3,10\nord-4,20\n') }))).toEqual(['ord-3', 'ord-4']);
    await expect(entries({ from: csvFile('id,note\nord-5,"never closed\n') })).rejects.toThrow(
      /cannot be read as CSV: Quote Not Closed/,
    );
  });

  it('a missing file or a directory is a usage error naming it', async () => {
    await expect(entries({ from: join(tmp.dir, 'nope.txt') })).rejects.toThrow(
      /cannot read the id list .*nope\.txt: no such file/,
    );
    await expect(entries({ from: tmp.dir })).rejects.toThrow(`cannot read the id list ${tmp.dir}: it is a directory`);
  });

  it('closes the file when the reader stops early', async () => {
    const path = file(Array.from({ length: 50_000 }, (_, i) => `id-${i}`).join('\n'));
    for await (const e of readIdList({ args: [], from: path, results: 'every' }, noStdin)) if (e.id === 'id-10') break;
    // The loop's break awaited the list's return(), which awaits the close: nothing to wait for.
    expect(descriptorsOn(path) ?? 0).toBe(0);
  });
});
