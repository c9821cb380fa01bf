import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { TERMINAL_CONTROLS } from '../support/cli-against-sandbox.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { makeEvent, readResults } from '../support/batch-events.js';
import { startCli } from '../support/cli.js';
import { runWithSession } from '../support/in-process.js';
import { run } from '../../src/commands/show/run.js';
import { showDeps } from '../../src/commands/show/deps.js';
import type { ShowListOptions } from '../../src/commands/show/options.js';

/*
 * `fraudctl show` with many ids, as a process against the real sandbox: rows in input order,
 * counts, exit codes, the three formats, the three sources of ids. Concurrency, order under
 * slow answers, Ctrl-C and a closed stdout against a scripted server: show-list-faults.test.ts.
 */

const cli = useSandboxInProcess();
let fileNo = 0;
const file = (name: string, content: string) => {
  const path = join(cli.dir, `${++fileNo}-${name}`);
  writeFileSync(path, content);
  return path;
};

/** `show` for many ids, in-process against the sandbox: the room's run with the deps a run builds. */
const showInProcess = (options: Omit<ShowListOptions, 'form' | 'noColor'>) =>
  runWithSession(cli.sb.url, (session) =>
    run({ form: 'list', noColor: false, ...options }, showDeps(session.context, session)),
  );

/** 500 id lines: 485 stored events, 14 unknown ids, and one malformed id, mixed; with comments and blank lines between. */
const STORED = 485;
const ids: string[] = [];
let idFile: string;
const unknown = new Set<string>();
const MALFORMED = 'bad/id=9';

async function post(events: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < events.length; i += 32) {
    const replies = await Promise.all(events.slice(i, i + 32).map((body) => cli.sb.call('POST', '/event', { body })));
    for (const r of replies) expect(r.status, r.text).toBe(201);
  }
}

beforeAll(async () => {
  const events = Array.from({ length: STORED }, (_, i) => ({
    ...makeEvent('sl', i + 1),
    comments: i === 7 ? '=HYPERLINK("http://evil.example/x","click")' : `note ${i + 1}`,
  }));
  await post(events);
  let stored = 0;
  for (let n = 1; n <= 500; n++) {
    if (n === 250) ids.push(MALFORMED);
    else if (n % 35 === 0) {
      ids.push(`sl-unknown-${n}`);
      unknown.add(`sl-unknown-${n}`);
    } else ids.push(`sl-${++stored}`);
  }
  expect(stored).toBe(STORED);
  expect(unknown.size).toBe(14);
  const lines = ids.flatMap((id, i) => (i % 100 === 0 ? ['# a batch from the merchant', '', id] : [id]));
  idFile = file('ids.txt', `${lines.join('\n')}\n`);
});

