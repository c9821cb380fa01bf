import { execFile } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * `show` with many ids on a real terminal (tmux) 60, 80 and 100 columns wide, UUIDs and short ids
 * mixed: no id is cut, no line is wider than the terminal (tmux would wrap it onto a line of its
 * own), and every row's cells start in the header's columns. At 80 columns also with ids that
 * come slowly through a pipe (a FIFO the test writes to): rows are not held back for a screenful.
 */

const cli = useSandboxForCli();
const run = promisify(execFile);
const UUIDS = ['7c1e0b2a-5d3f-4a6b-8c9d-0e1f2a3b4c5d', '0b8f6a52-3c1d-4e7f-9a2b-6c5d4e3f2a1b'];
const MISSING = 'f3a9c2d1-8e7b-4c6a-9d5e-1f2a3b4c5d6e';
const SHORT = ['ord-1', 'ord-22', 'ord-333'];
const IDS = [SHORT[0]!, UUIDS[0]!, SHORT[1]!, MISSING, UUIDS[1]!, SHORT[2]!];

beforeAll(async () => {
  const events = [...SHORT, ...UUIDS].map((id, i) => ({
    id,
    amount: i % 2 === 0 ? 1649 : 5,
    currency: 'USD',
    userEmail: `customer-${i}@example.org`,
    eventDate: '2026-11-20T22:41:17Z',
  }));
  for (const body of events) expect((await cli.sb.call('POST', '/event', { body })).status).toBe(201);
});

let pty: Pty | undefined;
afterEach(async () => {
  await pty?.kill();
  pty = undefined;
});

/**
 * The rows of a list on `screen` between its header and the line matching `end`: every line a
 * row that starts with a whole id of `ids` (in that order), or (after an id on a line of its
 * own) the row's cells indented to the state column; each row's state, decision and amount in
 * the header's columns.
 */
function expectRowsLinedUp(screen: string, ids: readonly string[], end: RegExp, width: number): void {
  const lines = screen.split('\n');
  const top = lines.findIndex((l) => /^id +state +decision/.test(l));
  const last = lines.findIndex((l) => end.test(l));
  expect(top, screen).toBeGreaterThanOrEqual(0);
  expect(last, screen).toBeGreaterThan(top);
  const header = lines[top]!;
  const state = header.indexOf('state');
  const decision = header.indexOf('decision');
  const amountEnd = header.includes('amount') ? header.indexOf('amount') + 'amount'.length : -1;
  expect(amountEnd, `${width}: the amount column is shown\n${screen}`).toBeGreaterThan(0);

  const seen: string[] = [];
  for (let i = top + 1; i < last; i++) {
    const line = lines[i]!;
    const id = IDS.find((candidate) => line === candidate || line.startsWith(`${candidate}  `));
    expect(id, `${width}: line ${i} starts with no whole id:\n${screen}`).toBeDefined();
    seen.push(id!);
    let cells = line;
    if (line === id) {
      cells = lines[++i]!;
      expect(cells.slice(0, state).trim(), `${width}: the row below ${id}:\n${screen}`).toBe('');
    }
    if (id === MISSING) {
      expect(cells.indexOf('not found'), `${width}: ${id}\n${screen}`).toBe(state);
      continue;
    }
    expect(
      cells.indexOf('PENDING_REVIEW') === state || cells.indexOf('APPROVED') === state,
      `${width}: the state of ${id}\n${screen}`,
    ).toBe(true);
    expect(cells.slice(decision), `${width}: the decision of ${id}\n${screen}`).toMatch(/^(REVIEW|APPROVE) /);
    const amount = /\d[\d,]*\.\d\d USD/.exec(cells);
    expect(amount && amount.index + amount[0].length, `${width}: the amount of ${id}\n${screen}`).toBe(amountEnd);
  }
  expect(seen).toEqual(ids);
}

describe('show with many ids on a terminal', () => {
  it.each([60, 80, 100])(
    'at %i columns: ids whole, rows lined up under the header, nothing wider than the terminal',
    async (width) => {
      pty = await startOnTerminal(['show', ...IDS], { env: cli.env(), width, height: 30 });
      const { code, screen } = await pty.exited();
      expect(code, screen).toBe(4);
      expectRowsLinedUp(screen, IDS, /^\d+ found · 1 not found$/, width);
    },
  );

  it('at 80 columns, ids coming slowly through a pipe: each row before the next id comes, a longer id on a line of its own, the progress line while waiting, Ctrl-C at once', async () => {
    notOnWindows(ON_WINDOWS.fifo);
    const dir = await mkdtemp(join(tmpdir(), 'fraudctl-slow-ids-'));
    const fifo = join(dir, 'ids');
    await run('mkfifo', [fifo]);
    // Read and write: opening a FIFO so never waits for the other end (Linux), and the list ends only when the test says.
    const pipe = await open(fifo, 'r+');
    try {
      // 12 rows: the read-ahead would wait for 12 ids, and the progress line comes from the 13th row.
      pty = await startOnTerminal(['show', '--from', '-'], {
        env: cli.env(),
        width: 80,
        height: 12,
        stdinFile: fifo,
        timeoutMs: 5000,
      });
      const slow = [SHORT[0]!, UUIDS[0]!, SHORT[1]!];
      for (const id of slow) {
        await pipe.write(`${id}\n`);
        await pty.waitFor(
          new RegExp(`^${id}( .*)?\\n? +(APPROVED|PENDING_REVIEW) `, 'm'),
          `the row of ${id} before the next id comes`,
        );
      }
      const rest = [MISSING, UUIDS[1]!, SHORT[2]!, ...SHORT, ...SHORT, SHORT[0]!];
      await pipe.write(rest.map((id) => `${id}\n`).join(''));
      await pty.waitFor(
        /^13 ids · 12 found · 1 not found( · \d+\/s)?$/m,
        'the progress line after the 13th row, while the next id is awaited',
      );
      await pty.send('C-c');
      const { code, screen } = await pty.exited();
      expect(code, screen).toBe(130);
      expectRowsLinedUp(screen, [...slow, ...rest], /^interrupted after 13 ids: 12 found · 1 not found$/, 80);
      expect(screen).toMatch(/^error: interrupted after 13 ids$/m);
      expect(screen, 'the progress line is erased').not.toMatch(/\d ids · /);
    } finally {
      await pipe.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
