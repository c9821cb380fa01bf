import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { runInProcess } from '../support/in-process-cli.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { inReview, postInReview } from '../support/event-fixtures.js';

/*
 * In `review`: after a decision key the profile's reason codes for it are
 * offered, one number key each; Enter goes on without one unless the profile requires one. The
 * real CLI on a real terminal (tmux, 80×24) against the sandbox: the comment the service keeps
 * (`[reason: CODE] …`, the form of set-state --reason) and the log's `reason` are the proof.
 */

const cli = useSandboxForCli();
let opened: Pty[] = [];
afterEach(async () => {
  await Promise.all(opened.map((p) => p.kill()));
  opened = [];
});

const CODES = 'stolen-card,friendly-fraud:DECLINED+FRAUD_CONFIRMED,customer-confirmed:APPROVED';

async function profile(name: string, options: { required?: boolean } = {}): Promise<void> {
  for (const args of [
    ['config', 'set', 'base-url', cli.sb.url, '--profile', name],
    ['config', 'set', 'reasons', CODES, '--profile', name],
    ...(options.required ? [['config', 'set', 'require-reason', 'true', '--profile', name]] : []),
  ]) {
    // In this process: setting a profile needs no process of its own.
    const set = await runInProcess(args, cli.env());
    expect(set.code, set.stderr).toBe(0);
  }
}

let n = 0;
async function reviewEvents(count: number): Promise<string[]> {
  n++;
  const ids: string[] = [];
  for (let i = 1; i <= count; i++)
    ids.push(await postInReview(cli.sb, inReview(`why-${n}-${i}`, { userEmail: `w${n}-${i}@example.com` })));
  return ids;
}

async function terminal(args: string[]): Promise<Pty> {
  const pty = await startOnTerminal(args, { env: cli.env() });
  opened.push(pty);
  return pty;
}

const eventOf = async (id: string) => (await cli.sb.call('GET', `/event/${id}`)).json as EventSummary;
const logLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const onEvent = (pty: Pty, position: string, id: string) =>
  pty.waitFor(new RegExp(`^${position}\\s+${id}\\s.*claimed by you`, 'm'), `${position} ${id} claimed`);

