import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSessionLog, type LogContext, type LogEntry } from '../../src/action-log/action-log.js';
import { parseSla, parseTimeBound } from '../../src/commands/report/options.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { reportAt } from '../support/report-run.js';

/*
 * `fraudctl report`'s run(options, deps) against the sandbox on port 0 (and main in-process for
 * argv → exit code and the locale's marks), over
 * logs written by real runs (two profiles with their own analyst, a one-id and a bulk set-state
 * --log) and a log written by the real log writer with set times (the review queue's claim →
 * decision, a sending without its outcome), then read now by GET for overturned decisions and
 * the age at decision. "On a terminal": stdout a TTY of a given width.
 */

const cli = useSandboxInProcess();
const reportRun = (...args: Parameters<ReturnType<typeof reportAt>>) => reportAt(cli.sb.url)(...args);
const since = (value: string) => parseTimeBound('--since', value);
const until = (value: string) => parseTimeBound('--until', value);

async function event(id: string, eventDate: string): Promise<void> {
  const posted = await cli.sb.call('POST', '/event', { body: { id, amount: 1500, currency: 'EUR', eventDate } });
  expect(posted.status).toBe(201);
}

async function profile(name: string, analyst: string): Promise<void> {
  expect((await cli.run(['config', 'set', 'base-url', cli.sb.url, '--profile', name])).code).toBe(0);
  const set = await cli.run(['config', 'set', 'analyst', analyst, '--profile', name]);
  expect(set.code, set.stderr).toBe(0);
}

interface Figures {
  analyst: string;
  decisions: number;
  byKind: Record<string, number>;
  byReason: Record<string, number>;
  unknownOutcome: number;
  timeToDecision: { count: number; medianSeconds: number | null; p90Seconds: number | null };
  ageAtDecision: { count: number; medianSeconds: number | null };
  pastSla: number | null;
  overturned: number;
  unchecked: number;
}
interface Report {
  lines: { read: number; unreadable: number };
  analysts: Figures[];
}

async function report(options: Parameters<typeof reportRun>[0]): Promise<Report> {
  const result = await reportRun({ ...options, format: 'json' });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Report;
}
const byName = (r: Report) => Object.fromEntries(r.analysts.map((a) => [a.analyst, a]));

/** A log written by the real writer, each line at the time given (the review queue's lines for Cy). */
async function handBuiltLog(path: string): Promise<void> {
  const times = [
    '2026-11-20T10:00:00Z',
    '2026-11-20T10:00:01Z',
    '2026-11-20T10:02:00Z',
    '2026-11-20T10:02:01Z',
    '2026-11-21T09:50:00Z',
    '2026-11-21T09:50:01Z',
    '2026-11-21T10:00:00Z',
    '2026-11-21T10:00:01Z',
    '2026-11-21T11:00:00Z',
  ];
  let i = 0;
  const context: LogContext = {
    analyst: 'Cy',
    host: 'desk-3',
    profile: 'prod',
    service: cli.sb.url,
    version: '0.0.0',
    session: 'session-of-cy',
  };
  const log = await openSessionLog(path, context, undefined, () => new Date(times[i++]!));
  const line = (
    eventId: string,
    action: LogEntry['action'],
    from: string,
    to: string,
    outcome: LogEntry['outcome'],
  ): LogEntry => ({
    eventId,
    action,
    from,
    to,
    comments: null,
    requestId: outcome === 'ok' ? 'r' : null,
    outcome,
    status: null,
  });
  // rp-c1: claimed 10:00:01, approved 10:02:01 (2 min); rp-c2: claimed 09:50:01 the next day, declined 10:00:01 (10 min).
  for (const entry of [
    line('rp-c1', 'claim', 'PENDING_REVIEW', 'IN_REVIEW', 'sending'),
    line('rp-c1', 'claim', 'PENDING_REVIEW', 'IN_REVIEW', 'ok'),
    line('rp-c1', 'approve', 'IN_REVIEW', 'APPROVED', 'sending'),
    line('rp-c1', 'approve', 'IN_REVIEW', 'APPROVED', 'ok'),
    line('rp-c2', 'claim', 'PENDING_REVIEW', 'IN_REVIEW', 'sending'),
    line('rp-c2', 'claim', 'PENDING_REVIEW', 'IN_REVIEW', 'ok'),
    line('rp-c2', 'decline', 'IN_REVIEW', 'DECLINED', 'sending'),
    line('rp-c2', 'decline', 'IN_REVIEW', 'DECLINED', 'ok'),
    // The session ended before this answer came: an unknown outcome, not a decision.
    line('rp-c3', 'escalate', 'PENDING_REVIEW', 'ESCALATED', 'sending'),
  ]) {
    await log.append(entry);
  }
  await log.close();
  // The states the decisions set, so that none of Cy's is overturned.
  for (const [id, state] of [
    ['rp-c1', 'APPROVED'],
    ['rp-c2', 'DECLINED'],
  ] as const) {
    expect((await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state } })).status).toBe(200);
  }
}

