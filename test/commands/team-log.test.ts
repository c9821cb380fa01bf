import { readFileSync, writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { GENESIS, lineHash } from '../../src/action-log/log-chain.js';
import { startCli } from '../support/cli.js';
import { onTerminal } from '../support/script-terminal.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { DEMO_KEY } from '../support/sandbox.js';
import pkg from '../../package.json' with { type: 'json' };

/*
 * As processes against the sandbox: every --log line says who (the
 * profile's `analyst`, else the OS user), where (host, profile, service URL, never the key),
 * which build and session, and carries the hash of the line before; `set-state ID --log` logs one
 * change without turning into a bulk change; two analysts append to one log at once and its chain
 * stays whole; `fraudctl log verify` says so, and names the first line edited, removed, swapped
 * or cut.
 */

const cli = useSandboxForCli();
let n = 0;
async function pending(prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `${prefix}-${++n}`);
  for (const id of ids)
    expect((await cli.sb.call('POST', '/event', { body: { id, amount: 1500, currency: 'EUR' } })).status).toBe(201);
  return ids;
}
const stateOf = async (id: string) => ((await cli.sb.call('GET', `/event/${id}`)).json as EventSummary).state;
const rawLines = (path: string) => readFileSync(path, 'utf8').split('\n').slice(0, -1);
const parsed = (path: string) => rawLines(path).map((l) => JSON.parse(l) as Record<string, unknown>);
/** A line's own hash as it must be: the SHA-256 of its text without its last member, `"hash"` (log-chain.ts). */
const ownHash = (line: string) => lineHash(Buffer.from(`${line.slice(0, line.lastIndexOf(',"hash":"'))}}`));
const lineCount = (path: string) => {
  try {
    return rawLines(path).length;
  } catch {
    return 0;
  }
};

async function profile(name: string, analyst?: string): Promise<void> {
  expect((await cli.run(['config', 'set', 'base-url', cli.sb.url, '--profile', name])).code).toBe(0);
  if (analyst !== undefined) {
    const set = await cli.run(['config', 'set', 'analyst', analyst, '--profile', name]);
    expect(set.code, set.stderr).toBe(0);
  }
}

