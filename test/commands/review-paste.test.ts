import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { postInReview, reviewExample } from '../support/event-fixtures.js';

/*
 * Keys that were never pressed: a paste (tmux paste-buffer -p, bracketed as a terminal sends it
 * when the program asks) is text on the comment line and nothing elsewhere; a window too small
 * for the decision keys takes none of them until it is resized. Real CLI, real sandbox, tmux.
 */

const cli = useSandboxForCli();
let opened: Pty[] = [];
afterEach(async () => {
  await Promise.all(opened.map((p) => p.kill()));
  opened = [];
});

let n = 0;
/** Events in review as the example scores them (items, alerts, a list match), ids unique to the test. */
async function reviewEvents(count: number): Promise<string[]> {
  n++;
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const id = `pp-${n}-${i}`;
    ids.push(
      await postInReview(
        cli.sb,
        reviewExample(id, { userEmail: `${id}@example.com`, userIp: `198.51.100.${n * 3 + i}` }),
      ),
    );
  }
  return ids;
}
const summaryOf = async (id: string) => (await cli.sb.call('GET', `/event/${id}`)).json as EventSummary;

async function terminal(
  args: string[],
  options: { width?: number; height?: number; recordTo?: string } = {},
): Promise<Pty> {
  const pty = await startOnTerminal(args, { env: cli.env(), ...options });
  opened.push(pty);
  return pty;
}

const onEvent = (pty: Pty, position: string, id: string) =>
  pty.waitFor(new RegExp(`^${position}\\s+${id}\\s.*claimed by you`, 'm'), `${position} ${id} claimed`);

const BRACKETED_ON = '\x1b[?2004h';
const BRACKETED_OFF = '\x1b[?2004l';

/** Bracketed paste was turned on while the queue ran, and off again after the last time it was turned on. */
function expectBracketedPasteOffAtTheEnd(file: string): void {
  const bytes = readFileSync(file, 'latin1');
  const on = bytes.lastIndexOf(BRACKETED_ON);
  expect(on).toBeGreaterThanOrEqual(0);
  expect(bytes.indexOf(BRACKETED_OFF, on)).toBeGreaterThan(on);
}

describe('a paste in review', () => {
  it('on an event screen does nothing to the event (and says so); bracketed paste is off again after q', async () => {
    const [a, b] = (await reviewEvents(2)) as [string, string];
    const record = join(cli.dir, `out-${n}.bin`);
    const pty = await terminal(['review', a, b], { recordTo: record });
    await onEvent(pty, '1/2', a);
    // What took the event before: `s` skipped it, then `e` escalated the next one, unseen.
    await pty.paste('Customer called, address verified\n');
    const screen = await pty.waitFor('paste ignored: a paste is taken only as a comment');
    expect(screen).toMatch(new RegExp(`^1/2\\s+${a}\\s.*claimed by you`, 'm'));
    expect(screen).not.toContain('comment:');
    expect(await summaryOf(a)).toMatchObject({ state: 'IN_REVIEW', comments: null });
    expect(await summaryOf(b)).toMatchObject({ state: 'PENDING_REVIEW', comments: null });
    await pty.send('q');
    const { code } = await pty.exited();
    expect(code).toBe(0);
    expect(await summaryOf(a)).toMatchObject({ state: 'PENDING_REVIEW', comments: null });
    expect(await summaryOf(b)).toMatchObject({ state: 'PENDING_REVIEW', comments: null });
    expectBracketedPasteOffAtTheEnd(record);
  });

  it('on the comment line a multi-line paste is one line of text, and nothing is sent until Enter', async () => {
    const [a] = (await reviewEvents(1)) as [string];
    const record = join(cli.dir, `out-${n}.bin`);
    const pty = await terminal(['review', a], { recordTo: record });
    await onEvent(pty, '1/1', a);
    await pty.send('e');
    await pty.waitFor('escalate · comment');
    await pty.paste('Customer called\naddress verified\n\tby phone\n');
    await pty.waitFor('escalate · comment: Customer called address verified  by phone');
    // The paste is all on the line, its line breaks were not Enter: nothing was sent.
    expect(await summaryOf(a)).toMatchObject({ state: 'IN_REVIEW', comments: null });
    await pty.send('Enter');
    const { code } = await pty.exited();
    expect(code).toBe(0);
    expect(await summaryOf(a)).toMatchObject({
      state: 'ESCALATED',
      comments: 'Customer called address verified  by phone',
    });
    expectBracketedPasteOffAtTheEnd(record);
  });

  it('Ctrl-C turns bracketed paste off too', async () => {
    const [a] = (await reviewEvents(1)) as [string];
    const record = join(cli.dir, `out-${n}.bin`);
    const pty = await terminal(['review', a], { recordTo: record });
    await onEvent(pty, '1/1', a);
    await pty.send('C-c');
    const { code } = await pty.exited();
    expect(code).toBe(130);
    expectBracketedPasteOffAtTheEnd(record);
  });

  it('a hang-up signal (SIGHUP) ends the session with bracketed paste off, the event given back', async () => {
    const [a] = (await reviewEvents(1)) as [string];
    const record = join(cli.dir, `out-${n}.bin`);
    const pty = await terminal(['review', a], { recordTo: record });
    await onEvent(pty, '1/1', a);
    process.kill((await pty.pids()).program, 'SIGHUP');
    await pty.exited();
    expectBracketedPasteOffAtTheEnd(record);
    expect((await summaryOf(a)).state).toBe('PENDING_REVIEW');
  });
});

