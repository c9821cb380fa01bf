import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, type CliResult } from '../support/cli.js';
import { notOnWindows } from '../support/prerequisites.js';
import type { EventSummary } from '../../src/contract/index.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { send } from '../support/sandbox.js';
import { useServer } from '../support/listen.js';
import { inReview, postInReview } from '../support/event-fixtures.js';

/*
 * One-event set-state sends what the person saw: the event is read again just before the PATCH
 * (a colleague's decision or note in between is said, and asked about again, or a CONFLICT off a
 * terminal), and a comment never silently replaces the one the event has. Runs off a terminal
 * are in-process (main() against a sandbox on port 0); terminals and the hints run in sh are
 * processes.
 */

const cli = useSandboxInProcess();
let opened: Pty[] = [];
afterEach(async () => {
  await Promise.all(opened.map((p) => p.kill()));
  opened = [];
});

let n = 0;
const reviewEvent = (prefix = 'rq') => postInReview(cli.sb, inReview(`${prefix}-${++n}`));
const summaryOf = async (id: string) => (await cli.sb.call('GET', `/event/${id}`)).json as EventSummary;
/** A colleague, through the service: decides or comments on the event. */
const colleague = (id: string, change: { state?: string; comments?: string }) =>
  cli.sb.call('PATCH', `/event/${id}/state`, { body: change });

