import { beforeAll, describe, expect, it } from 'vitest';
import { TERMINAL_CONTROLS } from '../support/cli-against-sandbox.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { useServer } from '../support/listen.js';
import { clientFor, printingDeps, quietContext, ran } from '../support/room-deps.js';
import { run } from '../../src/commands/show/run.js';
import type { ShowDeps } from '../../src/commands/show/deps.js';

const cli = useSandboxInProcess();

beforeAll(async () => {
  const decline = (await import('../../examples/decline.json', { with: { type: 'json' } })).default;
  expect((await cli.sb.call('POST', '/event', { body: decline })).status).toBe(201);
});

describe('fraudctl show', () => {
  it('shows the summary grouped into sections, with nulls as dashes and amounts with currencies, then the items', async () => {
    const result = await cli.run(['show', 'ord-1003']);
    expect(result.code).toBe(0);
    const out = result.stdout;
    for (const heading of ['Decision', 'Amount', 'User', 'Shipping', 'Billing', 'Items (2)'])
      expect(out).toContain(heading);
    expect(out).toMatch(/state\s+│ DECLINED/);
    expect(out).toMatch(/amount\s+│ 2,400\.00 GBP/);
    expect(out).toMatch(/in base currency\s+│ 2,808\.00 EUR/);
    expect(out).toMatch(/region\s+│ –/);
    expect(out).toMatch(
      /gc-500 \/ Gift card 500 │\s+4 │\s+500\.00 GBP │\s+585\.00 EUR │ CardHub Ltd \(GB\) │ gift_cards/,
    );
  });

  it('--json prints the same value the service returned', async () => {
    const result = await cli.run(['show', 'ord-1003', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual((await cli.sb.call('GET', '/event/ord-1003')).json);
  });

  it('exits 4 for an event that does not exist', async () => {
    const print = printingDeps();
    const deps: ShowDeps = {
      ...print,
      streams: quietContext(),
      client: clientFor(cli.sb.url),
      waitForShutdown: () => new Promise(() => {}),
      clock: { now: () => 0, sleep: () => Promise.reject(new Error('show ID never waits')) },
    };
    const result = await ran(run({ form: 'one', eventId: 'no-such-event', json: false, noColor: false }, deps), print);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(
      /^error: no event "no-such-event" \(404 NOT_FOUND: EVENT_NOT_FOUND, request [0-9a-f-]+\)$/m,
    );
    expect(result.stdout).toBe('');
  });

  it('neutralises escape sequences and bidi overrides a merchant put in a name, in tables and in --json', async () => {
    const hostile = 'evil\u001b]0;pwned\u0007\u001b[2J\u202etxt.exe\u0085';
    const body = { id: 'hostile-1', amount: 5, currency: 'EUR', userName: hostile, shippingCity: 'a\rb' };
    expect((await cli.sb.call('POST', '/event', { body })).status).toBe(201);
    const table = await cli.run(['show', 'hostile-1']);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(table.stdout).toContain('evil\\x1b]0;pwned');
    const json = await cli.run(['show', 'hostile-1', '--json']);
    expect(json.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect((JSON.parse(json.stdout) as { userName: string }).userName).toBe(hostile);
  });
});

describe('fraudctl show against a service that fills the gaps differently', () => {
  const summary = {
    id: 'other-1',
    totalScore: 12,
    state: 'ON_HOLD_BY_PARTNER',
    eventDate: null,
    amount: 10.5,
    currency: null,
    userName: 'x'.repeat(100 * 1024),
    allowlistMatch: false,
    denylistMatch: false,
    riskTier: 'gold',
    items: [{ itemQuantity: 1, itemPrice: 3, itemPriceInBaseCurrency: 3, warehouse: 'B7' }],
  };
  const server = useServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(summary));
  });

  it('still renders: unknown state and fields shown, missing ones dashed, a 100 KB name cut short', async () => {
    const result = await cli.run(['show', 'other-1', '--base-url', server.url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('ON_HOLD_BY_PARTNER');
    expect(result.stdout).toMatch(/riskTier\s+│ gold/);
    expect(result.stdout).toContain('warehouse=B7');
    expect(result.stdout).toMatch(/… \(\+[\d,]+ chars\)/);
    expect(result.stdout.length).toBeLessThan(20_000);
    const json = await cli.run(['show', 'other-1', '--base-url', server.url, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(summary);
  });
});
