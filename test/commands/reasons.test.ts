import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';

/*
 * In-process (main, as the CLI runs it) against the sandbox: a profile's reason codes
 * (`config set reasons`, `config set require-reason`), shown by config get and list; and
 * `set-state --reason CODE`, one event and many: the code at the head of the comment the service
 * keeps, in the log's `reason`, refused (exit 2, nothing sent) when unknown or not for the state,
 * required by the profile, and bound to a results file for --resume.
 */

const cli = useSandboxInProcess();

async function profile(name: string, reasons?: string): Promise<void> {
  const made = await cli.run(['config', 'set', 'base-url', cli.sb.url, '--profile', name]);
  expect(made.code, made.stderr).toBe(0);
  if (reasons !== undefined) {
    const set = await cli.run(['config', 'set', 'reasons', reasons, '--profile', name]);
    expect(set.code, set.stderr).toBe(0);
  }
}

let n = 0;
async function pending(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `why-${++n}`);
  for (const id of ids)
    expect((await cli.sb.call('POST', '/event', { body: { id, amount: 1500, currency: 'EUR' } })).status).toBe(201);
  return ids;
}
const eventOf = async (id: string) => (await cli.sb.call('GET', `/event/${id}`)).json as EventSummary;
const logLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const CODES = 'stolen-card,friendly-fraud:DECLINED+FRAUD_CONFIRMED,customer-confirmed:APPROVED';