describe('fraudctl show with many ids', () => {
  it('events larger than a pipe holds, many times over (--json): every row, and no Node warning however often stdout makes it wait', async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({
      itemId: `sku-${i}`,
      itemName: 'x'.repeat(1000),
      itemQuantity: 1,
      itemPrice: 1,
      itemCategory: 'books',
    }));
    await post([{ ...makeEvent('big', 1), items }]);
    // cli.run fails the test on a Node warning (a MaxListenersExceededWarning, here).
    const result = await cli.run(['show', ...Array<string>(16).fill('big-1'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual(Array(16).fill('big-1'));
  });

  it('500 ids from a file: a header, 500 rows in input order, the counts, exit 4', async () => {
    const result = await cli.run(['show', '--from', idFile]);
    expect(result.code, result.stderr).toBe(4);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(501);
    expect(lines[0]).toMatch(/^id\s+state\s+decision\s+score\s+amount\s+email\s+event date\s+age\s+comments$/);
    const rows = lines.slice(1, 501);
    expect(rows.map((r) => (r.startsWith(MALFORMED) ? MALFORMED : r.split(/\s+/)[0]))).toEqual(ids);
    for (const [i, row] of rows.entries()) {
      if (unknown.has(ids[i]!)) expect(row).toMatch(/^\S+\s+not found$/);
      else if (ids[i] === MALFORMED)
        expect(row).toMatch(/^bad\/id=9\s+invalid VALIDATION_ERROR \(eventId:INVALID_FORMAT\)$/);
      else
        expect(row).toMatch(
          /^sl-\d+\s+(APPROVED|PENDING_REVIEW|DECLINED)\s+(APPROVE|REVIEW|DECLINE)\s+\d+\s+[\d,]+\.\d\d (EUR|USD|GBP)\s+buyer\d+@example\.com\s+2026-11-20T09:14:03Z\s+\S/,
        );
    }
    // One row checked against the service itself.
    const sl8 = (await cli.sb.call('GET', '/event/sl-8')).json as { state: string; totalScore: number };
    const assessment = (await cli.sb.call('GET', '/event/sl-8/risk-assessment')).json as { actionType: string };
    expect(rows.find((r) => r.startsWith('sl-8 '))).toMatch(
      new RegExp(`^sl-8\\s+${sl8.state}\\s+${assessment.actionType}\\s+${sl8.totalScore}\\s.*=HYPERLINK`),
    );
    // stdout is the header and the rows, nothing else (wc -l, awk); the counts go to stderr.
    expect(result.stderr).toMatch(
      new RegExp(`^${STORED} found · 14 not found · 1 invalid\nerror: 15 of 500 ids not found or invalid$`, 'm'),
    );
  });

  it('--concurrency 256 (the most): the same rows as the default 8, and no Node warning (a row has two requests in flight)', async () => {
    const [many, few] = await Promise.all([
      cli.run(['show', '--from', idFile, '--concurrency', '256']),
      cli.run(['show', '--from', idFile]),
    ]);
    expect(many.code, many.stderr).toBe(4);
    expect(many.stdout).toBe(few.stdout);
    expect(many.stderr).toBe(few.stderr);
  });

  it("--json: one line per id in input order, each the service's body as it came or the error in the service's shape", async () => {
    const result = await cli.run(['show', '--from', idFile, '--json']);
    expect(result.code).toBe(4);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(500);
    for (const [i, line] of lines.entries()) {
      const id = ids[i]!;
      const reply = await cli.sb.call('GET', `/event/${encodeURIComponent(id)}`);
      if (reply.status === 200) {
        expect(line).toEqual(reply.json);
        continue;
      }
      const body = reply.json as { errorType: string; errorCodes: string[] };
      expect(line).toEqual({
        id,
        error: {
          status: reply.status,
          errorType: body.errorType,
          errorCodes: body.errorCodes,
          requestId: expect.any(String),
        },
      });
    }
    // The count line goes to stderr, so stdout is nothing but the lines.
    expect(result.stderr).toContain(`${STORED} found · 14 not found · 1 invalid`);
  });

  it('--csv: RFC 4180 with a header row, one record per id, numbers as numbers, a formula-looking comment prefixed', async () => {
    const result = await cli.run(['show', '--from', idFile, '--csv']);
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/^"id","state",.*\r\n/);
    const records = parse(result.stdout, { columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(500);
    expect(Object.keys(records[0]!)).toEqual([
      'id',
      'state',
      'decision',
      'score',
      'amount',
      'currency',
      'email',
      'event date',
      'comments',
      'error',
      'age',
    ]);
    expect(records.map((r) => r.id)).toEqual(ids);
    const sl8 = records.find((r) => r.id === 'sl-8')!;
    expect(sl8.comments).toBe('\'=HYPERLINK("http://evil.example/x","click")');
    const summary = (await cli.sb.call('GET', '/event/sl-8')).json as {
      amount: number;
      currency: string;
      userEmail: string;
      totalScore: number;
    };
    expect(sl8).toMatchObject({
      amount: String(summary.amount),
      currency: summary.currency,
      email: summary.userEmail,
      score: String(summary.totalScore),
      error: '',
    });
    expect(result.stdout).toMatch(new RegExp(`"sl-8","[A-Z_]+","[A-Z]+",${summary.totalScore},${summary.amount},`));
    expect(records.find((r) => r.id === 'sl-unknown-35')).toMatchObject({ state: '', error: 'not found' });
    expect(records.find((r) => r.id === MALFORMED)!.error).toBe('VALIDATION_ERROR (eventId:INVALID_FORMAT)');
  });

  it("a spreadsheet's CSV export as --from (in-process): its id column's ids, its header not looked up, exit 0", async () => {
    const csv = file('export.csv', '\uFEFFOrder no,Event ID,Amount\r\n1,sl-1,"1,200.00"\r\n2,sl-2,5\r\n,,\r\n');
    const idsOf = (stdout: string) =>
      stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id);
    const result = await showInProcess({ ids: [], from: csv, format: 'json', concurrency: 4 });
    expect(result.code, result.stderr).toBe(0);
    expect(idsOf(result.stdout)).toEqual(['sl-1', 'sl-2']);
    expect(result.stderr).toBe('2 found\n');
    // What show --csv wrote reads back as its ids, whatever the file is called.
    const exported = await showInProcess({
      ids: ['sl-3', 'sl-4, sl-5'],
      from: null,
      format: 'csv',
      concurrency: 4,
    });
    const again = await showInProcess({
      ids: [],
      from: file('orders.txt', exported.stdout),
      format: 'json',
      concurrency: 4,
    });
    expect(idsOf(again.stdout)).toEqual(['sl-3', 'sl-4', 'sl-5']);
  });

  it('ids on stdin with --from -, after ids given as arguments', async () => {
    const result = await cli.run(['show', 'sl-3', 'sl-unknown-1', '--from', '-', '--json'], {
      input: 'sl-1\n# skip\n\nsl-2\n',
    });
    expect(result.code).toBe(4);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(lines.map((l) => l.id)).toEqual(['sl-3', 'sl-unknown-1', 'sl-1', 'sl-2']);
    expect(result.stderr).toContain('3 found · 1 not found');
  });

  it('every id found: exit 0, and the count line alone says so', async () => {
    const result = await cli.run(['show', 'sl-1', 'sl-2']);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(result.stderr).toBe('2 found\n');
  });

  it('a results file of submit --out works as --from: a row per line (the id the service assigned when the event had none), lines never stored as invalid rows', async () => {
    const events = [
      makeEvent('rf', 1),
      { amount: 5, currency: 'EUR' },
      makeEvent('rf', 2),
      { ...makeEvent('rf', 3), amount: -1 },
      makeEvent('rf', 4),
    ];
    const lines = events.map((e) => JSON.stringify(e));
    lines.splice(2, 0, '{"not": "closed"');
    const input = file('events.jsonl', `${lines.join('\n')}\n`);
    const out = join(cli.dir, `${++fileNo}-results.jsonl`);
    const submitted = await cli.run(['submit', input, '--out', out, '--quiet']);
    expect(submitted.code).toBe(1); // two lines were rejected
    const result = await cli.run(['show', '--from', out, '--csv']);
    const records = parse(result.stdout, { columns: true }) as Record<string, string>[];
    // One record per results line, in the results file's order (submit writes lines as they settle); the run's own
    // records (the header, first; `sending` before the event without an id) name no event.
    const resultIds = readResults(out).map((r) => r.id);
    expect(records).toHaveLength(6);
    expect(records.map((r) => (r.id!.startsWith('(') ? null : r.id))).toEqual(resultIds);
    // The broken line was never stored: no id. The event sent without an id got one from the service, and is found by it.
    expect(records.filter((r) => r.error === 'INVALID_LINE (NO_ID)')).toHaveLength(1);
    expect(resultIds.filter((id) => id !== null && !id.startsWith('rf-'))).toHaveLength(1);
    expect(records.find((r) => r.id === 'rf-3')!.error).toBe('not found');
    for (const id of ['rf-1', 'rf-2', 'rf-4']) expect(records.find((r) => r.id === id)!.error).toBe('');
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('4 found · 1 not found · 1 invalid');
  });

  it('streams: rows come out while ids are still being read, in input order', async () => {
    const run = startCli(['show', '--from', '-', '--json'], { env: cli.env(), keepStdinOpen: true });
    run.child.stdin.write('sl-1\nsl-2\n');
    await expect.poll(() => run.output().stdout.split('\n').length - 1, { timeout: 10_000 }).toBe(2);
    run.child.stdin.end('sl-3\n');
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(['sl-1', 'sl-2', 'sl-3']);
  });

  it('the table with ids that come slowly: each row is shown before the next id comes (no screenful awaited); a longer id widens the column from its row on; Ctrl-C while waiting ends at once, exit 130, with every row', async () => {
    const run = startCli(['show', '--from', '-'], { env: cli.env(), keepStdinOpen: true });
    const LONG = 'sl-unknown-a-longer-id-than-twenty';
    try {
      const rows = () => run.output().stdout.split('\n').slice(1, -1);
      for (const [i, id] of ['sl-1', LONG, 'sl-2'].entries()) {
        run.child.stdin.write(`${id}\n`);
        await expect
          .poll(() => rows().length, {
            timeout: 5000,
            message: `the row of ${id} while the next id has not come:\n${run.output().stdout}`,
          })
          .toBe(i + 1);
      }
      run.child.kill('SIGINT');
      const result = await Promise.race([
        run.done,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`still running 5 s after SIGINT:\n${run.output().stdout}`)), 5000),
        ),
      ]);
      expect(result.code, result.stderr).toBe(130);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^id {20}state {12}decision/);
      expect(lines[1]).toMatch(/^sl-1 {18}(APPROVED|PENDING_REVIEW|DECLINED) /);
      expect(lines[2]).toBe(`${LONG}  not found`);
      expect(lines[3]).toMatch(new RegExp(`^sl-2 {${LONG.length - 4 + 2}}(APPROVED|PENDING_REVIEW|DECLINED) `));
      expect(lines).toHaveLength(4);
      expect(result.stderr).toBe('interrupted after 3 ids: 2 found · 1 not found\nerror: interrupted after 3 ids\n');
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('makes what the service sent harmless in the table and in CSV', async () => {
    const hostile = 'x\u001b]0;pwned\u0007\u001b[2J\u202e';
    expect(
      (
        await cli.sb.call('POST', '/event', {
          body: { id: 'sl-hostile', amount: 1, currency: 'EUR', userEmail: 'a@example.com', comments: hostile },
        })
      ).status,
    ).toBe(201);
    for (const format of [[], ['--csv']]) {
      const result = await cli.run(['show', 'sl-hostile', 'sl-1', ...format]);
      expect(result.code).toBe(0);
      // CSV ends its records with CRLF (RFC 4180); no other CR may be there.
      expect(result.stdout.replaceAll('\r\n', '\n')).not.toMatch(TERMINAL_CONTROLS);
      expect(result.stdout).toContain('x\\x1b]0;pwned\\x07\\x1b[2J\\u202e');
    }
  });
});

