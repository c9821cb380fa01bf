import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { checkSeal } from '../../src/action-log/log-chain.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { listen } from '../support/listen.js';
import { inReview, postInReview } from '../support/event-fixtures.js';

/*
 * fraudctl review end to end: the real CLI on a real terminal (tmux, 80×24) against a real
 * sandbox. What the sandbox holds afterwards and what the log says are the proof.
 */

const cli = useSandboxForCli();
let opened: Pty[] = [];
afterEach(async () => {
  await Promise.all(opened.map((p) => p.kill()));
  opened = [];
});

async function terminal(args: string[], options: { stdinFile?: string; timeoutMs?: number } = {}): Promise<Pty> {
  const pty = await startOnTerminal(args, { env: cli.env(), ...options });
  opened.push(pty);
  return pty;
}

let n = 0;
/** Events that land in REVIEW (PENDING_REVIEW), with ids unique to the test. */
async function reviewEvents(prefix: string, count: number): Promise<string[]> {
  n++;
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    ids.push(
      await postInReview(
        cli.sb,
        inReview(`${prefix}-${n}-${i}`, { userName: `buyer${i}`, userEmail: `b${i}@example.com` }),
      ),
    );
  }
  return ids;
}

const summaryOf = async (id: string) => (await cli.sb.call('GET', `/event/${id}`)).json as EventSummary;

interface LogLine {
  time: string;
  eventId: string;
  action: string;
  from: string | null;
  to: string | null;
  comments: string | null;
  requestId: string | null;
  outcome: string;
}

function readLog(path: string): LogLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LogLine);
}

/** The log's lines as `id action from→to "comment" outcome`, per event in order (events may interleave). */
function actions(lines: LogLine[]): string[] {
  const byEvent = new Map<string, string[]>();
  for (const l of lines) {
    const list = byEvent.get(l.eventId) ?? [];
    list.push(`${l.eventId} ${l.action} ${l.from}→${l.to}${l.comments ? ` "${l.comments}"` : ''} ${l.outcome}`);
    byEvent.set(l.eventId, list);
  }
  return [...byEvent.keys()].sort().flatMap((k) => byEvent.get(k)!);
}

/** The screen of an event once this session holds it. */
const onEvent = (pty: Pty, position: string, id: string) =>
  pty.waitFor(new RegExp(`^${position}\\s+${id}\\s.*claimed by you`, 'm'), `${position} ${id} claimed`);