describe('config set reasons', () => {
  it('keeps the codes (states in any case, kept canonical), shows them with config get (text and typed --json) and config list --json', async () => {
    await profile('codes');
    const set = await cli.run([
      'config',
      'set',
      'reasons',
      'stolen-card, friendly-fraud:declined+fraud-confirmed,customer-confirmed:APPROVED',
      '--profile',
      'codes',
    ]);
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
    const list = JSON.parse((await cli.run(['config', 'list', '--json'])).stdout) as {
      name: string;
      reasons: unknown;
      requireReason: boolean;
    }[];
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

describe('set-state --reason, one event', () => {
  it('a known code: the comment the service keeps starts with "[reason: CODE] ", the log lines carry reason', async () => {
    await profile('team', CODES);
    const [id] = await pending(1);
    const log = join(cli.dir, 'one.log');
    const result = await cli.run([
      'set-state',
      id!,
      '--state',
      'declined',
      '--reason',
      'stolen-card',
      '--comments',
      'card reported',
      '--log',
      log,
      '--profile',
      'team',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const event = await eventOf(id!);
    expect(event.state).toBe('DECLINED');
    expect(event.comments).toBe('[reason: stolen-card] card reported');
    expect(logLines(log).map((l) => [l.outcome, l.reason, l.comments])).toEqual([
      ['sending', 'stolen-card', '[reason: stolen-card] card reported'],
      ['ok', 'stolen-card', '[reason: stolen-card] card reported'],
    ]);
  });

  it('a code alone, without --comments: the comment is "[reason: CODE]"; a code for the state asked (customer-confirmed is for APPROVED)', async () => {
    await profile('team', CODES);
    const [id] = await pending(1);
    const result = await cli.run([
      'set-state',
      id!,
      '--state',
      'approved',
      '--reason',
      'customer-confirmed',
      '--profile',
      'team',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect((await eventOf(id!)).comments).toBe('[reason: customer-confirmed]');
  });

  it('an unknown code: exit 2 with did-you-mean, nothing sent, no log written', async () => {
    await profile('team', CODES);
    const [id] = await pending(1);
    const log = join(cli.dir, 'unknown.log');
    const result = await cli.run([
      'set-state',
      id!,
      '--state',
      'declined',
      '--reason',
      'stolen-crad',
      '--comments',
      'x',
      '--log',
      log,
      '--profile',
      'team',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown reason "stolen-crad": did you mean "stolen-card"? (nothing was sent)');
    expect(result.stderr).toContain('the codes of profile "team": stolen-card, friendly-fraud, customer-confirmed');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const event = await eventOf(id!);
    expect([event.state, event.comments ?? null]).toEqual(['PENDING_REVIEW', null]);
    expect(existsSync(log)).toBe(false);
  });

  it('with 1,000 codes an unknown one names the nearest few and the command that lists them all, which works as written', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => `code-${String(i).padStart(4, '0')}`);
    await profile('big', [...many, 'stolen-card'].join(','));
    const [id] = await pending(1);
    const result = await cli.run([
      'set-state',
      id!,
      '--state',
      'declined',
      '--reason',
      'stolen-crad',
      '--profile',
      'big',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown reason "stolen-crad": did you mean "stolen-card"? (nothing was sent)');
    const hint =
      /^the codes of profile "big": (.*) \(the nearest 5 of 1,001\); all of them: fraudctl (config get reasons --profile big)$/m.exec(
        result.stderr,
      );
    expect(hint, result.stderr).not.toBeNull();
    expect(hint![1]!.split(', ')).toHaveLength(5);
    expect(hint![1]!.split(', ')[0]).toBe('stolen-card');
    expect(result.stderr.length).toBeLessThan(500);
    const listed = await cli.run(hint![2]!.split(' '));
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('code-0999');
    expect((await eventOf(id!)).state).toBe('PENDING_REVIEW');
  });

  it('a profile without codes: exit 2, nothing sent, and the two commands of the hint work as written', async () => {
    await profile('bare');
    const [id] = await pending(1);
    const result = await cli.run([
      'set-state',
      id!,
      '--state',
      'declined',
      '--reason',
      'stolen-card',
      '--comments',
      'x',
      '--profile',
      'bare',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--reason: profile "bare" has no reason codes: nothing was sent');
    const hint =
      /see the profile's codes: fraudctl (config get reasons --profile bare); how to add one: fraudctl (help config)\n/.exec(
        result.stderr,
      );
    expect(hint, result.stderr).not.toBeNull();
    for (const command of [hint![1]!, hint![2]!]) {
      const ran = await cli.run(command.split(' '));
      expect(ran.code, `${command}: ${ran.stderr}`).toBe(0);
    }
    expect((await eventOf(id!)).state).toBe('PENDING_REVIEW');
  });

  it('a code that is not for the state asked: exit 2 naming the codes that are, nothing sent', async () => {
    await profile('team', CODES);
    const [id] = await pending(1);
    const result = await cli.run([
      'set-state',
      id!,
      '--state',
      'approved',
      '--reason',
      'friendly-fraud',
      '--profile',
      'team',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'reason "friendly-fraud" is for DECLINED, FRAUD_CONFIRMED, not APPROVED: nothing was sent',
    );
    expect(result.stderr).toContain('the codes for APPROVED: stolen-card, customer-confirmed');
    expect((await eventOf(id!)).state).toBe('PENDING_REVIEW');
  });

  it('a profile with require-reason: a change of state without --reason is exit 2 naming the codes for it; with one it goes through', async () => {
    await profile('strict', CODES);
    expect((await cli.run(['config', 'set', 'require-reason', 'true', '--profile', 'strict'])).code).toBe(0);
    const [id] = await pending(1);
    const without = await cli.run(['set-state', id!, '--state', 'declined', '--comments', 'x', '--profile', 'strict']);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain(
      'profile "strict" requires a reason for a change of state: add --reason CODE (for DECLINED: stolen-card, friendly-fraud); nothing was sent',
    );
    expect((await eventOf(id!)).state).toBe('PENDING_REVIEW');
    const withOne = await cli.run([
      'set-state',
      id!,
      '--state',
      'declined',
      '--reason',
      'friendly-fraud',
      '--profile',
      'strict',
    ]);
    expect(withOne.code, withOne.stderr).toBe(0);
    expect((await eventOf(id!)).comments).toBe('[reason: friendly-fraud]');
  });

  it('the comment limit counts the reason too: a 4,000-character comment with a reason is refused, nothing sent', async () => {
    await profile('team', CODES);
    const [id] = await pending(1);
    const result = await cli.run([
      'set-state',
      id!,
      '--state',
      'declined',
      '--reason',
      'stolen-card',
      '--comments',
      'x'.repeat(4000),
      '--profile',
      'team',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the comment is 4,022 characters long; the service takes at most 4,000');
    expect((await eventOf(id!)).state).toBe('PENDING_REVIEW');
  });
});

describe('set-state --reason, many events', () => {
  it('each event gets the reason at the head of its comment and in the log; a --resume with another reason is refused, one without takes it from the file', async () => {
    await profile('team', CODES);
    const ids = await pending(2);
    const out = join(cli.dir, 'bulk.jsonl');
    const log = join(cli.dir, 'bulk.log');
    const first = await cli.run([
      'set-state',
      ...ids,
      '--state',
      'declined',
      '--reason',
      'stolen-card',
      '--comments',
      'ring',
      '--out',
      out,
      '--log',
      log,
      '--yes',
      '--profile',
      'team',
    ]);
    expect(first.code, first.stderr).toBe(0);
    for (const id of ids) expect((await eventOf(id)).comments).toBe('[reason: stolen-card] ring');
    expect(new Set(logLines(log).map((l) => l.reason))).toEqual(new Set(['stolen-card']));
    const other = await cli.run([
      'set-state',
      ...ids,
      '--state',
      'declined',
      '--reason',
      'friendly-fraud',
      '--comments',
      'ring',
      '--out',
      out,
      '--resume',
      '--yes',
      '--profile',
      'team',
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('was written with --reason "stolen-card", this run has --reason "friendly-fraud"');
    const same = await cli.run(['set-state', ...ids, '--out', out, '--resume', '--yes', '--profile', 'team']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain('note: --reason "stolen-card" taken from');
  });

  it('a result line names the code under its own name, reasonCode; reason stays why a line was not changed; help results defines both', async () => {
    await profile('team', CODES);
    const ids = await pending(2);
    await cli.sb.call('PATCH', `/event/${ids[1]!}/state`, { body: { state: 'DECLINED' } });
    const out = join(cli.dir, 'codes.jsonl');
    const run = await cli.run([
      'set-state',
      ...ids,
      '--state',
      'declined',
      '--reason',
      'stolen-card',
      '--out',
      out,
      '--yes',
      '--profile',
      'team',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const results = logLines(out).filter((l) => l.fraudctl === undefined);
    expect(results.map((l) => [l.id, l.outcome, l.reason, l.reasonCode])).toEqual(
      expect.arrayContaining([
        [ids[0], 'CHANGED', null, 'stolen-card'],
        [ids[1], 'SKIPPED', 'already DECLINED', 'stolen-card'],
      ]),
    );
    const json = await cli.run([
      'set-state',
      ids[0]!,
      'none-such',
      '--state',
      'approved',
      '--json',
      '--yes',
      '--profile',
      'team',
    ]);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { reasonCode: unknown }).reasonCode),
    ).toEqual([null, null]);
    const help = await cli.run(['help', 'results']);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(
      /reason is why the line was not changed.*reasonCode is the run's --reason code/,
    );
  });

  it('an unknown code is refused before anything is read or sent', async () => {
    await profile('team', CODES);
    const ids = await pending(2);
    const result = await cli.run([
      'set-state',
      ...ids,
      '--state',
      'declined',
      '--reason',
      'stolen',
      '--yes',
      '--profile',
      'team',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown reason "stolen"');
    for (const id of ids) expect((await eventOf(id)).state).toBe('PENDING_REVIEW');
  });
});