describe('set-state ID --log: one change, logged as many are', () => {
  it('off a terminal, without --yes: the change is made as one event’s (no plan, no bulk summary); a sending line and an ok line, each with every field; no key anywhere', async () => {
    await profile('ann', 'Ann Lee');
    const [id] = await pending('one', 1);
    const log = join(cli.dir, 'one.log');
    const result = await cli.run([
      'set-state',
      id!,
      '--state',
      'declined',
      '--comments',
      'stolen card',
      '--log',
      log,
      '--profile',
      'ann',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${id}  PENDING_REVIEW → DECLINED  comment recorded\n`);
    expect(result.stderr).toBe('');
    expect(await stateOf(id!)).toBe('DECLINED');
    const lines = parsed(log);
    expect(lines).toHaveLength(2);
    const common = {
      analyst: 'Ann Lee',
      host: hostname(),
      profile: 'ann',
      service: cli.sb.url,
      version: pkg.version,
      eventId: id,
      action: 'decline',
      from: 'PENDING_REVIEW',
      to: 'DECLINED',
      comments: 'stolen card',
      reason: null,
    };
    const hash = (i: number) => ownHash(rawLines(log)[i]!);
    expect(lines[0]).toEqual({
      ...common,
      time: expect.any(String),
      session: expect.any(String),
      requestId: null,
      outcome: 'sending',
      status: null,
      line: 1,
      prev: GENESIS,
      hash: hash(0),
    });
    expect(lines[1]).toEqual({
      ...common,
      time: expect.any(String),
      session: lines[0]!.session,
      requestId: expect.any(String),
      outcome: 'ok',
      status: null,
      line: 2,
      prev: lineHash(Buffer.from(rawLines(log)[0]!)),
      hash: hash(1),
    });
    expect(rawLines(log).map((l) => l.endsWith(`,"hash":"${ownHash(l)}"}`))).toEqual([true, true]);
    expect(lines[0]!.session).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const text of [readFileSync(log, 'utf8'), result.stdout, result.stderr]) expect(text).not.toContain(DEMO_KEY);
  });

  it('a profile without an analyst names the OS user; each run is a session of its own; a refused change is logged as refused', async () => {
    await profile('plain');
    const [id] = await pending('osuser', 1);
    const log = join(cli.dir, 'osuser.log');
    const first = await cli.run(['set-state', id!, '--state', 'approved', '--log', log, '--profile', 'plain']);
    expect(first.code, first.stderr).toBe(0);
    // APPROVED → IN_REVIEW is not a transition the sandbox allows: sent with --force-state, refused.
    const refused = await cli.run([
      'set-state',
      id!,
      '--state',
      'IN_REVIEW',
      '--force-state',
      '--log',
      log,
      '--profile',
      'plain',
    ]);
    expect(refused.code).toBe(5);
    const lines = parsed(log);
    expect(lines.map((l) => [l.analyst, l.outcome, l.line])).toEqual([
      [userInfo().username, 'sending', 1],
      [userInfo().username, 'ok', 2],
      [userInfo().username, 'sending', 3],
      [userInfo().username, 'refused', 4],
    ]);
    expect(lines[3]).toMatchObject({ action: 'set-state', status: 422, message: expect.any(String) });
    expect(lines[0]!.session).toBe(lines[1]!.session);
    expect(lines[2]!.session).not.toBe(lines[0]!.session);
    const verify = await cli.run(['log', 'verify', log]);
    expect(verify.code, verify.stderr).toBe(0);
  });

  it('on a terminal: asked and confirmed as one event, logged the same way (no plan, no bulk question)', async () => {
    const [id] = await pending('tty', 1);
    const log = join(cli.dir, 'tty.log');
    const { code, screen } = await onTerminal(
      ['set-state', id!, '--state', 'escalated', '--log', log],
      [
        [/Comments/, '\r'],
        [/PENDING_REVIEW → ESCALATED\?/, 'y\r'],
      ],
      cli.env(),
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain(`${id}  PENDING_REVIEW → ESCALATED`);
    expect(screen).not.toContain('Change 1 events');
    expect(parsed(log).map((l) => [l.eventId, l.action, l.outcome, l.line])).toEqual([
      [id, 'escalate', 'sending', 1],
      [id, 'escalate', 'ok', 2],
    ]);
  });

  it('a log that cannot be opened: exit 2 before the event is read or changed', async () => {
    const [id] = await pending('nolog', 1);
    const result = await cli.run([
      'set-state',
      id!,
      '--state',
      'declined',
      '--log',
      join(cli.dir, 'no-such-dir', 'x.log'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the log ${join(cli.dir, 'no-such-dir', 'x.log')}: no such directory\n` +
        'give --log a file in a directory that exists\n',
    );
    expect(await stateOf(id!)).toBe('PENDING_REVIEW');
  });

  it('config set analyst: checked (exit 2, nothing written), shown by get and list, removed by unset', async () => {
    await profile('carol');
    const bad = await cli.run(['config', 'set', 'analyst', 'Carol\u001b[31m', '--profile', 'carol']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: analyst must be 1 to 64 printable characters .*\(got "Carol\\u001b\[31m"\)$/m);
    expect((await cli.run(['config', 'get', 'analyst', '--profile', 'carol'])).stdout).toBe(
      '(not set: log lines name the OS user)\n',
    );
    expect((await cli.run(['config', 'set', 'analyst', 'Carol Diaz', '--profile', 'carol'])).code).toBe(0);
    expect((await cli.run(['config', 'get', 'analyst', '--profile', 'carol'])).stdout).toBe('Carol Diaz\n');
    expect((await cli.run(['config', 'get', 'analyst', '--profile', 'carol', '--json'])).stdout).toBe('"Carol Diaz"\n');
    const listed = JSON.parse((await cli.run(['config', 'list', '--json'])).stdout) as {
      name: string;
      analyst: string | null;
    }[];
    expect(listed.find((p) => p.name === 'carol')?.analyst).toBe('Carol Diaz');
    expect((await cli.run(['config', 'list'])).stdout).toContain('analyst: Carol Diaz');
    expect((await cli.run(['config', 'unset', 'analyst', '--profile', 'carol'])).code).toBe(0);
    expect((await cli.run(['config', 'get', 'analyst', '--profile', 'carol', '--json'])).stdout).toBe('null\n');
  });
});

