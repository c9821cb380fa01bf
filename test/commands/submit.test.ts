import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useSandboxInProcess } from '../support/in-process-cli.js';

const cli = useSandboxInProcess();
const examplePath = (name: string) => `examples/${name}.json`;
const example = (name: string) => JSON.parse(readFileSync(examplePath(name), 'utf8')) as Record<string, unknown>;

describe('fraudctl submit', () => {
  it.each([
    ['approve', 'APPROVE  score 0/100', []],
    ['review', 'REVIEW  score 50/100', ['high_amount', 'country_mismatch']],
    ['decline', 'DECLINE  score 100/100', ['high_amount', 'disposable_email', 'new_account']],
  ])('shows the decision for examples/%s.json with its score and rule matches', async (name, headline, rules) => {
    const result = await cli.run(['submit', examplePath(name)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toContain(headline);
    for (const rule of rules) expect(result.stdout).toContain(rule);
    if (rules.length === 0) expect(result.stdout).toContain('no rule matched');
  });

  it('--json prints exactly the service body', async () => {
    const payload = { ...example('review'), id: 'json-submit-1' };
    const result = await cli.run(['submit', '-', '--json'], { input: JSON.stringify(payload) });
    expect(result.code).toBe(0);
    const replay = await cli.sb.call('POST', '/event', { body: payload });
    expect(replay.status).toBe(200);
    expect(JSON.parse(result.stdout)).toEqual(replay.json);
  });

  it('an event the service already had (200, not 201): says so and shows its state now, in tables and in --json', async () => {
    const payload = JSON.stringify({ ...example('review'), id: 'resubmit-1' });
    expect((await cli.run(['submit', '-'], { input: payload })).stdout).toMatch(/state PENDING_REVIEW/);
    expect(
      (await cli.sb.call('PATCH', '/event/resubmit-1/state', { body: { state: 'APPROVED', comments: 'verified' } }))
        .status,
    ).toBe(200);
    const again = await cli.run(['submit', '-'], { input: payload });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe(
      'event resubmit-1 already existed: the service answered 200 with its first decision; its state now is APPROVED\n',
    );
    expect(again.stdout.split('\n')[0]).toBe('REVIEW  score 50/100  event resubmit-1  state APPROVED');
    const json = await cli.run(['submit', '-', '--json'], { input: payload });
    expect(JSON.parse(json.stdout)).toMatchObject({
      id: 'resubmit-1',
      state: 'PENDING_REVIEW',
      alreadyExisted: true,
      stateNow: 'APPROVED',
    });
    // A first screening keeps the service's body exactly (no added field).
    const first = await cli.run(['submit', '-', '--json'], {
      input: JSON.stringify({ ...example('review'), id: 'resubmit-2' }),
    });
    expect(JSON.parse(first.stdout)).not.toHaveProperty('alreadyExisted');
  });

  it('one event nested 20,000 levels deep is sent as given and answered by the service (it overflowed the stack making it again)', async () => {
    const deep = `{"id":"deep-1","amount":10,"currency":"EUR","x":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`;
    const result = await cli.run(['submit', '-'], { input: deep });
    expect(result.stderr).not.toContain('Maximum call stack');
    // The sandbox refuses the field it does not know: the service's answer, exit 5.
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/422 VALIDATION_ERROR: x:UNKNOWN_FIELD/);
  });

  it('reads the event from stdin with -', async () => {
    const result = await cli.run(['submit', '-'], {
      input: JSON.stringify({ id: 'stdin-1', amount: 12, currency: 'EUR' }),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('APPROVE');
    expect((await cli.sb.call('GET', '/event/stdin-1')).status).toBe(200);
  });

  it.each([
    [
      ['submit', 'no-such-file.json'],
      undefined,
      /^error: cannot read the file of events no-such-file.json: no such file$/m,
    ],
    [['submit', '-'], '{"amount": 1,', /^error: stdin is not valid JSON/m],
    [['submit', '-'], '42', /^error: stdin must hold one JSON object \(an event\), not number/m],
    [['submit', '-'], '', /^error: stdin is empty/m],
    [['submit'], undefined, /missing required argument 'file'/],
  ])('exits 2 with one clear line for bad input %j', async (args, input, message) => {
    const result = await cli.run(args, input !== undefined ? { input } : {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 5 naming each field the service rejected', async () => {
    const result = await cli.run(['submit', '-'], {
      input: JSON.stringify({ currency: 'EUR', userIp: 'nope', userEmial: 'x' }),
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/422 VALIDATION_ERROR: .*amount:REQUIRED/);
    expect(result.stderr).toContain('userIp:INVALID_FORMAT');
    expect(result.stderr).toContain('userEmial:UNKNOWN_FIELD');
    expect(result.stderr).toMatch(/request [0-9a-f-]{36}/);
  });

  it('exits 5 on an id conflict and says how to look at the stored event', async () => {
    await cli.run(['submit', '-'], { input: JSON.stringify({ id: 'conflict-1', amount: 1, currency: 'EUR' }) });
    const result = await cli.run(['submit', '-'], {
      input: JSON.stringify({ id: 'conflict-1', amount: 2, currency: 'EUR' }),
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('event "conflict-1" already exists with a different payload');
    expect(result.stderr).toContain('fraudctl show conflict-1');
  });
});