describe('review: reason codes by key', () => {
  it('offers the codes for the decision by number; the one chosen heads the comment the service keeps and is the log line’s reason', async () => {
    await profile('team');
    const [a, b] = await reviewEvents(2);
    const log = join(cli.dir, `reasons-${n}.log`);
    const pty = await terminal(['review', a!, b!, '--log', log, '--profile', 'team']);
    await onEvent(pty, '1/2', a!);
    await pty.send('d');
    // Every code for DECLINED: the one for any change and the one for DECLINED; not the one for APPROVED.
    const offered = await pty.waitFor(
      /decline · reason:\n {2}1 stolen-card {2}2 friendly-fraud$/m,
      'the codes for a decline, by number',
    );
    expect(offered).not.toContain('customer-confirmed');
    expect(offered).toContain('Enter: no reason · Esc: back, nothing sent');
    await pty.send('2');
    await pty.waitFor('decline · [reason: friendly-fraud] comment:', 'the comment line, the reason chosen');
    await pty.type('chargeback before');
    await pty.send('Enter');
    await onEvent(pty, '2/2', b!);
    // Approving offers the codes for APPROVED: friendly-fraud (for declines) is not among them.
    await pty.send('a');
    const forApprove = await pty.waitFor(
      /approve · reason:\n {2}1 stolen-card {2}2 customer-confirmed$/m,
      'the codes for an approval',
    );
    expect(forApprove).not.toContain('friendly-fraud');
    await pty.send('2');
    await pty.waitFor('approve · [reason: customer-confirmed] comment:');
    // No text: the reason alone is the comment.
    await pty.send('Enter');
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(0);

    expect(await eventOf(a!)).toMatchObject({
      state: 'DECLINED',
      comments: '[reason: friendly-fraud] chargeback before',
    });
    expect(await eventOf(b!)).toMatchObject({ state: 'APPROVED', comments: '[reason: customer-confirmed]' });
    const decided = logLines(log).filter((l) => l.action === 'decline' || l.action === 'approve');
    expect(decided.map((l) => [l.eventId, l.action, l.outcome, l.reason, l.comments])).toEqual([
      [a, 'decline', 'sending', 'friendly-fraud', '[reason: friendly-fraud] chargeback before'],
      [a, 'decline', 'ok', 'friendly-fraud', '[reason: friendly-fraud] chargeback before'],
      [b, 'approve', 'sending', 'customer-confirmed', '[reason: customer-confirmed]'],
      [b, 'approve', 'ok', 'customer-confirmed', '[reason: customer-confirmed]'],
    ]);
    // Claims and give-backs carry no reason.
    expect(
      logLines(log)
        .filter((l) => l.action === 'claim')
        .every((l) => l.reason === null),
    ).toBe(true);
    const verified = await runInProcess(['log', 'verify', log], cli.env());
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  });

  it('Enter with a reason and nothing typed keeps a colleague’s note: the screen says so, the service keeps it, the reason after it', async () => {
    await profile('team');
    const [a] = await reviewEvents(1);
    await cli.sb.call('PATCH', `/event/${a!}/state`, { body: { comments: 'DO NOT APPROVE: police case 7781' } });
    const pty = await terminal(['review', a!, '--profile', 'team']);
    await onEvent(pty, '1/1', a!);
    await pty.send('d');
    await pty.waitFor(/decline · reason:/);
    await pty.send('1');
    await pty.waitFor(
      'keeps its comment, the reason after it: "DO NOT APPROVE: police case 7781"',
      'what Enter sends, on screen',
    );
    await pty.send('Enter');
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(0);
    expect(await eventOf(a!)).toMatchObject({
      state: 'DECLINED',
      comments: 'DO NOT APPROVE: police case 7781 | [reason: stolen-card]',
    });
  });

  it('Enter skips the reason when the profile does not require one: the comment as typed, the log’s reason null', async () => {
    await profile('team');
    const [a] = await reviewEvents(1);
    const log = join(cli.dir, `skip-${n}.log`);
    const pty = await terminal(['review', a!, '--log', log, '--profile', 'team']);
    await onEvent(pty, '1/1', a!);
    await pty.send('e');
    await pty.waitFor(/escalate · reason:\n {2}1 stolen-card$/m, 'the one code for an escalation');
    await pty.send('Enter');
    await pty.waitFor(/escalate · comment:/, 'the comment line, no reason');
    await pty.type('senior please');
    await pty.send('Enter');
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(0);
    expect(await eventOf(a!)).toMatchObject({ state: 'ESCALATED', comments: 'senior please' });
    expect(
      logLines(log)
        .filter((l) => l.action === 'escalate')
        .map((l) => l.reason),
    ).toEqual([null, null]);
  });

  it('require-reason: Enter does not go on without a code, and says so; nothing is sent until one is chosen', async () => {
    await profile('strict', { required: true });
    const [a] = await reviewEvents(1);
    const log = join(cli.dir, `strict-${n}.log`);
    const pty = await terminal(['review', a!, '--log', log, '--profile', 'strict']);
    await onEvent(pty, '1/1', a!);
    await pty.send('d');
    await pty.waitFor('a reason is required · Esc: back, nothing sent');
    await pty.send('Enter');
    await pty.waitFor('profile "strict" requires a reason for a change of state: press 1-2', 'the refusal on screen');
    // Nothing went to the service, nor to the log beyond the claim.
    expect((await eventOf(a!)).state).toBe('IN_REVIEW');
    expect(logLines(log).map((l) => l.action)).toEqual(['claim', 'claim']);
    // A key that is not a code's does nothing either.
    await pty.send('7');
    await pty.send('1');
    await pty.waitFor('decline · [reason: stolen-card] comment:');
    await pty.send('Enter');
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(0);
    expect(await eventOf(a!)).toMatchObject({ state: 'DECLINED', comments: '[reason: stolen-card]' });
    expect(
      logLines(log)
        .filter((l) => l.action === 'decline')
        .map((l) => l.reason),
    ).toEqual(['stolen-card', 'stolen-card']);
  });

  it('a comment only (c) is offered the codes for any change and never requires one; Esc on the codes goes back, nothing sent', async () => {
    await profile('strict2', { required: true });
    const [a] = await reviewEvents(1);
    const pty = await terminal(['review', a!, '--profile', 'strict2']);
    await onEvent(pty, '1/1', a!);
    await pty.send('c');
    const offered = await pty.waitFor(/comment · reason:\n {2}1 stolen-card$/m, 'only the code for any change');
    expect(offered).toContain('Enter: no reason');
    await pty.send('Escape');
    await pty.waitFor(/a approve {2}d decline/, 'back to the keys');
    await pty.send('q');
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(0);
    expect(await eventOf(a!)).toMatchObject({ state: 'PENDING_REVIEW' });
    expect((await eventOf(a!)).comments ?? null).toBeNull();
  });
});
