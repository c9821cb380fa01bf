import { sealLine } from '../../src/action-log/log-chain.js';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv } from '../support/cli.js';
import { runInProcess, useSandboxInProcess } from '../support/in-process-cli.js';
import { historyAt } from '../support/history-run.js';

/*
 * history's run(options, deps) against the sandbox on port 0 (and main in-process, for what the
 * composition decides: the service a run reads, a missing --log): `fraudctl history ID --log FILE…` tells
 * one event's story from logs written by real runs (two profiles with different analysts, a
 * one-event set-state and a bulk one, in two files), in time order, then its state now (one GET);
 * --json; an id in no log; a torn or garbage line named in a note; a `sending` with no outcome;
 * logs of another service; a file that cannot be read (exit 2, before the service is asked).
 */

const cli = useSandboxInProcess();
const history = (...args: Parameters<ReturnType<typeof historyAt>>) => historyAt(cli.sb.url)(...args);
let n = 0;
async function pending(prefix: string): Promise<string> {
  const id = `${prefix}-${++n}`;
  expect((await cli.sb.call('POST', '/event', { body: { id, amount: 1500, currency: 'EUR' } })).status).toBe(201);
  return id;
}
async function profile(name: string, analyst: string): Promise<void> {
  expect((await cli.run(['config', 'set', 'base-url', cli.sb.url, '--profile', name])).code).toBe(0);
  expect((await cli.run(['config', 'set', 'analyst', analyst, '--profile', name])).code).toBe(0);
}
async function ok(args: string[]): Promise<void> {
  const result = await cli.run(args);
  expect(result.code, result.stderr).toBe(0);
}

/** Two logs of a team's morning: Ann escalates the event alone (a.log), Bob declines it with another in one bulk run (b.log). */
async function teamLogs(): Promise<{ id: string; other: string; a: string; b: string }> {
  await profile('ann', 'Ann Lee');
  await profile('bob', 'Bob Ng');
  const id = await pending('hist');
  const other = await pending('other');
  const a = join(cli.dir, `a-${id}.log`);
  const b = join(cli.dir, `b-${id}.log`);
  await ok(['set-state', id, '--state', 'escalated', '--comments', 'call the bank', '--log', a, '--profile', 'ann']);
  await ok(['set-state', other, '--state', 'approved', '--comments', 'known customer', '--log', a, '--profile', 'ann']);
  await ok([
    'set-state',
    id,
    other,
    '--state',
    'declined',
    '--comments',
    'stolen card',
    '--replace-comment',
    '--yes',
    '--log',
    b,
    '--profile',
    'bob',
  ]);
  return { id, other, a, b };
}

const actionLines = (stdout: string) => stdout.split('\n').filter((l) => /^\d{4}-\d\d-\d\d /.test(l));

