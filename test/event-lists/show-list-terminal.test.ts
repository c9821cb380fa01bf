import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { startOnTerminal, type Pty } from '../support/pty.js';

/*
 * `show` with many ids on a real terminal (tmux) 60, 80 and 100 columns wide, UUIDs and short ids
 * mixed: no id is cut, no line is wider than the terminal (tmux would wrap it onto a line of its
 * own), and every row's cells start in the header's columns.
 */

const cli = useSandboxForCli();
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

describe('show with many ids on a terminal', () => {
  it.each([60, 80, 100])('at %i columns: ids whole, rows lined up under the header, nothing wider than the terminal', async (width) => {
    pty = await startOnTerminal(['show', ...IDS], { env: cli.env(), width, height: 30 });
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(4);
    const lines = screen.split('\n');
    const top = lines.findIndex((l) => /^id +state +decision/.test(l));
    const end = lines.findIndex((l) => /^\d+ found · 1 not found$/.test(l));
    expect(top, screen).toBeGreaterThanOrEqual(0);
    expect(end, screen).toBeGreaterThan(top);
    const header = lines[top]!;
    const state = header.indexOf('state');
    const decision = header.indexOf('decision');
    const amountEnd = header.includes('amount') ? header.indexOf('amount') + 'amount'.length : -1;
    expect(amountEnd, `${width}: the amount column is shown\n${screen}`).toBeGreaterThan(0);

    // Every line is a row that starts with a whole id, or (after an id on a line of its own) the row's cells indented to the state column.
    const seen: string[] = [];
    for (let i = top + 1; i < end; i++) {
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
      expect(cells.indexOf('PENDING_REVIEW') === state || cells.indexOf('APPROVED') === state, `${width}: the state of ${id}\n${screen}`).toBe(true);
      expect(cells.slice(decision), `${width}: the decision of ${id}\n${screen}`).toMatch(/^(REVIEW|APPROVE) /);
      const amount = /\d[\d,]*\.\d\d USD/.exec(cells);
      expect(amount && amount.index + amount[0].length, `${width}: the amount of ${id}\n${screen}`).toBe(amountEnd);
    }
    expect(seen).toEqual(IDS);
  });
});