/** A hint run as printed, in sh, `fraudctl` being this build. */
function runHint(hint: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  const fraudctl = `fraudctl() { '${process.execPath}' '${BIN}' "$@"; }`;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${fraudctl}; ${hint}`], { env });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end();
  });
}

async function terminal(args: string[]): Promise<Pty> {
  // Wide enough that no question wraps.
  const pty = await startOnTerminal(args, { env: cli.env(), width: 200 });
  opened.push(pty);
  return pty;
}

describe('set-state on a terminal reads the event again before the change', () => {
  it('a colleague declines while the confirmation is up: Enter shows what changed and asks again (default no); nothing is sent', async () => {
    const id = await reviewEvent();
    const pty = await terminal(['set-state', id, '--state', 'APPROVED', '--comments', 'looks fine']);
    await pty.waitFor(`Change ${id}: PENDING_REVIEW → APPROVED with comment "looks fine"? (Y/n)`);
    expect((await colleague(id, { state: 'DECLINED', comments: 'fraud ring' })).status).toBe(200);
    await pty.send('Enter');
    // What changed, then the comment it now has: keep it or replace it (n), then the question again.
    const screen = await pty.waitFor(
      `${id} has a comment: "fraud ring". Keep it (yours is added after it; n replaces it)? (Y/n)`,
    );
    expect(screen).toContain(
      `${id} changed since you read it: state PENDING_REVIEW → DECLINED; comment (none) → "fraud ring"`,
    );
    await pty.send('n', 'Enter');
    await pty.waitFor(`Change ${id}: DECLINED → APPROVED with comment "looks fine" replacing "fraud ring"? (y/N)`);
    await pty.send('Enter');
    const { code, screen: last } = await pty.exited();
    expect(last).toContain('cancelled: nothing was changed');
    expect(code).toBe(130);
    expect(await summaryOf(id)).toMatchObject({ state: 'DECLINED', comments: 'fraud ring' });
  });

  it('asked again after a change, y sends it and the line says the state it was changed from', async () => {
    const id = await reviewEvent();
    const pty = await terminal(['set-state', id, '--state', 'ESCALATED']);
    await pty.waitFor('Comments (optional)');
    await pty.send('Enter');
    await pty.waitFor(`Change ${id}: PENDING_REVIEW → ESCALATED? (Y/n)`);
    expect((await colleague(id, { state: 'IN_REVIEW' })).status).toBe(200);
    await pty.send('Enter');
    await pty.waitFor(`Change ${id}: IN_REVIEW → ESCALATED? (y/N)`);
    await pty.send('y', 'Enter');
    const { code, screen } = await pty.exited();
    expect(screen).toContain(`${id}  IN_REVIEW → ESCALATED`);
    expect(screen).not.toContain('PENDING_REVIEW → ESCALATED\n');
    expect(code).toBe(0);
    expect((await summaryOf(id)).state).toBe('ESCALATED');
  });

  it('the comment question shows the note the event has, and Enter keeps it with the new one after it', async () => {
    const id = await reviewEvent();
    await colleague(id, { comments: 'waiting for ID documents' });
    const pty = await terminal(['set-state', id, '--state', 'ESCALATED']);
    await pty.waitFor('Comments (optional; the event has "waiting for ID documents")');
    await pty.type('documents received');
    await pty.send('Enter');
    await pty.waitFor(
      `${id} has a comment: "waiting for ID documents". Keep it (yours is added after it; n replaces it)? (Y/n)`,
    );
    await pty.send('Enter');
    await pty.waitFor(`with comment "documents received" after "waiting for ID documents"? (Y/n)`);
    await pty.send('Enter');
    const { code, screen } = await pty.exited();
    expect(screen).toContain(`${id}  PENDING_REVIEW → ESCALATED  comment added after the one it had`);
    expect(code).toBe(0);
    expect(await summaryOf(id)).toMatchObject({
      state: 'ESCALATED',
      comments: 'waiting for ID documents | documents received',
    });
  });
});

/**
 * A stand-in in front of the sandbox that lets a colleague act on the event right after the
 * CLI's first read of it: the CLI's read again before the PATCH then sees the change. What the
 * CLI sent is recorded.
 */
describe('set-state off a terminal: a change between the read and the PATCH', () => {
  const seen: string[] = [];
  let afterFirstRead: (() => Promise<unknown>) | null = null;
  const server = useServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        seen.push(`${req.method} ${req.url}`);
        const key = req.headers['x-client-api-key'];
        const body = Buffer.concat(chunks).toString();
        const reply = await send(cli.sb.url, req.method!, req.url!, {
          key: typeof key === 'string' ? key : null,
          ...(body !== '' ? { rawBody: body } : {}),
        });
        const hook = req.method === 'GET' ? afterFirstRead : null;
        afterFirstRead = null;
        if (hook) await hook();
        res.statusCode = reply.status;
        for (const name of ['content-type', 'x-request-id'])
          if (reply.headers[name] !== undefined) res.setHeader(name, reply.headers[name]!);
        res.end(reply.text);
      })();
    });
  });

  it('exits 1 with a CONFLICT naming what changed, and sends no PATCH', async () => {
    const id = await reviewEvent();
    seen.length = 0;
    afterFirstRead = () => colleague(id, { state: 'DECLINED', comments: 'fraud ring' });
    const result = await cli.run(['set-state', id, '--state', 'APPROVED', '--yes'], {
      env: { FRAUDCTL_BASE_URL: server.url },
    });
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: CONFLICT: ${id} changed since it was read \\(state PENDING_REVIEW → DECLINED; comment \\(none\\) → "fraud ring"\\): nothing was sent$`,
        'm',
      ),
    );
    expect(result.stderr).toContain(`fraudctl show ${id}`);
    expect(result.code).toBe(1);
    expect(seen).toEqual([`GET /event/${id}`, `GET /event/${id}`]);
    expect(await summaryOf(id)).toMatchObject({ state: 'DECLINED', comments: 'fraud ring' });
  });

  it('a change of the comment alone is a conflict too (the note would be lost)', async () => {
    const id = await reviewEvent();
    seen.length = 0;
    afterFirstRead = () => colleague(id, { comments: 'call the bank first' });
    const result = await cli.run(['set-state', id, '--state', 'IN_REVIEW', '--json'], {
      env: { FRAUDCTL_BASE_URL: server.url },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(comment (none) → "call the bank first"): nothing was sent');
    expect(seen.filter((s) => s.startsWith('PATCH'))).toEqual([]);
    expect(await summaryOf(id)).toMatchObject({ state: 'PENDING_REVIEW', comments: 'call the bank first' });
  });

  it('without a change in between it reads twice, then sends', async () => {
    const id = await reviewEvent();
    seen.length = 0;
    const result = await cli.run(['set-state', id, '--state', 'APPROVED'], { env: { FRAUDCTL_BASE_URL: server.url } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${id}  PENDING_REVIEW → APPROVED\n`);
    expect(seen).toEqual([`GET /event/${id}`, `GET /event/${id}`, `PATCH /event/${id}/state`]);
  });
});

describe('set-state off a terminal never replaces a comment it was not told to', () => {
  it('--comments on an event with a comment: exit 2, nothing sent, the hint is a command that works', async () => {
    const id = await reviewEvent();
    await colleague(id, { comments: 'fraud ring (alice)' });
    const result = await cli.run(['set-state', id, '--state', 'DECLINED', '--comments', 'same card as rq-1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: ${id} has a comment \\("fraud ring \\(alice\\)"\\), which --comments would replace: nothing was sent$`,
        'm',
      ),
    );
    expect(await summaryOf(id)).toMatchObject({ state: 'PENDING_REVIEW', comments: 'fraud ring (alice)' });
    // The hint, run as written (its words as a shell would split them), keeps the note.
    const hint = /keep it and add yours after it: fraudctl (.*); or replace it/.exec(result.stderr)![1]!;
    const words = [...hint.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
    const again = await cli.run(words);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`${id}  PENDING_REVIEW → DECLINED  comment added after the one it had\n`);
    expect(await summaryOf(id)).toMatchObject({
      state: 'DECLINED',
      comments: 'fraud ring (alice) | same card as rq-1',
    });
  });

  it('both hints keep --reason, --log and the service options: run as printed under require-reason, they record the code', async () => {
    notOnWindows('the hints are run in sh');
    for (const args of [
      ['config', 'set', 'base-url', cli.sb.url, '--profile', 'strict'],
      ['config', 'set', 'reasons', 'stolen-card', '--profile', 'strict'],
      ['config', 'set', 'require-reason', 'true', '--profile', 'strict'],
    ]) {
      const set = await cli.run(args);
      expect(set.code, set.stderr).toBe(0);
    }
    const choices = [
      ['keep it and add yours after it', 'police case 7781 | [reason: stolen-card] card reported'],
      ['or replace it', '[reason: stolen-card] card reported'],
    ] as const;
    for (const [choice, comments] of choices) {
      const id = await reviewEvent();
      await colleague(id, { comments: 'police case 7781' });
      const log = join(cli.dir, `hint-${id}.log`);
      const result = await cli.run([
        ...['--profile', 'strict', 'set-state', id, '--state', 'declined'],
        ...['--reason', 'stolen-card', '--comments', 'card reported', '--log', log],
      ]);
      expect(result.code, result.stderr).toBe(2);
      const hint = new RegExp(`${choice}: (fraudctl [^;]*?)(;|$)`, 'm').exec(result.stderr)?.[1];
      expect(hint, result.stderr).toBeDefined();
      const again = await runHint(hint!, cli.env());
      expect(again.code, `${hint}\n${again.stderr}`).toBe(0);
      expect(await summaryOf(id)).toMatchObject({ state: 'DECLINED', comments });
      const lines = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { reason: string | null; outcome: string });
      expect(lines.map((l) => [l.outcome, l.reason])).toEqual([
        ['sending', 'stolen-card'],
        ['ok', 'stolen-card'],
      ]);
    }
  });

  it('--replace-comment replaces it and says so; the same comment again replaces nothing', async () => {
    const id = await reviewEvent();
    await colleague(id, { comments: 'old note' });
    const result = await cli.run(['set-state', id, '--comments', 'new note', '--replace-comment']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${id}  PENDING_REVIEW  comment recorded (replacing the one it had)\n`);
    expect((await summaryOf(id)).comments).toBe('new note');
    const same = await cli.run(['set-state', id, '--state', 'IN_REVIEW', '--comments', 'new note']);
    expect(same.code, same.stderr).toBe(0);
  });

  it('a script that does not touch comments keeps working on an event with a comment', async () => {
    const id = await reviewEvent();
    await colleague(id, { comments: 'keep me' });
    const result = await cli.run(['set-state', id, '--state', 'APPROVED']);
    expect(result.code, result.stderr).toBe(0);
    expect(await summaryOf(id)).toMatchObject({ state: 'APPROVED', comments: 'keep me' });
  });

  it("--dry-run with --append-comment reads the event and shows the comment the real run would send, the event's first", async () => {
    const id = await reviewEvent();
    await colleague(id, { comments: 'keep me' });
    const result = await cli.run(['set-state', id, '--comments', 'called', '--append-comment', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('"comments": "keep me | called"');
    expect(await summaryOf(id)).toMatchObject({ state: 'PENDING_REVIEW', comments: 'keep me' });
  });

  it('refuses both flags together, and either without --comments', async () => {
    const both = await cli.run(['set-state', 'x-1', '--comments', 'a', '--append-comment', '--replace-comment']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^error: --append-comment and --replace-comment cannot be used together$/m);
    const alone = await cli.run(['set-state', 'x-1', '--state', 'APPROVED', '--append-comment']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^error: --append-comment goes with --comments$/m);
  });
});

describe('set-state on an event held in a review session', () => {
  it('off a terminal says who holds it and since when (the team’s log), sends nothing (exit 1); the hint, run as printed, goes on', async () => {
    notOnWindows('the hint is run in sh');
    for (const args of [
      ['config', 'set', 'base-url', cli.sb.url, '--profile', 'desk'],
      ['config', 'set', 'analyst', 'Ann Lee', '--profile', 'desk'],
    ]) {
      const set = await cli.run(args);
      expect(set.code, set.stderr).toBe(0);
    }
    const id = await reviewEvent('held');
    const other = await reviewEvent('held');
    const log = join(cli.dir, `team-${id}.log`);
    const pty = await startOnTerminal(['review', id, '--log', log, '--profile', 'desk'], { env: cli.env() });
    opened.push(pty);
    await pty.waitFor(/claimed by you/, 'Ann’s claim');
    const result = await cli.run(['set-state', id, '--state', 'approved', '--log', log]);
    expect(result.code, result.stderr).toBe(1);
    const since = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ, \\d+m ago';
    const claimed = `^error: CLAIMED: ${id} is IN_REVIEW, claimed in review by Ann Lee \\(host [^)]+\\) since ${since}: nothing was sent$`;
    expect(result.stderr).toMatch(new RegExp(claimed, 'm'));
    expect((await summaryOf(id)).state).toBe('IN_REVIEW');
    // Without the log, what is known, and how to know more.
    const bare = await cli.run(['set-state', id, '--state', 'approved']);
    expect(bare.code).toBe(1);
    const unnamed =
      "claimed for review by another session (the team's action log (--log FILE) would say who and since when)";
    expect(bare.stderr).toContain(`CLAIMED: ${id} is IN_REVIEW, ${unnamed}: nothing was sent`);
    // Many: its own outcome, exit 1; the other event changes.
    const many = await cli.run(['set-state', id, other, '--state', 'approved', '--yes', '--json', '--log', log]);
    expect(many.code, many.stderr).toBe(1);
    const lines = many.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; outcome: string; reason: string | null });
    const why = /^IN_REVIEW, claimed in review by Ann Lee .* ago: not changed \(--include-claimed changes it\)$/;
    expect(lines.find((l) => l.id === id)).toMatchObject({ outcome: 'CLAIMED', reason: expect.stringMatching(why) });
    expect(lines.find((l) => l.id === other)).toMatchObject({ outcome: 'CHANGED' });
    expect(many.stderr).toMatch(/"claimed": 1/);
    expect(many.stderr).toContain('1 held in a review session (--include-claimed changes them)');
    const hint = /to change it all the same: (fraudctl .*)$/m.exec(result.stderr)?.[1];
    expect(hint, result.stderr).toContain('--include-claimed');
    const again = await runHint(hint!, cli.env());
    expect(again.code, again.stderr).toBe(0);
    expect((await summaryOf(id)).state).toBe('APPROVED');
  });
});