/**
 * Dee's log: two review sessions in one file (the real writer, set times), four decisions timed
 * from their claims at 30 s, 3 min, 20 min and 2 h, for the histogram of time to decision.
 */
async function twoSessionsLog(path: string): Promise<void> {
  const decisions = [
    ['rp-d1', 'session-1', '2026-11-20T11:00:00Z', 30_000],
    ['rp-d2', 'session-1', '2026-11-20T11:10:00Z', 3 * 60_000],
    ['rp-d3', 'session-2', '2026-11-21T09:00:00Z', 20 * 60_000],
    ['rp-d4', 'session-2', '2026-11-21T12:00:00Z', 2 * 3_600_000],
  ] as const;
  for (const session of ['session-1', 'session-2']) {
    const mine = decisions.filter((d) => d[1] === session);
    const times = mine.flatMap(([, , claimed, took]) => [
      claimed,
      claimed,
      new Date(Date.parse(claimed) + took).toISOString(),
      new Date(Date.parse(claimed) + took).toISOString(),
    ]);
    let i = 0;
    const context: LogContext = {
      analyst: 'Dee',
      host: 'desk-4',
      profile: 'prod',
      service: cli.sb.url,
      version: '0.0.0',
      session,
    };
    const log = await openSessionLog(path, context, undefined, () => new Date(times[i++]!));
    for (const [id] of mine) {
      for (const [action, from, to] of [
        ['claim', 'PENDING_REVIEW', 'IN_REVIEW'],
        ['approve', 'IN_REVIEW', 'APPROVED'],
      ] as const) {
        for (const outcome of ['sending', 'ok'] as const)
          await log.append({
            eventId: id,
            action,
            from,
            to,
            comments: null,
            requestId: outcome === 'ok' ? 'r' : null,
            outcome,
            status: null,
          });
      }
    }
    await log.close();
  }
}

