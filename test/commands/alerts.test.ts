import { describe, expect, it } from 'vitest';
import { useSandboxInProcess } from '../support/in-process-cli.js';

const cli = useSandboxInProcess();

describe('fraudctl alerts', () => {
  it('shows decision and score, then alerts sorted by score with severity and description', async () => {
    const decline = (await import('../../examples/decline.json', { with: { type: 'json' } })).default;
    await cli.sb.call('POST', '/event', { body: decline });
    const result = await cli.run(['alerts', 'ord-1003']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toContain('DECLINE  score 100/100');
    const order = ['disposable_email', 'high_amount', 'country_mismatch', 'new_account', 'risky_category'].map((id) =>
      lines.findIndex((l) => l.includes(id)),
    );
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(result.stdout).toMatch(
      /disposable_email · Disposable email domain\s+│ HIGH\s+│\s+35 │ email domain mailinator.com/,
    );
  });

  it('--json prints the service body', async () => {
    const result = await cli.run(['alerts', 'ord-1003', '--json']);
    expect(JSON.parse(result.stdout)).toEqual((await cli.sb.call('GET', '/event/ord-1003/risk-assessment')).json);
  });

  it('exits 4 for an unknown event', async () => {
    expect((await cli.runProcess(['alerts', 'nope'])).code).toBe(4);
  });
});