describe('two analysts, one log', () => {
  it('two bulk runs of two profiles append to one log at once: every change logged, one whole chain; log verify passes, then fails naming the line after an edit, a deleted line, a swapped pair and a cut last line', async () => {
    await profile('alice', 'Alice');
    await profile('bob', 'Bob');
    const mine = await pending('alice', 6);
    const theirs = await pending('bob', 6);
    const log = join(cli.dir, 'team.log');
    const run = (who: string, state: string) =>
      startCli(['set-state', '--from', '-', '--state', state, '--yes', '--log', log, '--profile', who], {
        env: cli.env(),
        keepStdinOpen: true,
      });
    const alice = run('alice', 'declined');
    const bob = run('bob', 'approved');
    // Ids fed a few at a time to each, so that both runs are running while the other appends.
    alice.child.stdin.write(`${mine.slice(0, 3).join('\n')}\n`);
    await expect.poll(() => lineCount(log), { timeout: 10_000 }).toBe(6);
    bob.child.stdin.write(`${theirs.slice(0, 3).join('\n')}\n`);
    await expect.poll(() => lineCount(log), { timeout: 10_000 }).toBe(12);
    alice.child.stdin.end(`${mine.slice(3).join('\n')}\n`);
    bob.child.stdin.end(`${theirs.slice(3).join('\n')}\n`);
    const [a, b] = await Promise.all([alice.done, bob.done]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(await Promise.all(mine.map(stateOf))).toEqual(Array(6).fill('DECLINED'));
    expect(await Promise.all(theirs.map(stateOf))).toEqual(Array(6).fill('APPROVED'));

    const raw = rawLines(log);
    const lines = parsed(log);
    expect(lines).toHaveLength(24);
    expect(lines.map((l) => l.line)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(lines.map((l) => l.prev)).toEqual([GENESIS, ...raw.slice(0, -1).map((l) => lineHash(Buffer.from(l)))]);
    expect(lines.map((l) => l.hash)).toEqual(raw.map(ownHash));
    const by = (analyst: string) => lines.filter((l) => l.analyst === analyst);
    expect(
      by('Alice')
        .map((l) => l.eventId)
        .sort(),
    ).toEqual([...mine, ...mine].sort());
    expect(
      by('Bob')
        .map((l) => l.eventId)
        .sort(),
    ).toEqual([...theirs, ...theirs].sort());
    expect(new Set(by('Alice').map((l) => l.profile))).toEqual(new Set(['alice']));
    expect(new Set(by('Alice').map((l) => l.session)).size).toBe(1);
    expect(new Set(lines.map((l) => l.session)).size).toBe(2);
    // Interleaved: Alice's first three changes, Bob's first three, then both.
    expect(lines.slice(0, 6).every((l) => l.analyst === 'Alice')).toBe(true);
    expect(lines.slice(6, 12).every((l) => l.analyst === 'Bob')).toBe(true);
    expect(readFileSync(log, 'utf8')).not.toContain(DEMO_KEY);

    const verify = await cli.run(['log', 'verify', log]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toBe(`${log}: 24 lines intact (last line's hash ${lineHash(Buffer.from(raw[23]!))})\n`);
    expect(verify.stderr).toBe('');

    const tampered = (name: string, lines: string[], end = '\n') => {
      const path = join(cli.dir, name);
      writeFileSync(path, lines.join('\n') + end);
      return path;
    };
    const edited = [...raw];
    edited[9] = edited[9]!.replace('"APPROVED"', '"DECLINED"');
    const removed = raw.filter((_, i) => i !== 9);
    const swapped = [...raw];
    [swapped[9], swapped[10]] = [swapped[10]!, swapped[9]!];
    const cut = [...raw.slice(0, 23), raw[23]!.slice(0, 60)];
    const cases: [string, string, number, string][] = [
      [
        tampered('edited.log', edited),
        'line 10 was edited: its own hash does not match its text (lines 1-9 intact)',
        10,
        '',
      ],
      [
        tampered('removed.log', removed),
        '1 line was removed before line 10 (it says it was line 11) (lines 1-9 intact)',
        10,
        '',
      ],
      [
        tampered('swapped.log', swapped),
        'lines 10 and 11 are out of order (swapped): line 10 was written after line 11 (lines 1-9 intact)',
        10,
        '',
      ],
      [
        tampered('cut.log', cut, ''),
        'line 24 is cut short (the file ends in the middle of it) (lines 1-23 intact)',
        24,
        '',
      ],
    ];
    for (const [path, problem, line] of cases) {
      const result = await cli.run(['log', 'verify', path]);
      expect(result.code, path).toBe(1);
      expect(result.stdout).toBe(`${path}: NOT INTACT: ${problem}\n`);
      expect(result.stderr).toBe(`error: ${path} is not intact (line ${line})\n`);
    }
    const all = await cli.run(['log', 'verify', log, cases[0]![0], '--json']);
    expect(all.code).toBe(1);
    expect(JSON.parse(all.stdout)).toMatchObject([
      { file: log, intact: true, lines: 24, firstBad: null, kind: null },
      { file: cases[0]![0], intact: false, firstBad: 10, kind: 'edited' },
    ]);
    expect(all.stderr).toBe(`error: 1 of 2 logs are not intact: ${cases[0]![0]} (line 10)\n`);
  }, 60_000);

  it('lines of an older build (no hash) are said as unchained, exit 1; a file that is not there is exit 2', async () => {
    const old = join(cli.dir, 'old.log');
    writeFileSync(
      old,
      '{"time":"2026-01-01T00:00:00.000Z","eventId":"x","action":"approve"}\n{"time":"2026-01-01T00:00:01.000Z","eventId":"y","action":"approve"}\n',
    );
    const [id] = await pending('old', 1);
    expect((await cli.run(['set-state', id!, '--state', 'approved', '--log', old])).code).toBe(0);
    expect(parsed(old).map((l) => l.line)).toEqual([undefined, undefined, 3, 4]);
    const result = await cli.run(['log', 'verify', old]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      `${old}: NOT INTACT: unchained lines 1-2: written by a fraudctl that did not chain its log lines, so nothing proves they were not changed; lines 3-4 chained and intact\n`,
    );
    const missing = await cli.run(['log', 'verify', join(cli.dir, 'nope.log')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `error: cannot read the log ${join(cli.dir, 'nope.log')}: no such file\ngive log verify the --log files to check\n`,
    );
  });
});
