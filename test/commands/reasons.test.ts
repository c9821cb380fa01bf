import { describe, expect, it } from 'vitest';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';

/*
 * Issue 29, point 3, as processes against the sandbox: a profile's reason codes
 * (`config set reasons`, `config set require-reason`), shown by config get and list.
 */

const cli = useSandboxForCli();

async function profile(name: string): Promise<void> {
  const made = await cli.run(['config', 'set', 'base-url', cli.sb.url, '--profile', name]);
  expect(made.code, made.stderr).toBe(0);
}

describe('config set reasons', () => {
  it('keeps the codes (states in any case, kept canonical), shows them with config get (text and typed --json) and config list --json', async () => {
    await profile('codes');
    const set = await cli.run(['config', 'set', 'reasons', 'stolen-card, friendly-fraud:declined+fraud-confirmed,customer-confirmed:APPROVED', '--profile', 'codes']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toBe('profile "codes": reasons set\n');
    const text = await cli.run(['config', 'get', 'reasons', '--profile', 'codes']);
    expect(text.stdout).toBe('stolen-card,friendly-fraud:DECLINED+FRAUD_CONFIRMED,customer-confirmed:APPROVED\n');
    const json = await cli.run(['config', 'get', 'reasons', '--profile', 'codes', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { code: 'stolen-card', states: null },
      { code: 'friendly-fraud', states: ['DECLINED', 'FRAUD_CONFIRMED'] },
      { code: 'customer-confirmed', states: ['APPROVED'] },
    ]);
    expect((await cli.run(['config', 'get', 'require-reason', '--profile', 'codes', '--json'])).stdout).toBe('false\n');
    expect((await cli.run(['config', 'set', 'require-reason', 'true', '--profile', 'codes'])).code).toBe(0);
    expect((await cli.run(['config', 'get', 'require-reason', '--profile', 'codes'])).stdout).toBe('true\n');
    const list = JSON.parse((await cli.run(['config', 'list', '--json'])).stdout) as { name: string; reasons: unknown; requireReason: boolean }[];
    const listed = list.find((p) => p.name === 'codes');
    expect(listed?.requireReason).toBe(true);
    expect(listed?.reasons).toHaveLength(3);
    const table = await cli.run(['config', 'list']);
    expect(table.stdout).toContain('reasons: 3, required');
    const unset = await cli.run(['config', 'unset', 'reasons', '--profile', 'codes']);
    expect(unset.code, unset.stderr).toBe(0);
    expect((await cli.run(['config', 'get', 'reasons', '--profile', 'codes'])).stdout).toBe('(none)\n');
    expect((await cli.run(['config', 'get', 'reasons', '--profile', 'codes', '--json'])).stdout).toBe('[]\n');
  });

  it.each([
    ['Stolen-Card', 'reason code "Stolen-Card" must be 1 to 40 lower-case letters, digits and hyphens'],
    ['stolen card', 'reason code "stolen card" must be 1 to 40'],
    ['ok,' + 'x'.repeat(41), `reason code "${'x'.repeat(41)}" must be 1 to 40`],
    ['a,b,a', 'reason code "a" is given twice'],
    ['a,,b', 'reason code "" must be'],
    ['fraud:declnied', 'reason "fraud:declnied" names an unknown state "declnied": did you mean DECLINED?'],
    ['', 'needs at least one code'],
  ])('refuses %j: exit 2 naming the bad one, nothing changed', async (value, words) => {
    await profile('bad');
    expect((await cli.run(['config', 'set', 'reasons', 'kept', '--profile', 'bad'])).code).toBe(0);
    const set = await cli.run(['config', 'set', 'reasons', value, '--profile', 'bad']);
    expect(set.code).toBe(2);
    expect(set.stderr).toContain(words);
    expect(set.stderr).not.toMatch(/\n\s+at /);
    expect((await cli.run(['config', 'get', 'reasons', '--profile', 'bad'])).stdout).toBe('kept\n');
  });

  it('require-reason takes true or false only', async () => {
    await profile('req');
    const set = await cli.run(['config', 'set', 'require-reason', 'yes', '--profile', 'req']);
    expect(set.code).toBe(2);
    expect(set.stderr).toContain('require-reason must be true or false (got "yes")');
  });
});