describe('fraudctl report --log', () => {
  const teamLog = join(cli.dir, 'team.log');
  const cyLog = join(cli.dir, 'cy.log');
  let ready: Promise<void> | undefined;
  /** The logs of a team's day, made once for the file's tests. */
  const teamDay = () =>
    (ready ??= (async () => {
      await profile('ann', 'Ann Lee');
      await profile('bob', 'Bob Ray');
      expect((await cli.run(['config', 'set', 'reasons', 'stolen-card', '--profile', 'ann'])).code).toBe(0);
      await event('rp-a1', '2026-11-20T08:00:00Z');
      await event('rp-b1', '2026-11-20T08:00:00Z');
      await event('rp-b2', '2026-11-20T08:00:00Z');
      await event('rp-c1', '2026-11-20T08:00:00Z');
      // Two days old when Cy declines it.
      await event('rp-c2', '2026-11-19T10:00:00Z');
      await event('rp-c3', '2026-11-21T08:00:00Z');
      // Ann: one id; Bob: two at once; then Ann declines one of Bob's approvals (overturned for Bob).
      for (const args of [
        ['set-state', 'rp-a1', '--state', 'declined', '--reason', 'stolen-card', '--log', teamLog, '--profile', 'ann'],
        ['set-state', 'rp-b1', 'rp-b2', '--state', 'approved', '--yes', '--log', teamLog, '--profile', 'bob'],
        ['set-state', 'rp-b2', '--state', 'declined', '--log', teamLog, '--profile', 'ann'],
      ]) {
        const result = await cli.run(args);
        expect(result.code, result.stderr).toBe(0);
      }
      await handBuiltLog(cyLog);
    })());

  it('--json: decisions per analyst by kind and reason, a later change by another analyst counted as overturned, claim → decision times, unknown outcomes', async () => {
    await teamDay();
    const r = await report({ files: [teamLog, cyLog] });
    expect(r.lines).toEqual({ read: 8 + 9, unreadable: 0, unverified: 0 });
    const a = byName(r);
    expect(Object.keys(a)).toEqual(['Ann Lee', 'Bob Ray', 'Cy']);
    expect(a['Ann Lee']).toMatchObject({
      decisions: 2,
      byKind: { approve: 0, decline: 2, escalate: 0, fraud: 0 },
      byReason: { 'stolen-card': 1, none: 1 },
      overturned: 0,
      unchecked: 0,
      unknownOutcome: 0,
      timeToDecision: { count: 0, medianSeconds: null },
    });
    expect(a['Bob Ray']).toMatchObject({
      decisions: 2,
      byKind: { approve: 2, decline: 0 },
      overturned: 1,
      unchecked: 0,
    });
    expect(a.Cy).toMatchObject({
      decisions: 2,
      byKind: { approve: 1, decline: 1, escalate: 0 },
      unknownOutcome: 1,
      overturned: 0,
      timeToDecision: { count: 2, medianSeconds: 120, p90Seconds: 600 },
      pastSla: null,
    });
    // Ages: rp-c1 2 h (08:00 → 10:02:01), rp-c2 2 days: the median by nearest rank is the lower.
    expect(a.Cy!.ageAtDecision).toMatchObject({ count: 2, medianSeconds: 2 * 3600 + 121 });
  });

  it('--since/--until select decisions by their time; --sla counts those made past it', async () => {
    await teamDay();
    const day = byName(await report({ files: [cyLog], since: since('2026-11-21'), until: until('2026-11-21') }));
    expect(day.Cy).toMatchObject({
      decisions: 1,
      byKind: { decline: 1, approve: 0 },
      unknownOutcome: 1,
      timeToDecision: { count: 1, medianSeconds: 600 },
    });
    const before = byName(await report({ files: [cyLog], until: until('2026-11-21T00:00Z') }));
    expect(before.Cy).toMatchObject({ decisions: 1, byKind: { approve: 1, decline: 0 }, unknownOutcome: 0 });
    expect(byName(await report({ files: [teamLog], since: since('2030-01-01') }))).toEqual({});
    const sla = byName(await report({ files: [cyLog], slaMs: parseSla('4h') }));
    expect(sla.Cy!.pastSla).toBe(1);
    expect(byName(await report({ files: [cyLog], slaMs: parseSla('3d') })).Cy!.pastSla).toBe(0);
  });

  it('the table names each analyst with their figures; --csv is one RFC 4180 row per analyst; an unreadable line is one note on stderr', async () => {
    await teamDay();
    const table = await reportRun({ files: [teamLog, cyLog], slaMs: parseSla('4h') });
    expect(table.code, table.stderr).toBe(0);
    const rows = table.stdout.split('\n');
    const cells = (line: string) =>
      line
        .split(/[│|]/)
        .map((c) => c.trim())
        .filter((c) => c !== '');
    // Two tables: the decisions by kind, then the times, unknown outcomes and what was overturned.
    const heads = rows.filter((l) => l.includes('analyst'));
    expect(cells(heads[0]!)).toEqual(['analyst', 'decisions', 'approve', 'decline', 'escalate', 'fraud', 'set-state']);
    expect(cells(heads[1]!)).toEqual([
      'analyst',
      'unknown outcome',
      'to decision median',
      'p90',
      'age median',
      'past SLA 4h',
      'overturned',
    ]);
    const row = (name: string) =>
      rows
        .filter((l) => l.includes(name))
        .slice(0, 2)
        .flatMap((l) => cells(l).slice(1));
    expect(row('Bob Ray')).toEqual(['2', '2', '0', '0', '0', '0', '0', '–', '–', expect.any(String), '2', '1']);
    expect(row('Cy').slice(0, 9)).toEqual(['2', '1', '1', '0', '0', '0', '1', '2m', '10m']);
    expect(table.stdout).toContain('6 decisions in 2 logs');
    // The chart is for a terminal only.
    expect(table.stdout).not.toContain('decisions per hour');

    const csv = await reportRun({ files: [teamLog, cyLog], format: 'csv' });
    expect(csv.code, csv.stderr).toBe(0);
    const records = csv.stdout.split('\r\n');
    expect(records[0]).toBe(
      '"analyst","decisions","approve","decline","escalate","fraud","reason:none","reason:stolen-card","unknown outcome","time to decision median (s)","time to decision p90 (s)","age at decision median (s)","past sla","overturned","unchecked","unverified"',
    );
    // Bob's age at decision is from eventDate to now (the run's time): a number of seconds.
    expect(records[2]).toMatch(/^"Bob Ray",2,2,0,0,0,2,0,0,"","",\d+,"",1,0,0$/);
    expect(records[3]).toBe('"Cy",2,1,1,0,0,2,0,1,120,600,7321,"",0,0,0');
    expect(records).toHaveLength(5);

    const messy = join(cli.dir, 'messy.log');
    writeFileSync(messy, 'not json\n{"cut":');
    // A line that is not JSON breaks the chain: named, and nothing counted (report-trust.test.ts has more).
    const refused = await reportRun({ files: [messy, cyLog], format: 'json' });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`  ${messy}:1 edited: line 1 is not a JSON object: edited or cut\n`);
    const noted = await reportRun({ files: [messy, cyLog], format: 'json', includeUnverified: true });
    expect(noted.code, noted.stderr).toBe(0);
    expect(noted.stderr.match(/note: 1 line is not a log line/g)).toHaveLength(1);
    expect(noted.stderr).toContain(`fraudctl log verify ${messy} says which`);
    // The cut last line is a crash's: named apart, not as tampering.
    expect(noted.stderr).toContain(
      `note: 1 line is what a crash leaves (cut short, or NUL bytes), skipped: ${messy}:2\n`,
    );
    expect((JSON.parse(noted.stdout) as Report).lines).toEqual({ read: 11, unreadable: 2, unverified: 1 });
  });

  it('on a terminal: a bar chart of decisions per hour (UTC), empty hours between shown without a bar', async () => {
    await teamDay();
    const { code, stdout: screen } = await reportRun({ files: [cyLog] }, { columns: 120 });
    expect(code, screen).toBe(0);
    expect(screen).toContain('decisions per hour (UTC)');
    expect(screen).toContain(`2026-11-20 10:00  ${'█'.repeat(50)} 1`);
    expect(screen).toMatch(/2026-11-20 11:00\s*\n/);
    expect(screen).toContain(`2026-11-21 10:00  ${'█'.repeat(50)} 1`);
  });

  it('on a terminal, over logs of several sessions: a histogram of the time from claim to decision, every bucket shown; ASCII bars where the locale has no █', async () => {
    await teamDay();
    const deeLog = join(cli.dir, 'dee.log');
    for (const id of ['rp-d1', 'rp-d2', 'rp-d3', 'rp-d4']) await event(id, '2026-11-20T08:00:00Z');
    await twoSessionsLog(deeLog);
    expect((await cli.run(['log', 'verify', deeLog])).code).toBe(0);
    // Cy: 2 min and 10 min; Dee (two sessions): 30 s, 3 min, 20 min, 2 h. The longest bar (2) is 50 wide.
    const { code, stdout: screen } = await reportRun({ files: [cyLog, deeLog, teamLog] }, { columns: 120 });
    expect(code, screen).toBe(0);
    const lines = screen.split(/\r?\n/).map((l) => l.trimEnd());
    const at = lines.indexOf('time from claim to decision');
    expect(at, screen).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 6)).toEqual([
      `under 1m    ${'█'.repeat(25)} 1`,
      `1m–5m       ${'█'.repeat(50)} 2`,
      `5m–15m      ${'█'.repeat(25)} 1`,
      `15m–1h      ${'█'.repeat(25)} 1`,
      `1h or more  ${'█'.repeat(25)} 1`,
    ]);
    // Both charts, the decisions of every log counted.
    expect(screen).toContain('decisions per hour (UTC)');
    expect(screen).toContain('10 decisions in 3 logs');

    const ascii = await cli.run(['report', '--log', cyLog, deeLog], { env: { LANG: 'C' }, columns: 120 });
    expect(ascii.code, ascii.stderr).toBe(0);
    expect(ascii.stdout).toContain(`1m-5m       ${'#'.repeat(50)} 2`);
    expect(ascii.stdout).not.toContain('█');
    // Not in --json or --csv, nor off a terminal.
    for (const format of ['json', 'csv'] as const)
      expect((await reportRun({ files: [cyLog, deeLog], format })).stdout).not.toContain('claim to decision');
    expect((await reportRun({ files: [cyLog, deeLog] })).stdout).not.toContain('time from claim');
  });

  it.each([80, 120])(
    'on a %i-column terminal the tables fit, every head and figure whole (none cut with …)',
    async (columns) => {
      await teamDay();
      const { code, stdout, stderr } = await reportRun({ files: [teamLog, cyLog], slaMs: parseSla('4h') }, { columns });
      expect(code, stderr).toBe(0);
      const lines = stdout.split('\n');
      expect(Math.max(...lines.map((l) => [...l].length)), stdout).toBeLessThanOrEqual(columns);
      expect(stdout).not.toContain('…');
      const tableText = lines.filter((l) => l.startsWith('│')).join(' ');
      for (const word of [
        'analyst',
        'decisions',
        'approve',
        'decline',
        'escalate',
        'fraud',
        'set-state',
        'unknown',
        'outcome',
        'median',
        'p90',
        'SLA',
        'overturned',
        'Ann Lee',
        'Bob Ray',
      ]) {
        expect(tableText, stdout).toContain(word);
      }
    },
  );

  it('argv → exit code, in-process through main: the table run prints; bad input is exit 2 naming it, before anything is read', async () => {
    await teamDay();
    const told = await reportRun({ files: [teamLog, cyLog], slaMs: parseSla('4h') });
    const table = await cli.run(['report', '--log', teamLog, '--log', cyLog, '--sla', '4h']);
    expect(table.code, table.stderr).toBe(0);
    // The same figures (Bob's age at decision runs to the run's now: a few seconds apart).
    const aged = (text: string) => text.replace(/\d+[dhms](?: \d+[hms])?/g, 'T');
    expect(aged(table.stdout)).toBe(aged(told.stdout));
    for (const [args, words] of [
      [['--since', 'yesterday'], /--since.*not an ISO date or time/],
      [['--until', '2026-02-30'], /--until.*not an ISO date or time/],
      [['--sla', '4'], /--sla.*not a duration/],
      [['--sla', '0h'], /--sla.*not a duration/],
      [['--csv', '--json'], /--json and --csv/],
      [['--since', '2026-11-22', '--until', '2026-11-21'], /--since is not before --until/],
    ] as const) {
      const result = await cli.run(['report', '--log', join(cli.dir, 'none.log'), ...args]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(words);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const missing = await cli.run(['report', '--log', join(cli.dir, 'none.log')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('none.log: no such file');
    expect((await cli.run(['report'])).code).toBe(2);
  });
});
