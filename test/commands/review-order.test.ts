import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { runInProcess } from '../support/in-process-cli.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { inReview, postInReview } from '../support/event-fixtures.js';
import { startPlainEventServer } from '../support/plain-event-server.js';

/*
 * `review --sort` and `--sla` on a real terminal (tmux, 80×24) against the sandbox: the order of
 * the queue, each event's age and deadline on its screen, the overdue count in the summary. The
 * events' dates are set when they are POSTed, relative to now, so no clock is faked.
 */

const cli = useSandboxForCli();
let opened: Pty[] = [];
afterEach(async () => {
  await Promise.all(opened.map((p) => p.kill()));
  opened = [];
});

async function terminal(args: string[]): Promise<Pty> {
  const pty = await startOnTerminal([...args, '--base-url', cli.sb.url], { env: cli.env() });
  opened.push(pty);
  return pty;
}

const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** An event in review, `msAgo` old, with `fields` on top. */
const post = (id: string, msAgo: number, fields: Record<string, unknown> = {}) =>
  postInReview(cli.sb, inReview(id, { eventDate: ago(msAgo), userEmail: `${id}@example.com`, ...fields }));

describe('review --sort', () => {
  it('age: opens the oldest event first, then the next oldest, each with its age', async () => {
    await post('age-10m', 10 * MINUTE);
    await post('age-1h', 60 * MINUTE);
    await post('age-2d', 2 * 24 * 60 * MINUTE);
    // The list has the newest first.
    const pty = await terminal(['review', '--sort', 'age', 'age-10m', 'age-1h', 'age-2d']);
    const first = await pty.waitFor(/^1\/3 {2}age-2d /m, 'the oldest event first');
    expect(first).toMatch(/age 2d\b/);
    expect(first).not.toMatch(/left|overdue/);
    await pty.send('s');
    await pty.waitFor(/^2\/3 {2}age-1h [\s\S]*age 1h\b/m, 'the event of an hour ago second');
    await pty.send('s');
    await pty.waitFor(/^3\/3 {2}age-10m [\s\S]*age 10m\b/m, 'the newest last');
    await pty.send('q');
    expect((await pty.exited()).code).toBe(0);
  });

  it('score: opens the highest score first; an id that cannot be read goes to the end', async () => {
    await post('score-30', MINUTE);
    // Billing and shipping countries differ: 20 more (the default rules).
    await post('score-50', MINUTE, { billingCountry: 'DE', shippingCountry: 'FR' });
    const pty = await terminal(['review', '--sort', 'score', 'score-missing', 'score-30', 'score-50']);
    const first = await pty.waitFor(/^1\/3 {2}score-50 /m, 'the highest score first');
    expect(first).toMatch(/score 50/);
    await pty.send('s');
    await pty.waitFor(/^2\/3 {2}score-30 /m, 'then the lower');
    await pty.send('s');
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/^ {2}not found {2,}1 {2}score-missing$/m);
  });
});

describe('review --sort score --from a results file', () => {
  it('takes the order from the scores submit --out recorded', async () => {
    const out = join(cli.dir, 'sort-results.jsonl');
    const events = [
      inReview('file-30', { userEmail: 'file-30@example.com' }),
      inReview('file-50', { userEmail: 'file-50@example.com', billingCountry: 'DE', shippingCountry: 'FR' }),
    ];
    const submitted = await runInProcess(['submit', '-', '--out', out], cli.env(), {
      input: events.map((e) => JSON.stringify(e)).join('\n'),
    });
    expect(submitted.code, submitted.stderr).toBe(0);
    const pty = await terminal(['review', '--from', out, '--sort', 'score']);
    await pty.waitFor(/^1\/2 {2}file-50 .*score 50/m, 'the higher score of the file first');
    await pty.send('s');
    await pty.waitFor(/^2\/2 {2}file-30 /m, 'then the lower');
    await pty.send('q');
    expect((await pty.exited()).code).toBe(0);
  });
});

describe('review --sla', () => {
  it('shows an event of two days ago as overdue and one of an hour ago with its time left; the summary counts the overdue', async () => {
    await post('sla-2d', 2 * 24 * 60 * MINUTE);
    await post('sla-1h', 60 * MINUTE);
    const pty = await terminal(['review', '--sla', '4h', 'sla-2d', 'sla-1h']);
    const first = await pty.waitFor(/^1\/2 {2}sla-2d [\s\S]*overdue by 1d 20h/m, 'the old event overdue');
    expect(first).toMatch(/age 2d\b/);
    await pty.send('a');
    await pty.waitFor('approve · comment');
    await pty.send('Enter');
    const second = await pty.waitFor(/^2\/2 {2}sla-1h /m, 'the recent event');
    expect(second).toMatch(/age 1h\b/);
    // Three hours left, less the seconds the test has taken.
    expect(second).toMatch(/\b(3h|2h 59m) left\b/);
    expect(second).not.toContain('overdue');
    await pty.send('q');
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/^ {2}approved {2,}1 {2}sla-2d$/m);
    expect(screen).toMatch(/^ {2}overdue \(SLA 4h\) {2,}1 {2}1 decided, 0 left$/m);
  });
});

describe('review --sort: the reads before the first screen', () => {
  it('says on the terminal how many events are read, and erases the line before the first screen', async () => {
    // Every GET is held until the test lets go, so the line is surely on screen when looked at.
    const server = await startPlainEventServer({ hold: true, holdOnly: (r) => r.method === 'GET' });
    try {
      const ids = ['progress-a', 'progress-b', 'progress-c'];
      for (const [i, id] of ids.entries()) {
        const sent = await fetch(`${server.url}/event`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-client-api-key': 'plain-key' },
          body: JSON.stringify({
            id,
            amount: 700,
            currency: 'EUR',
            eventDate: ago((i + 1) * MINUTE).replace(/\.\d{3}Z$/, 'Z'),
          }),
        });
        expect(sent.status).toBe(201);
      }
      const pty = await startOnTerminal(['review', '--sort', 'age', '--no-claim', '--include-decided', ...ids], {
        env: { ...cli.env(), FRAUDCTL_BASE_URL: server.url, FRAUDCTL_API_KEY: 'plain-key' },
      });
      opened.push(pty);
      await pty.waitFor(
        /^reading the events to sort them by age: 0 of 3$/m,
        'the progress line while the reads are held',
      );
      server.release();
      const first = await pty.waitFor(/^1\/3 {2}progress-c /m, 'the oldest first, once read');
      expect(first).not.toContain('reading the events');
      await pty.send('q');
      expect((await pty.exited()).code).toBe(0);
    } finally {
      server.release();
      await server.close();
    }
  });
});