describe('keys typed ahead', () => {
  it('never act on the next event before it was on screen: `se` skips this one, and the e is not taken', async () => {
    const [a, b] = (await reviewEvents(2)) as [string, string];
    const pty = await terminal(['review', a, b]);
    await onEvent(pty, '1/2', a);
    // The second event was fetched ahead: without the check, e escalates it before it is drawn.
    await pty.type('se');
    const screen = await onEvent(pty, '2/2', b);
    expect(screen).not.toContain('escalate · comment');
    expect(screen).toContain('a approve');
    await pty.send('q');
    expect((await pty.exited()).code).toBe(0);
    expect(await summaryOf(b)).toMatchObject({ state: 'PENDING_REVIEW', comments: null });
  });
});

describe('review on a window too small for the decision keys', () => {
  it.each([
    [80, 12],
    [45, 14],
    [40, 10],
  ])(
    'at %i×%i it says how big it must be and takes no decision key until resized; q gives the event back',
    async (width, height) => {
      const [a, b] = (await reviewEvents(2)) as [string, string];
      const pty = await terminal(['review', a, b], { width, height });
      const small = await pty.waitFor(/at least \d+×\d+/);
      const flat = small.replace(/\s+/g, ' ');
      expect(flat).toContain('The window is too small for the event and its keys');
      expect(flat).toContain('No decision is taken until then.');
      expect(small).not.toContain('approve');
      expect(small.split('\n').at(-1)).toBe('q quit');
      const [, w, h] = /at least (\d+)×(\d+)/.exec(flat)!.map(Number) as [string, number, number];
      // Keys that would decide or skip: none is taken, and the screen counts them.
      await pty.send('a', 'd', 's', 'Enter');
      await pty.waitFor('4 keys not taken');
      await pty.resize(w, h);
      const fits = await pty.waitFor(/a approve/);
      expect(fits).toMatch(new RegExp(`^1/2\\s+${a}\\b`, 'm'));
      expect(fits).not.toContain('comment:');
      expect(fits).toMatch(/score \d+/);
      expect(fits).toMatch(/Alerts \(\d+\)/);
      expect(fits).toContain('q quit');
      expect(await summaryOf(a)).toMatchObject({ state: 'IN_REVIEW', comments: null });
      // Smaller again: q still quits and gives the claim back.
      await pty.resize(width, height);
      await pty.waitFor('too small');
      await pty.send('q');
      const { code } = await pty.exited();
      expect(code).toBe(0);
      expect(await summaryOf(a)).toMatchObject({ state: 'PENDING_REVIEW', comments: null });
      expect((await summaryOf(b)).state).toBe('PENDING_REVIEW');
    },
  );
});
