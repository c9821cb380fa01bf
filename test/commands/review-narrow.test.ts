import { describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { MAX_COMMENT_LENGTH } from '../../src/contract/limits.js';
import { COMMENT_KEYS, KEYMAP } from '../../src/review-queue/keymap.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { needIn } from '../support/prerequisites.js';
import { postInReview, reviewExample } from '../support/event-fixtures.js';

/*
 * The review screen on narrow and wide terminals (tmux at 60, 80 and 100 columns, 24 rows), with
 * an event id as long as a UUID: the id, the amounts, the state and the country comparison are
 * whole at every width (the labels and free text give way); `?` wraps, never cuts; the comment
 * line counts towards the service's limit and says when it is reached.
 */

const cli = useSandboxForCli();

const event = (id: string, email: string) => postInReview(cli.sb, reviewExample(id, { userEmail: email }));

/** The `?` screen's help lines, put together from its pages (the title says which lines a page shows). */
async function wholeHelp(pty: Pty, width: number): Promise<string[]> {
  const lines: string[] = [];
  for (let page = 0; page < 5; page++) {
    const screen = await pty.waitFor(/^fraudctl review: keys/m, '? screen');
    const rows = screen.split('\n');
    for (const row of rows) expect(row.length, screen).toBeLessThanOrEqual(width);
    expect(screen).not.toContain('…');
    const at = /lines (\d+)–(\d+) of (\d+)/.exec(rows[0]!);
    const body = rows.slice(1, -1);
    if (!at) return body;
    body.forEach((row, i) => (lines[Number(at[1]) - 1 + i] = row));
    if (at[2] === at[3]) return lines;
    await pty.send('Space');
    await pty.waitFor(new RegExp(`lines (?!${at[1]}–)\\d+–\\d+ of`), 'the next page');
  }
  throw new Error('the help never ended');
}

const collapse = (text: string) => text.replace(/\s+/g, ' ');

// The three widths side by side, each on a terminal, with events and a tmux server of its own:
// most of a test's time is waiting for a screen to be drawn, which they can overlap.
describe.concurrent('fraudctl review on a terminal of 60, 80 and 100 columns', () => {
  it.for([60, 80, 100])(
    '%i columns: the id, amounts, state and countries whole; ? wrapped; the comment limit shown',
    async (width, { onTestFinished, skip }) => {
      needIn({ skip }, 'tmux');
      // As long as a UUID, unique to the width.
      const id = `7c1e0b2a-5d3f-4a6b-8c9d-0e1f2a3b4${String(width).padStart(3, '0')}`;
      const next = `next-${width}`;
      // Long, and one per width (the sandbox's velocity rule counts orders per email).
      const email = `martin.voss.long.address.${width}@example.org`;
      await Promise.all([event(id, email), event(next, `next.${width}@example.org`)]);
      const pty = await startOnTerminal(['review', id, next], { env: cli.env(), width, height: 24 });
      onTestFinished(() => pty.kill());

      const screen = await pty.waitFor(/IN_REVIEW \((claimed by you|yours)\)/, 'the event claimed');
      const rows = screen.split('\n');
      expect(rows.length).toBeLessThanOrEqual(24);
      for (const row of rows) expect(row.length, screen).toBeLessThanOrEqual(width);
      expect(rows[0], screen).toMatch(new RegExp(`^1/2 {2}${id}\\b`));
      for (const whole of [
        'REVIEW',
        'score 50',
        '1,649.00 USD',
        '1,517.08 EUR base',
        email,
        '192.0.2.145',
        'ship NL bill BE  differ',
        '1 × Laptop 14"  1,649.00 USD',
      ]) {
        expect(screen, `${whole} at ${width} columns`).toContain(whole);
      }

      await pty.send('?');
      const help = collapse((await wholeHelp(pty, width)).join('\n'));
      for (const { help: text } of KEYMAP.filter((b) => b.contexts.includes('event'))) expect(help).toContain(text);
      for (const [, text] of COMMENT_KEYS) expect(help).toContain(text);
      // Any key but those that scroll goes back (not Esc: with a key right after it, it reads as Alt).
      await pty.send('x');
      await pty.waitFor(/q quit/);

      // The comment line: a count near the limit, a message at it, and exactly the limit sent.
      await pty.send('a');
      await pty.waitFor('approve · comment');
      await pty.type('x'.repeat(MAX_COMMENT_LENGTH - 10));
      await pty.waitFor(`${(MAX_COMMENT_LENGTH - 10).toLocaleString('en-US')} of 4,000 characters`);
      await pty.type('y'.repeat(15));
      await pty.waitFor('4,000 of 4,000 characters: the limit, no more is taken');
      await pty.send('Enter');
      await pty.waitFor(new RegExp(`^2/2 {2}${next}\\b`, 'm'));
      await pty.send('q');

      const { code, screen: end } = await pty.exited();
      expect(code).toBe(0);
      // Ids longer than the room after the labels start on the next line.
      expect(end).toMatch(new RegExp(`approved\\s+1\\s+${id}`));
      // Given back at q, not "skipped".
      expect(end).toMatch(new RegExp(`given back\\s+1\\s+${next}`));
      expect(end).not.toContain('skipped');
      const summary = (await cli.sb.call('GET', `/event/${id}`)).json as EventSummary;
      expect(summary.state).toBe('APPROVED');
      expect(summary.comments).toBe(`${'x'.repeat(MAX_COMMENT_LENGTH - 10)}${'y'.repeat(10)}`);
    },
  );
});