describe('history ID --log FILE…', () => {
  it('both analysts’ actions across two logs, in time order whatever the order of the files, each sending joined with its outcome; other events skipped; then the state and comment now', async () => {
    const { id, other, a, b } = await teamLogs();
    const host = hostname();
    for (const logs of [
      [b, a],
      [a, b],
    ]) {
      const result = await history(id, logs);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
      const lines = actionLines(result.stdout);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        new RegExp(`^\\S+ \\S+Z  Ann Lee \\(profile ann, host ${host}\\)  escalate  PENDING_REVIEW → ESCALATED  · ok$`),
      );
      expect(lines[1]).toMatch(
        new RegExp(`^\\S+ \\S+Z  Bob Ng \\(profile bob, host ${host}\\)  decline  ESCALATED → DECLINED  · ok$`),
      );
      expect(result.stdout).toContain('    comment: call the bank\n');
      expect(result.stdout).toContain('    comment: stolen card\n');
      expect(result.stdout).not.toContain(other);
      expect(result.stdout).not.toContain('known customer');
      expect(result.stdout.split('\n').at(-2)).toBe('now: DECLINED  · comment: stolen card');
    }
  });

  it('--json: one object {id, actions, now}; each action says who, what, from and to, the comment, the reason, the outcome and where it was read', async () => {
    const { id, a, b } = await teamLogs();
    const result = await history(id, [a, b], { json: true });
    expect(result.code, result.stderr).toBe(0);
    const value = JSON.parse(result.stdout) as {
      id: string;
      actions: Record<string, unknown>[];
      now: Record<string, unknown>;
    };
    expect(Object.keys(value)).toEqual(['id', 'actions', 'now']);
    expect(value.id).toBe(id);
    expect(value.now).toMatchObject({ id, state: 'DECLINED', comments: 'stolen card' });
    expect(value.actions).toEqual([
      expect.objectContaining({
        analyst: 'Ann Lee',
        profile: 'ann',
        host: hostname(),
        service: cli.sb.url,
        action: 'escalate',
        from: 'PENDING_REVIEW',
        to: 'ESCALATED',
        comments: 'call the bank',
        reason: null,
        outcome: 'ok',
        file: a,
        line: 1,
      }),
      expect.objectContaining({
        analyst: 'Bob Ng',
        profile: 'bob',
        action: 'decline',
        from: 'ESCALATED',
        to: 'DECLINED',
        comments: 'stolen card',
        outcome: 'ok',
        file: b,
      }),
    ]);
    for (const action of value.actions) {
      expect(action.requestId).toEqual(expect.any(String));
      expect(Date.parse(action.answeredAt as string)).toBeGreaterThanOrEqual(Date.parse(action.time as string));
    }
    expect(Date.parse(value.actions[1]!.time as string)).toBeGreaterThan(Date.parse(value.actions[0]!.time as string));
  });

  it('an id in no log: says so, and shows the event now (exit 0); an id the service does not have either: exit 4', async () => {
    const { a, b } = await teamLogs();
    const untouched = await pending('untouched');
    const result = await history(untouched, [a, b]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${untouched}: no action in ${a}, ${b}\nnow: PENDING_REVIEW  · comment: (none)\n`);
    const json = JSON.parse((await history(untouched, [a], { json: true })).stdout) as {
      actions: unknown[];
    };
    expect(json.actions).toEqual([]);
    expect((await history('no-such-event', [a])).code).toBe(4);
  });

  it('a torn line and a garbage line: named in one note (file:line) and skipped, the rest still read; a sending with no outcome after it is "outcome unknown"', async () => {
    const { id, a, b } = await teamLogs();
    const torn = join(cli.dir, `torn-${id}.log`);
    // Bob's bulk log as a crash leaves it: a garbage line, then Bob's sending line for the event again, then a line cut short.
    const bLines = readFileSync(b, 'utf8').split('\n').slice(0, -1);
    const sending = bLines.find((l) => l.includes(`"eventId":"${id}"`) && l.includes('"outcome":"sending"'))!;
    const later = sending
      .replace(/"time":"[^"]+"/, `"time":"${new Date(Date.now() + 60_000).toISOString()}"`)
      .replace(/"session":"[^"]+"/, '"session":"a-crashed-session"');
    writeFileSync(torn, `${bLines.join('\n')}\nnot json at all\n${later}\n`);
    appendFileSync(torn, bLines[0]!.slice(0, 40));
    const garbage = bLines.length + 1;
    // The garbage line and the copied line break the chain: named, and no story without --include-unverified.
    const refused = await history(id, [a, torn]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      `  ${torn}:${garbage} edited: line ${garbage} is not a JSON object: edited or cut\n`,
    );
    const result = await history(id, [a, torn], { includeUnverified: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `note: 1 line is what a crash leaves (cut short, or NUL bytes), skipped: ${torn}:${garbage + 2}\n`,
    );
    expect(result.stderr).toContain(`note: 1 line is not a log line (torn or edited), skipped: ${torn}:${garbage}\n`);
    const lines = actionLines(result.stdout);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain('Bob Ng (profile bob');
    expect(lines[2]).toContain(
      '  decline  ESCALATED → DECLINED  · outcome unknown (the session ended before the answer)  · UNVERIFIED (',
    );
  });

  it('logs of another service than this run’s: said in a note (the event now might not be the same)', async () => {
    const { id, a } = await teamLogs();
    // The same home, no service configured: this run reads the embedded sandbox, which has no such event.
    const env = cliEnv({
      HOME: cli.dir,
      XDG_CONFIG_HOME: join(cli.dir, 'config-embedded'),
      XDG_DATA_HOME: join(cli.dir, 'data'),
    });
    const result = await runInProcess(['history', id, '--log', a], env);
    expect(result.stderr).toContain(
      `note: the logs record actions on ${id} at ${cli.sb.url}; this run reads the embedded sandbox: the event now might not be the same event\n`,
    );
    expect(result.code).toBe(4);
  });

  it('a log that cannot be read (missing, a directory): exit 2 naming it, before the service is asked (none listens here)', async () => {
    const { id, a } = await teamLogs();
    const nowhere = historyAt('http://127.0.0.1:9');
    const missing = await nowhere(id, [a, join(cli.dir, 'nope.log')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `error: cannot read the log ${join(cli.dir, 'nope.log')}: no such file\ngive --log the files that review --log and set-state --log wrote\n`,
    );
    const directory = await nowhere(id, [cli.dir]);
    expect(directory.code).toBe(2);
    expect(directory.stderr).toContain(`cannot read the log ${cli.dir}: it is a directory`);
    const none = await cli.run(['history', id]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--log <files...>');
  });

  it('strings from a log reach the terminal escaped (terminalSafe)', async () => {
    const { id, a } = await teamLogs();
    const hostile = join(cli.dir, `hostile-${id}.log`);
    // A line as a hostile writer would make it: sealed again after the edit, so it verifies and is read.
    const first = readFileSync(a, 'utf8')
      .split('\n')[0]!
      .replace(/,"hash":"[0-9a-f]{64}"\}$/, '}');
    const line = sealLine(
      first.replace('"comments":"call the bank"', '"comments":"call \\u001b[31mthe bank\\u001b]0;pwned\\u0007"'),
    );
    writeFileSync(hostile, `${line}\n`);
    const result = await history(id, [hostile]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).not.toContain('\u0007');
    expect(result.stdout).toContain('comment: call ');
  });
});

describe('fraudctl history: argv → exit code', () => {
  it('in-process through main: --log repeated and several after one, the same story as run tells; a 404 exit 4', async () => {
    const { id, a, b } = await teamLogs();
    const told = await history(id, [b, a]);
    const result = await cli.run(['history', id, '--log', b, '--log', a]);
    expect(result).toEqual({ code: 0, stdout: told.stdout, stderr: '' });
    expect((await cli.run(['history', id, '--log', b, a])).stdout).toBe(told.stdout);
    const gone = await cli.run(['history', 'no-such-event', '--log', a]);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toMatch(/^error: no event "no-such-event"/);
  });
});
