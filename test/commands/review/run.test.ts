import { afterEach, describe, expect, it } from 'vitest';
import { useSandboxInProcess } from '../../support/in-process-cli.js';
import { startFakeServer, text, type FakeServer } from '../../support/fake-server.js';
import { startPlainEventServer, type PlainServer } from '../../support/plain-event-server.js';
import { reviewAt } from '../../support/review-run.js';
import { inReview, postInReview } from '../../support/event-fixtures.js';

/*
 * `review` in-process: what it does where no real terminal is needed — refused off a terminal and
 * for bad values (through main: the exit code and the one line), and sessions that end by
 * themselves (through run, on a screen of the test's own: the summary and the failure that ended
 * them). The keys on a real terminal are tested on tmux (test/commands/review*.test.ts).
 */

const HOUR = 60 * 60 * 1000;

const cli = useSandboxInProcess();
let servers: (FakeServer | PlainServer)[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

describe('fraudctl review without a terminal', () => {
  it('exits 2 at once and points to set-state', async () => {
    const started = Date.now();
    const result = await cli.run(['review', 'ord-1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: review needs a terminal/m);
    expect(result.stderr).toContain('fraudctl set-state');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('--no-input on a terminal: exit 2, nobody at the keyboard, nothing read', async () => {
    const result = await cli.run(['--no-input', 'review', 'ord-1'], { columns: 80 });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: review needs a person at the keyboard, and --no-input says there is none\n' +
        'review is for a person at a terminal; scripts change states with set-state (one id or many): ' +
        'fraudctl set-state --help\n',
    );
    expect(result.stdout).toBe('');
  });
});

describe('bad --sort and --sla', () => {
  it.each([
    [['--sort', 'size'], /--sort "size" is not an order: use age, score, amount/],
    [['--sla', '4 hours'], /--sla "4 hours" is not a duration/],
    [['--sla', '0h'], /--sla "0h" is not a duration/],
    [['--sla', '1.5h'], /--sla "1.5h" is not a duration/],
  ])('%j: exit 2 naming it, nothing read', async (flags, message) => {
    const result = await cli.run(['review', ...flags, 'some-id']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('fraudctl review against a server that is not the service', () => {
  it('405 text/plain to everything: stops at once, exit 1, "not the service", no event passed over as refused', async () => {
    const server = await startFakeServer();
    servers.push(server);
    server.script(text(405, 'Method Not Allowed', 'text/plain'));
    const ids = ['nts-1', 'nts-2', 'nts-3', 'nts-4', 'nts-5', 'nts-6'];
    // Wide enough for the error's line not to wrap.
    const review = reviewAt(server.url, { serviceFlags: ['--base-url', server.url], width: 250 });
    const { code, stdout, stderr } = await review({ ids }).ended;
    const screen = stdout + stderr;
    expect(code, screen).toBe(1);
    expect(screen).toMatch(/Review session \(stopped\)/);
    expect(screen).toMatch(/error: the session stopped: GET \S+\/event\/nts-1 answered 405 with text\/plain/);
    expect(screen).toMatch(/so this URL is not the service, or not its base path/);
    expect(screen).toMatch(/^check --base-url/m);
    expect(screen).not.toMatch(/refused/);
    // Nothing of the events past those fetched ahead was asked for, and nothing was changed.
    const asked = new Set(server.requests.map((r) => r.url.split('/')[2]));
    expect(
      [...asked].every((id) => id === 'nts-1' || id === 'nts-2'),
      [...asked].join(' '),
    ).toBe(true);
    expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('the summary against a service with states this build does not know', () => {
  it('says the state each event was in, as the service spelled it', async () => {
    const plain = await startPlainEventServer({ key: 'plain-key' });
    servers.push(plain);
    // This service leaves an event to review in PENDING, and one it declines in DECLINED.
    for (const [id, amount] of [
      ['odd-1', 600],
      ['odd-2', 700],
      ['odd-3', 5000],
    ] as const) {
      const res = await fetch(`${plain.url}/event`, {
        method: 'POST',
        headers: { 'x-client-api-key': 'plain-key', 'content-type': 'application/json' },
        body: JSON.stringify({ id, amount, currency: 'EUR' }),
      });
      expect(res.status).toBe(201);
    }
    const review = reviewAt(plain.url, { serviceFlags: ['--base-url', plain.url], apiKey: 'plain-key' });
    const { ended, screen: terminal } = review({ ids: ['odd-1', 'odd-2', 'odd-3'] });
    const { code, stdout, stderr } = await ended;
    const screen = stdout + stderr;
    expect(code).toBe(0);
    expect(screen).toMatch(/^ {2}in state PENDING {2,}2 {2}odd-1 {2}odd-2$/m);
    expect(screen).toMatch(/^ {2}in state DECLINED {2,}1 {2}odd-3$/m);
    expect(screen).not.toContain('already handled');
    expect(terminal.restored).toBe(true);
  });
});

describe('review --sla on a clock of its own', () => {
  it('each screen says the time left as of that clock, and the summary counts the overdue decided', async () => {
    // Whole seconds: the service keeps an eventDate to the second.
    const now = Math.floor(Date.now() / 1000) * 1000;
    const ago = (ms: number) => new Date(now - ms).toISOString();
    for (const [id, msAgo] of [
      ['clock-2d', 2 * 24 * HOUR],
      ['clock-1h', HOUR],
    ] as const)
      await postInReview(cli.sb, inReview(id, { eventDate: ago(msAgo), userEmail: `${id}@example.com` }));
    // The clock stands still: the time left is exact, not less the seconds the test has taken.
    const review = reviewAt(cli.sb.url, { now: () => now });
    const { screen, ended } = review({ ids: ['clock-2d', 'clock-1h'], slaMs: 4 * HOUR });
    const first = await screen.waitFor(/^1\/2 {2}clock-2d .*claimed by you/m);
    expect(first).toMatch(/age 2d\b/);
    expect(first).toMatch(/overdue by 1d 20h\b/);
    screen.send('a');
    await screen.waitFor(/approve · comment/);
    screen.send('return');
    const second = await screen.waitFor(/^2\/2 {2}clock-1h .*claimed by you/m);
    expect(second).toMatch(/age 1h\b/);
    expect(second).toMatch(/ 3h left\b/);
    expect(second).not.toContain('overdue');
    screen.send('q');
    const { code, stdout } = await ended;
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^ {2}approved {2,}1 {2}clock-2d$/m);
    expect(stdout).toMatch(/^ {2}given back {2,}1 {2}clock-1h$/m);
    expect(stdout).toMatch(/^ {2}overdue \(SLA 4h\) {2,}1 {2}1 decided, 0 left$/m);
    expect(screen.restored).toBe(true);
  });
});
