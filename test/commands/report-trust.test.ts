import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSessionLog, type LogContext } from '../../src/action-log/action-log.js';
import { useCli } from '../support/cli-against-sandbox.js';
import { cliEnv } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { listen } from '../support/listen.js';
import { DEMO_KEY } from '../support/sandbox.js';
import { shellWord } from '../../src/render/shell-command.js';
import { reportAt } from '../support/report-run.js';

/*
 * What `report` believes and compares, through its run(options, deps) against two real sandboxes
 * (prod and staging, each with the demo key; the hints' commands run in-process through main) over logs written by real set-state runs: a decision is only
 * compared with the state at the service its line names (a staging run in the prod team's log
 * is left out, and said); a line that breaks the log's hash chain stops the report, named, unless
 * --include-unverified, when every output says how many such lines it counted; reads of the
 * events now share one deadline, and a report missing some exits non-zero saying why.
 */

/** A path as a hint quotes it (POSIX sh, as the tests' environment has it): as is on Linux, quoted on Windows. */
const q = (path: string) => shellWord(path, 'sh');
/** The words of a hint's command, its quotes taken off (the tests' paths hold no spaces). */
const words = (command: string) => command.split(' ').map((w) => w.replace(/^'(.*)'$/, '$1'));
/** Text, as a regular expression matches it literally (a Windows path's backslashes). */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const cli = useCli({ prod: {}, staging: {} });
const env = (extra: Record<string, string> = {}) =>
  cliEnv({
    HOME: cli.dir,
    XDG_CONFIG_HOME: `${cli.dir}/config`,
    XDG_DATA_HOME: `${cli.dir}/data`,
    FRAUDCTL_API_KEY: DEMO_KEY,
    ...extra,
  });
const run = (args: string[], options: { columns?: number; env?: Record<string, string> } = {}) =>
  runInProcess(args, env(options.env), options.columns === undefined ? {} : { columns: options.columns });

/** The report as a run with --profile prod (or staging) makes it: that service, and the flag in its hints. */
const reportAs = (profile: 'prod' | 'staging') =>
  reportAt(cli.sandboxes[profile].url, { serviceFlags: ['--profile', profile] });

async function ok(args: string[]): Promise<void> {
  const result = await run(args);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
}

let n = 0;
/** An event of the same id at both services, pending review. */
async function event(): Promise<string> {
  const id = `rt-${++n}`;
  for (const sb of [cli.sandboxes.prod, cli.sandboxes.staging]) {
    expect(
      (
        await sb.call('POST', '/event', {
          body: { id, amount: 1500, currency: 'EUR', eventDate: '2026-11-20T08:00:00Z' },
        })
      ).status,
    ).toBe(201);
  }
  return id;
}

let profiles: Promise<void> | undefined;
const setUp = () =>
  (profiles ??= (async () => {
    for (const [profile, analyst, sb] of [
      ['prod', 'Alice', cli.sandboxes.prod],
      ['staging', 'Alice', cli.sandboxes.staging],
      ['bob', 'Bob', cli.sandboxes.prod],
    ] as const) {
      await ok(['config', 'set', 'base-url', sb.url, '--profile', profile]);
      await ok(['config', 'set', 'analyst', analyst, '--profile', profile]);
    }
  })());

interface Report {
  service: string | null;
  lines: { read: number; unreadable: number; unverified: number };
  unverified: { lines: number; byKind: Record<string, number>; note: string | null } | null;
  otherServices: { service: string | null; profiles: string[]; lines: number; decisions: number }[];
  analysts: {
    analyst: string;
    decisions: number;
    overturned: number;
    unchecked: number;
    unverified: number;
    byKind: Record<string, number>;
  }[];
}

/** A team log: Alice approves two events at prod, Bob declines a third there. */
async function teamLog(name: string): Promise<{ log: string; ids: string[] }> {
  await setUp();
  const ids = [await event(), await event(), await event()];
  const log = join(cli.dir, name);
  await ok(['set-state', ids[0]!, ids[1]!, '--state', 'approved', '--yes', '--log', log, '--profile', 'prod']);
  await ok([
    'set-state',
    ids[2]!,
    '--state',
    'declined',
    '--comments',
    'stolen card',
    '--log',
    log,
    '--profile',
    'bob',
  ]);
  return { log, ids };
}