describe('fraudctl show: which form, and usage errors', () => {
  it('one id alone keeps the full tables; one id with --csv or --from is a list', async () => {
    expect((await cli.run(['show', 'sl-1'])).stdout).toMatch(/Decision/);
    expect((await cli.run(['show', 'sl-1', '--csv'])).stdout).toMatch(/^"id",/);
    expect((await cli.run(['show', '--from', '-'], { input: 'sl-1\n' })).stdout).toMatch(/^id\s+state/);
  });

  it.each([
    [['show', 'a', 'b', '--json', '--csv'], /--json and --csv cannot be combined/],
    [['show'], /show needs an event id, or --from FILE/],
    [['show', 'a', 'b', '--watch'], /--watch follows one event/],
    [['show', '--from', '-', '--watch'], /--watch follows one event/],
    [['show', 'a', '--watch', '--csv'], /--watch and --csv/],
    [['show', 'a', 'b', '--interval', '2'], /--interval goes with --watch/],
    [['show', 'a', '--until', 'APPROVED'], /--until goes with --watch/],
    [['show', 'a', '--watch', '--interval', '0.5'], /at least 1/],
    [['show', 'a', 'b', '--concurrency', '0'], /from 1 to 256/],
    [['show', '--from', '/no/such/ids.txt'], /cannot read the id list \/no\/such\/ids\.txt: no such file/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const result = await cli.run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('a refused key stops the list at once: exit 3, no rows', async () => {
    const result = await cli.run(['show', '--from', idFile], { env: { FRAUDCTL_API_KEY: 'not-the-key' } });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: the service did not accept the API key/m);
  });
});