describe('fraudctl review on a terminal', () => {
  it('approves, declines with a comment, escalates, skips, views and quits; the sandbox and the log say exactly that', async () => {
    const ids = await reviewEvents('rv', 5);
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    const log = join(cli.dir, `review-${n}.log`);
    const pty = await terminal(['review', ...ids, '--log', log]);

    const first = await onEvent(pty, '1/5', a);
    // The screen fits 80×24.
    expect(first.split('\n').length).toBeLessThanOrEqual(24);
    expect(Math.max(...first.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(first).toMatch(/REVIEW\s+score 30/);
    expect(first).toContain('high_amount');
    await pty.send('a');
    await pty.waitFor('approve · comment');
    await pty.send('Enter');

    await onEvent(pty, '2/5', b);
    await pty.send('d');
    await pty.waitFor('decline · comment');
    await pty.type('card reported stolen');
    await pty.send('Enter');

    await onEvent(pty, '3/5', c);
    await pty.send('e');
    await pty.waitFor('escalate · comment');
    await pty.send('Enter');

    await onEvent(pty, '4/5', d);
    await pty.send('s');

    await onEvent(pty, '5/5', e);
    await pty.send('v');
    await pty.waitFor(/everything[\s\S]*Decision/);
    await pty.send('Space', 'Space');
    await pty.waitFor(/Alerts \(1\)[\s\S]*high_amount/);
    await pty.send('v');
    await onEvent(pty, '5/5', e);
    await pty.send('q');

    const { code, screen } = await pty.exited();
    expect(code).toBe(0);
    expect(screen).toMatch(new RegExp(`approved\\s+1  ${a}`));
    expect(screen).toMatch(new RegExp(`declined\\s+1  ${b}`));
    expect(screen).toMatch(new RegExp(`escalated\\s+1  ${c}`));
    expect(screen).toMatch(new RegExp(`skipped\\s+1  ${d}`));
    // The one on screen at q was given back, not skipped.
    expect(screen).toMatch(new RegExp(`given back\\s+1  ${e}`));

    const after = await Promise.all(ids.map(summaryOf));
    expect(after.map((s) => [s.state, s.comments])).toEqual([
      ['APPROVED', null],
      ['DECLINED', 'card reported stolen'],
      ['ESCALATED', null],
      ['PENDING_REVIEW', null],
      ['PENDING_REVIEW', null],
    ]);

    const lines = readLog(log);
    // Each change is logged before it is sent (sending), then its outcome.
    const sentThenOk = (line: string) => [line.replace(/ok$/, 'sending'), line];
    expect(actions(lines)).toEqual([
      ...sentThenOk(`${a} claim PENDING_REVIEW→IN_REVIEW ok`),
      ...sentThenOk(`${a} approve IN_REVIEW→APPROVED ok`),
      ...sentThenOk(`${b} claim PENDING_REVIEW→IN_REVIEW ok`),
      ...sentThenOk(`${b} decline IN_REVIEW→DECLINED "card reported stolen" ok`),
      ...sentThenOk(`${c} claim PENDING_REVIEW→IN_REVIEW ok`),
      ...sentThenOk(`${c} escalate IN_REVIEW→ESCALATED ok`),
      ...sentThenOk(`${d} claim PENDING_REVIEW→IN_REVIEW ok`),
      ...sentThenOk(`${d} skip IN_REVIEW→PENDING_REVIEW ok`),
      ...sentThenOk(`${e} claim PENDING_REVIEW→IN_REVIEW ok`),
      ...sentThenOk(`${e} release IN_REVIEW→PENDING_REVIEW ok`),
    ]);
    for (const line of lines) {
      // Who, where, which build and session, the reason, and the line's place in the file's hash chain.
      expect(Object.keys(line)).toEqual([
        'time',
        'analyst',
        'host',
        'profile',
        'service',
        'version',
        'session',
        'eventId',
        'action',
        'from',
        'to',
        'comments',
        'requestId',
        'outcome',
        'status',
        'reason',
        'line',
        'prev',
        'hash',
      ]);
      if (line.outcome === 'sending') expect(line.requestId).toBeNull();
      else expect(line.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number.isNaN(Date.parse(line.time))).toBe(false);
    }
    // Each line ends with its own hash, which holds.
    expect(
      readFileSync(log, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => checkSeal(Buffer.from(l))),
    ).toEqual(lines.map(() => 'sealed'));
    expect(readFileSync(log, 'utf8')).not.toContain('sandbox-demo-key');
  });

  it('two sessions over the same queue never decide the same event', async () => {
    const ids = await reviewEvents('two', 4);
    const [e1, e2, e3, e4] = ids as [string, string, string, string];
    const logA = join(cli.dir, `a-${n}.log`);
    const logB = join(cli.dir, `b-${n}.log`);
    const sessionA = await terminal(['review', ...ids, '--log', logA]);
    await onEvent(sessionA, '1/4', e1);
    const sessionB = await terminal(['review', ...ids, '--log', logB]);
    // B passes over what A holds.
    const bFirst = await onEvent(sessionB, '2/4', e2);
    expect(bFirst).toContain(`passed over ${e1}: IN_REVIEW, claimed by another session`);

    await sessionA.send('a');
    await sessionA.waitFor('approve · comment');
    await sessionA.send('Enter');
    // A's next is e2, which B holds: A passes over it.
    await onEvent(sessionA, '3/4', e3);

    await sessionB.send('d');
    await sessionB.waitFor('decline · comment');
    await sessionB.send('Enter');
    await onEvent(sessionB, '4/4', e4);

    await sessionA.send('a');
    await sessionA.waitFor('approve · comment');
    await sessionA.send('Enter');
    const a = await sessionA.exited();
    expect(a.code).toBe(0);

    await sessionB.send('a');
    await sessionB.waitFor('approve · comment');
    await sessionB.send('Enter');
    const b = await sessionB.exited();
    expect(b.code).toBe(0);

    expect((await Promise.all(ids.map(summaryOf))).map((s) => s.state)).toEqual([
      'APPROVED',
      'DECLINED',
      'APPROVED',
      'APPROVED',
    ]);
    const decided = (path: string) =>
      readLog(path)
        .filter((l) => ['approve', 'decline', 'escalate', 'fraud'].includes(l.action) && l.outcome === 'ok')
        .map((l) => l.eventId);
    const byA = decided(logA);
    const byB = decided(logB);
    expect(byA).toEqual([e1, e3]);
    expect(byB).toEqual([e2, e4]);
    expect(byA.filter((id) => byB.includes(id))).toEqual([]);
    // A's summary reads the two it passed over again: e2, which B declined meanwhile, by its state; e4, B's still, as claimed.
    expect(a.screen).toMatch(new RegExp(`in state DECLINED \\(changed since it was passed over\\)\\s+1  ${e2}`));
    expect(a.screen).toMatch(new RegExp(`claimed by others\\s+1  ${e4}`));
  });

  it('a colleague declines while the comment is typed: at 80×24 their decision shows whole, and overturning it is asked first', async () => {
    const [id] = await reviewEvents('overturn', 1);
    const pty = await terminal(['review', id!]);
    await pty.waitFor(new RegExp(`^1/1\\s+${id}\\s.*claimed by you`, 'm'), 'claimed');
    await pty.send('a');
    await pty.waitFor('approve · comment:');
    await pty.type('looks fine');
    const colleague = { state: 'DECLINED', comments: 'DO NOT APPROVE: police case 7781' };
    expect((await cli.sb.call('PATCH', `/event/${id!}/state`, { body: colleague })).status).toBe(200);
    await pty.send('Enter');
    const conflict = await pty.waitFor(/^ {2}state IN_REVIEW → DECLINED$/m, 'the colleague’s decision, whole');
    expect(conflict).toMatch(/^ {2}comment \(none\) → "DO NOT APPROVE: police case 7781"$/m);
    // One more key asks; Enter is a no, and nothing is sent.
    await pty.send('a');
    await pty.waitFor(/Approve all the same,\s+overturning it\?/);
    await pty.send('Enter');
    await pty.waitFor('nothing sent: DECLINED stays as they set it');
    expect(await summaryOf(id!)).toMatchObject({ state: 'DECLINED', comments: 'DO NOT APPROVE: police case 7781' });
    await pty.send('q');
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(0);
    expect(await summaryOf(id!)).toMatchObject({ state: 'DECLINED', comments: 'DO NOT APPROVE: police case 7781' });
  });

  it('reads the ids from stdin and the keys from the terminal', async () => {
    const ids = await reviewEvents('stdin', 2);
    const list = join(cli.dir, `ids-${n}.txt`);
    writeFileSync(list, `# today's queue\n${ids[0]}\n\n${ids[1]}\n`);
    const pty = await terminal(['review', '--from', '-'], { stdinFile: list });
    await onEvent(pty, '1/2', ids[0]!);
    await pty.send('a');
    await pty.waitFor('approve · comment');
    await pty.type('ok');
    await pty.send('Enter');
    await onEvent(pty, '2/2', ids[1]!);
    await pty.send('q');
    const { code } = await pty.exited();
    expect(code).toBe(0);
    expect((await summaryOf(ids[0]!)).state).toBe('APPROVED');
    expect((await summaryOf(ids[1]!)).state).toBe('PENDING_REVIEW');
  });

  it('Ctrl-C gives the event on screen back and exits 130 with the summary', async () => {
    const ids = await reviewEvents('ctrlc', 2);
    const pty = await terminal(['review', ...ids]);
    await onEvent(pty, '1/2', ids[0]!);
    expect((await summaryOf(ids[0]!)).state).toBe('IN_REVIEW');
    await pty.send('C-c');
    const { code, screen } = await pty.exited();
    expect(code).toBe(130);
    expect(screen).toMatch(/Review session \(interrupted\)/);
    expect(screen).toMatch(new RegExp(`not reached\\s+1  ${ids[1]}`));
    expect((await summaryOf(ids[0]!)).state).toBe('PENDING_REVIEW');
  });

  it('a terminal that hangs up (SIGHUP: the window closed, ssh dropped) gives the event on screen back', async () => {
    const ids = await reviewEvents('hangup', 2);
    const log = join(cli.dir, `hangup-${n}.log`);
    const pty = await terminal(['review', ...ids, '--log', log]);
    await onEvent(pty, '1/2', ids[0]!);
    await expect.poll(() => summaryOf(ids[0]!).then((s) => s.state), { timeout: 10_000 }).toBe('IN_REVIEW');
    // tmux's server going away hangs up the terminal: the program gets SIGHUP and its screen is gone.
    await pty.kill();
    // The log says what happened: the claim, then its release.
    await expect
      .poll(() => readLog(log).map((l) => `${l.eventId} ${l.action} ${l.outcome}`), { timeout: 10_000 })
      .toEqual([`${ids[0]} claim sending`, `${ids[0]} claim ok`, `${ids[0]} release sending`, `${ids[0]} release ok`]);
    expect((await summaryOf(ids[0]!)).state).toBe('PENDING_REVIEW');
    expect((await summaryOf(ids[1]!)).state).toBe('PENDING_REVIEW');
  });
});

describe('fraudctl review of a hostile event', () => {
  const nasty = '\x1b[2J\x1b[H\x1b]0;pwned\x07\u009b31m\u202eevil\u2066\r\n\t名前';
  const big = (tag: string) => `${nasty}${tag}${'W'.repeat(100 * 1024)}`;

  it(
    'cannot break the screen: 100 KB of escapes and bidi controls in every field still fits 80×24, title untouched',
    { timeout: 60_000 },
    async () => {
      const summary: Record<string, unknown> = {
        id: 'hostile-1',
        totalScore: 99,
        state: 'PENDING_REVIEW',
        amount: 1,
        currency: big('cur'),
        items: [{ itemName: big('item'), itemQuantity: 1, itemPrice: 1, itemCategory: big('cat') }],
      };
      for (const k of [
        'eventDate',
        'userName',
        'userEmail',
        'userIp',
        'userCreated',
        'shippingCountry',
        'billingCountry',
        'comments',
        'baseCurrency',
      ])
        summary[k] = big(k);
      const risk = {
        eventId: 'hostile-1',
        actionType: big('action'),
        totalRiskScore: 99,
        alerts: Array.from({ length: 12 }, (_, i) => ({
          ruleId: big(`rule${i}`),
          name: big('name'),
          severity: big('sev'),
          score: i,
          description: big('desc'),
        })),
        listMatches: [{ list: big('list'), field: big('field'), value: big('value') }],
      };
      const { url } = await listen((req, res) => {
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-request-id', 'req-1');
        if (req.url?.endsWith('/risk-assessment')) return res.end(JSON.stringify(risk));
        if (req.method === 'PATCH') {
          let body = '';
          req.on('data', (d: Buffer) => (body += d.toString()));
          req.on('end', () => {
            summary.state = (JSON.parse(body) as { state?: string }).state ?? summary.state;
            res.end(JSON.stringify(summary));
          });
          return;
        }
        res.end(JSON.stringify(summary));
      });

      // About 6 MB of answers to parse and cut: more time per wait on a busy machine.
      const pty = await terminal(['review', 'hostile-1', '--base-url', url], { timeoutMs: 20_000 });
      const screen = await pty.waitFor(/^1\/1 {2}hostile-1 .*claimed by you/m);
      const lines = screen.split('\n');
      expect(lines.length).toBeLessThanOrEqual(24);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
      expect(lines[0]).toMatch(/^1\/1 {2}hostile-1 {3}\\x1b\[2J/);
      expect(lines.at(-1)).toMatch(/q quit$/);
      expect(screen).toContain('\\u202eevil');
      expect(await pty.title()).not.toContain('pwned');
      await pty.send('v');
      const everything = await pty.waitFor('everything');
      for (const line of everything.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
      expect(await pty.title()).not.toContain('pwned');
      await pty.send('v', 'q');
      expect((await pty.exited()).code).toBe(0);
    },
  );
});