describe('report compares a decision only with the service its line names', () => {
  it('a staging run in the prod log: left out of the figures (not an overturned prod decision), said with how many, where, and the command that counts it there, in the table, --json and --csv', async () => {
    const { log, ids } = await teamLog('mixed.log');
    // One run with --profile staging into the team's prod log: staging's event of the same id declined.
    await ok(['set-state', ids[0]!, '--state', 'declined', '--log', log, '--profile', 'staging']);
    const staging = cli.sandboxes.staging.url;
    const prod = cli.sandboxes.prod.url;

    const json = await reportAs('prod')({ files: [log], format: 'json' });
    expect(json.code, json.stderr).toBe(0);
    const r = JSON.parse(json.stdout) as Report;
    expect(r.service).toBe(prod);
    const alice = r.analysts.find((a) => a.analyst === 'Alice')!;
    // Alice's two prod approvals stand: the staging decline is not hers at prod, nor an overturn.
    expect(alice).toMatchObject({ decisions: 2, overturned: 0, byKind: { approve: 2, decline: 0 } });
    expect(r.otherServices).toEqual([{ service: staging, profiles: ['staging'], lines: 2, decisions: 1 }]);
    const command = `fraudctl report --log ${q(log)} --json --profile staging`;
    expect(json.stderr).toContain(
      `note: left out: 1 decision (2 lines) at ${staging} (profile staging), not at ${prod} which this run reads; to count them there: ${command}\n`,
    );

    // The command works as written, and counts it there.
    const there = await run(words(command).slice(1));
    expect(there.code, there.stderr).toBe(0);
    const s = JSON.parse(there.stdout) as Report;
    expect(s.analysts).toMatchObject([{ analyst: 'Alice', decisions: 1, overturned: 0, byKind: { decline: 1 } }]);
    expect(s.otherServices).toEqual([{ service: prod, profiles: ['bob', 'prod'], lines: 6, decisions: 3 }]);

    const table = await reportAs('prod')({ files: [log] });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('3 decisions in');
    expect(table.stdout).toContain(
      `left out: 1 decision (2 lines) at ${staging} (profile staging), not at ${prod} which this run reads`,
    );

    const csv = await reportAs('prod')({ files: [log], format: 'csv' });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\r\n')[1]).toMatch(/^"Alice",2,2,0,/);
    expect(csv.stderr).toContain(`note: left out: 1 decision (2 lines) at ${staging}`);
  });
});

/** The log with line `at` (1-based) rewritten by `edit`. */
function editLine(log: string, at: number, edit: (line: string) => string): void {
  const lines = readFileSync(log, 'utf8').split('\n');
  lines[at - 1] = edit(lines[at - 1]!);
  writeFileSync(log, lines.join('\n'));
}

