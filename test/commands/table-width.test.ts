import { beforeAll, describe, expect, it } from 'vitest';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { onTerminal } from '../support/script-terminal.js';
import { reviewExample } from '../support/event-fixtures.js';
import { withoutEscapes } from '../support/terminal-controls.js';

/*
 * Tables on an 80-column terminal fit in 80 columns (the long free-text columns wrap first);
 * off a terminal, nothing is cut. Run in a real pseudo-terminal of that size.
 */

const cli = useSandboxForCli();
const ID = 'wide-1';

beforeAll(async () => {
  const items = [
    {
      itemId: 'sku-with-a-rather-long-identifier-0001',
      itemName: 'A laptop with a name long enough to need wrapping on any terminal',
      itemQuantity: 1,
      itemPrice: 1649,
      itemCategory: 'electronics',
      itemSeller: 'Nordic Tech AB',
      itemSellerCountry: 'SE',
    },
  ];
  expect((await cli.sb.call('POST', '/event', { body: reviewExample(ID, { items }) })).status).toBe(201);
});

const visible = (screen: string) =>
  withoutEscapes(screen)
    .split(/\r?\n/)
    .map((l) => l.replace(/\r/g, ''));
const widest = (lines: string[]) => Math.max(...lines.map((l) => [...l].length));

describe('tables and the terminal width', () => {
  it.each([
    ['alerts', ['alerts', ID], 'billing country BE is not shipping country NL'],
    ['show', ['show', ID], 'Nordic Tech AB (SE)'],
    ['config list', ['config', 'list'], 'embedded sandbox'],
  ])('%s on an 80-column terminal fits in 80 columns and keeps every word', async (_name, args, words) => {
    const { code, screen } = await onTerminal(args, [], cli.env(), { columns: 80, rows: 24 });
    expect(code, screen).toBe(0);
    const lines = visible(screen);
    expect(widest(lines), screen).toBeLessThanOrEqual(80);
    // Wrapped, not lost: every word of the long cell is on the screen.
    const text = lines.join(' ');
    for (const word of words.split(' ')) expect(text).toContain(word);
  });

  it.each([60, 80, 100])(
    'show on a %i-column terminal: the items table keeps amounts, the item id and the quantity whole; heads and free text give way',
    async (columns) => {
      const { code, screen } = await onTerminal(['show', ID], [], cli.env(), { columns, rows: 24 });
      expect(code, screen).toBe(0);
      const lines = visible(screen);
      expect(widest(lines), screen).toBeLessThanOrEqual(columns);
      const items = lines.slice(lines.findIndex((l) => l.startsWith('Items (1)')));
      const table = items.join('\n');
      // Amounts each on one line, whole.
      expect(table, table).toContain('1,649.00 USD');
      expect(table, table).toContain('1,517.08 EUR');
      expect(table, table).not.toContain('…');
      // The item id whole: on one line when the column has the room, else broken over lines, never cut.
      const firstColumn = items.map((l) => l.split('│')[1] ?? '').join('');
      expect(firstColumn.replace(/\s+/g, '')).toContain('sku-with-a-rather-long-identifier-0001');
      // A head gives way before the figures: `quantity` becomes `qty` rather than being cut.
      expect(table).toMatch(/│ (quantity|qty) │/);
      // Every word of the free text is still there, wrapped or under the item.
      for (const word of ['Nordic', 'Tech', 'AB', '(SE)', 'electronics', 'wrapping']) expect(table).toContain(word);
    },
  );

  it('off a terminal nothing is cut: the same tables keep their full width', async () => {
    const result = await cli.run(['alerts', ID]);
    expect(result.code).toBe(0);
    expect(widest(result.stdout.split('\n'))).toBeGreaterThan(100);
    expect(result.stdout).toContain('billing country BE is not shipping country NL');
  });
});