describe('report believes only lines whose hash chain holds', () => {
  it('a line edited (Alice → Bob) and a line copied in from another log: named (file:line, kind), nothing counted, exit 1; the hint’s commands work as written', async () => {
    const { log } = await teamLog('tampered.log');
    const { log: other } = await teamLog('other.log');
    // Line 2: Alice's approval of the first event, its outcome; the analyst changed by hand.
    editLine(log, 2, (line) => line.replace('"analyst":"Alice"', '"analyst":"Bob"'));
    // Bob's decline of another log's event, copied in after line 4.
    const copied = readFileSync(other, 'utf8').split('\n')[5]!;
    editLine(log, 4, (line) => `${line}\n${copied}`);
    const result = await reportAs('prod')({ files: [log] });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    // The edit is seen on the line itself where lines carry their own hash, else by the line after it.
    expect(result.stderr).toMatch(
      new RegExp(`  ${literal(log)}:(2 edited: line 2 was edited|3 unlinked: line 3 does not follow line 2)`),
    );
    expect(result.stderr).toMatch(new RegExp(`  ${literal(log)}:5 (unlinked|inserted): line 5 `));
    const counted = /error: (\d+) lines of (\S+) cannot be verified \(/.exec(result.stderr);
    expect(counted?.[2]).toBe(log);
    const unverified = Number(counted![1]);
    expect(unverified).toBeGreaterThanOrEqual(2);
    const hint = result.stderr.trimEnd().split('\n').at(-1)!;
    expect(hint).toBe(
      `fraudctl log verify ${q(log)} says what happened; to read them too, said as unverified: ` +
        `fraudctl report --log ${q(log)} --include-unverified --profile prod`,
    );
    const verify = await run(['log', 'verify', log]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain('NOT INTACT');

    const included = await run(words(hint.split(': ').at(-1)!).slice(1));
    expect(included.code, included.stderr).toBe(0);
    // Counted, as the lines say now (a decision of Bob's more), and said to be unverified.
    expect(included.stdout).toContain(`the figures include ${unverified} unverified lines (`);
    const json = await reportAs('prod')({ files: [log], includeUnverified: true, format: 'json' });
    const r = JSON.parse(json.stdout) as Report;
    expect(r.unverified).toMatchObject({ lines: unverified });
    expect(r.unverified!.note).toMatch(new RegExp(`^the figures include ${unverified} unverified lines`));
    expect(r.lines.unverified).toBe(unverified);
    expect(r.analysts.find((a) => a.analyst === 'Bob')!.decisions).toBeGreaterThan(1);
    const csv = await reportAs('prod')({ files: [log], includeUnverified: true, format: 'csv' });
    expect(csv.stderr).toContain(`note: the figures include ${unverified} unverified lines`);
    const rows = csv.stdout.split('\r\n').filter((row) => row !== '');
    expect(rows[0]!.endsWith('"unchecked","unverified"')).toBe(true);
    const unverifiedColumn = rows.slice(1).map((row) => Number(row.split(',').at(-1)));
    expect(unverifiedColumn.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(1);
  });

  it('lines of a fraudctl that did not chain them: unverified too, named as one range', async () => {
    const { log } = await teamLog('old.log');
    const unchained = readFileSync(log, 'utf8')
      .split('\n')
      .slice(0, 2)
      .map((line) => line.replace(/,"line":.*\}$/, '}'));
    writeFileSync(log, `${unchained.join('\n')}\n`);
    const result = await reportAs('prod')({ files: [log] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`  ${log}:1-2 unchained: written by a fraudctl that did not chain its log lines`);
    const included = await reportAs('prod')({ files: [log], includeUnverified: true, format: 'json' });
    expect(included.code, included.stderr).toBe(0);
    expect((JSON.parse(included.stdout) as Report).unverified).toMatchObject({ lines: 2, byKind: { unchained: 2 } });
  });

  it('CR LF line endings and no final line feed are not tampering: read, with a note', async () => {
    const { log } = await teamLog('windows.log');
    writeFileSync(log, readFileSync(log, 'utf8').trimEnd().replaceAll('\n', '\r\n'));
    const result = await reportAs('prod')({ files: [log], format: 'json' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `note: ${log} has 5 lines ending in CR LF (saved with Windows line endings): the chain holds; read as they are\n`,
    );
    expect(result.stderr).toContain(`note: ${log} does not end with a line feed`);
    const r = JSON.parse(result.stdout) as Report;
    expect(r.analysts.map((a) => [a.analyst, a.decisions])).toEqual([
      ['Alice', 2],
      ['Bob', 1],
    ]);
  });
});

/** A log of `count` decisions at `service`, by the real writer. */
async function logAt(service: string, name: string, count: number): Promise<string> {
  const path = join(cli.dir, name);
  const context: LogContext = {
    analyst: 'Cy',
    host: 'desk',
    profile: 'far',
    service,
    version: '0.0.0',
    session: 'far-session',
  };
  const log = await openSessionLog(path, context);
  for (let i = 0; i < count; i++) {
    for (const outcome of ['sending', 'ok'] as const) {
      await log.append({
        eventId: `far-${i}`,
        action: 'approve',
        from: 'PENDING_REVIEW',
        to: 'APPROVED',
        comments: null,
        requestId: null,
        outcome,
        status: null,
      });
    }
  }
  await log.close();
  return path;
}

describe('report when the events cannot be read now', () => {
  it('a server that never answers: the reads stop after as many failures in a row as run at once; the figures are printed, then why they are incomplete, exit 6', async () => {
    const hanging = await listen(() => {});
    const log = await logAt(hanging.url, 'hanging.log', 40);
    const started = performance.now();
    const result = await reportAt(hanging.url, { timeout: 1 })({ files: [log], format: 'json', concurrency: 4 });
    const took = performance.now() - started;
    expect(result.code, result.stderr).toBe(6);
    // One round of four timeouts, not ten rounds of them.
    expect(took).toBeLessThan(8_000);
    const r = JSON.parse(result.stdout) as {
      eventsDecided: number;
      eventsRead: number;
      eventsNotRead: { count: number; why: string }[];
      analysts: Report['analysts'];
    };
    expect(r).toMatchObject({ eventsDecided: 40, eventsRead: 0 });
    expect(r.analysts[0]).toMatchObject({ decisions: 40, unchecked: 40 });
    expect(r.eventsNotRead.reduce((sum, e) => sum + e.count, 0)).toBe(40);
    expect(result.stderr).toContain(
      'error: the figures are incomplete: 40 of 40 decided events were not read now, so overturned and age at decision leave them out (4 no usable answer: ',
    );
    expect(result.stderr).toContain('; 36 not asked: 4 reads in a row had failed)');
    expect(result.stderr).toContain(`check the service: fraudctl doctor\n`);
  });

  it('--read-deadline bounds all the reads together: events not read by then are counted, and the exit is 6', async () => {
    // Answers one read in 20 at once, and holds the others.
    let calls = 0;
    const slow = await listen((req, res) => {
      if (++calls % 20 === 1) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ id: req.url!.split('/').at(-1), state: 'APPROVED', eventDate: '2026-11-20T08:00:00Z' }),
        );
      }
    });
    const log = await logAt(slow.url, 'slow.log', 40);
    const started = performance.now();
    const result = await reportAt(slow.url)({ files: [log], readDeadlineSeconds: 2, concurrency: 40 });
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(
      /error: the figures are incomplete: 38 of 40 decided events were not read now, .*\(38 not read within --read-deadline 2s\)/,
    );
    expect(result.stderr).toContain(`give the reads longer: fraudctl report --log ${q(log)} --read-deadline 8\n`);
  });
});
