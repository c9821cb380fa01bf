import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { startTestSandbox, writeConfig, type TestSandbox } from '../support/sandbox.js';
import { listen } from '../support/listen.js';
import { inReview, postInReview } from '../support/event-fixtures.js';

/*
 * What a review session leaves behind when it ends: the summary on the terminal (tmux, 80×24)
 * names every id passed over and why, and the hint in it is a command that works; the --log
 * file has a line for every action tried, the one the service refused included.
 */

const cli = useSandboxForCli();
let opened: Pty[] = [];
afterEach(async () => {
  await Promise.all(opened.map((p) => p.kill()));
  opened = [];
});

async function terminal(args: string[], env: NodeJS.ProcessEnv = cli.env()): Promise<Pty> {
  const pty = await startOnTerminal(args, { env });
  opened.push(pty);
  return pty;
}

const reviewEvent = (id: string) => postInReview(cli.sb, inReview(id, { userEmail: `${id}@example.com` }));

const stateOf = async (id: string) => ((await cli.sb.call('GET', `/event/${id}`)).json as EventSummary).state;

describe('the summary of a review session', () => {
  it('names each id passed over with why, lists the event given back at Ctrl-C once, and its hint takes over the claimed one', async () => {
    await Promise.all(['sum-decided', 'sum-theirs', 'sum-open'].map(reviewEvent));
    await cli.sb.call('PATCH', '/event/sum-decided/state', { body: { state: 'APPROVED' } });
    // Left IN_REVIEW by another session.
    await cli.sb.call('PATCH', '/event/sum-theirs/state', { body: { state: 'IN_REVIEW' } });
    const pty = await terminal([
      'review',
      'ord/1',
      'ördér',
      'a=b',
      'sum-nope',
      'sum-decided',
      'sum-theirs',
      'sum-open',
      '--base-url',
      cli.sb.url,
    ]);
    const screen = await pty.waitFor(/^7\/7 {2}sum-open .*claimed by you/m, 'the last event claimed');
    expect(screen).toContain('passed over sum-theirs: IN_REVIEW, claimed by another session');
    await pty.send('C-c');

    const { code, screen: end } = await pty.exited();
    expect(code).toBe(130);
    const summary = end.slice(end.indexOf('Review session'));
    expect(summary).toMatch(/^ {2}given back {2,}1 {2}sum-open$/m);
    expect(summary).toMatch(/^ {2}not found {2,}1 {2}sum-nope$/m);
    // As `show` reports them: the service's 422 eventId:INVALID_FORMAT, not "not found".
    expect(summary).toMatch(/^ {2}invalid id \(422 eventId:INVALID_FORMAT\) {2,}3 {2}ord\/1 {2}ördér {2}a=b$/m);
    expect(summary).toMatch(/^ {2}in state APPROVED {2,}1 {2}sum-decided$/m);
    expect(summary).toMatch(/^ {2}claimed by others {2,}1 {2}sum-theirs$/m);
    expect(summary).not.toMatch(/skipped|already handled/);
    // Each id once.
    for (const id of ['sum-open', 'sum-nope', 'sum-decided', 'sum-theirs'])
      expect(summary.split(id).length - 1, summary).toBe(
        summary.includes('--include-claimed') && id === 'sum-theirs' ? 2 : 1,
      );
    expect(await stateOf('sum-open')).toBe('PENDING_REVIEW');

    // The hint, run exactly as printed (without the leading `fraudctl`), takes the claimed event over.
    const hint = /^ {2}fraudctl (review .*--include-claimed.*)$/m.exec(summary);
    expect(hint, summary).not.toBeNull();
    const words = hint![1]!.split(' ');
    expect(words).toEqual(['review', '--base-url', cli.sb.url, '--include-claimed', 'sum-theirs']);
    const again = await terminal(words);
    await again.waitFor(/^1\/1 {2}sum-theirs .*IN_REVIEW[\s\S]*taken over/m, 'the claimed event taken over');
    await again.send('q');
    expect((await again.exited()).code).toBe(0);
    expect(await stateOf('sum-theirs')).toBe('PENDING_REVIEW');
  });

  it('reads the events claimed by others again before the summary: one decided since is listed by its state, out of the --include-claimed hint', async () => {
    await Promise.all(['stale-theirs', 'stale-still', 'stale-open'].map(reviewEvent));
    await cli.sb.call('PATCH', '/event/stale-theirs/state', { body: { state: 'IN_REVIEW' } });
    await cli.sb.call('PATCH', '/event/stale-still/state', { body: { state: 'IN_REVIEW' } });
    const pty = await terminal(['review', 'stale-theirs', 'stale-still', 'stale-open', '--base-url', cli.sb.url]);
    await pty.waitFor(/^3\/3 {2}stale-open .*claimed by you/m, 'the last event claimed');
    // Meanwhile the colleague decides one of the two the queue passed over.
    expect((await cli.sb.call('PATCH', '/event/stale-theirs/state', { body: { state: 'DECLINED' } })).status).toBe(200);
    await pty.send('q');
    const { code, screen: end } = await pty.exited();
    expect(code, end).toBe(0);
    const summary = end.slice(end.indexOf('Review session'));
    expect(summary).toMatch(/^ {2}in state DECLINED \(changed since it was passed over\) {2,}1 {2}stale-theirs$/m);
    expect(summary).toMatch(/^ {2}claimed by others {2,}1 {2}stale-still$/m);
    // The hint (wrapped by the 80-column terminal) names only the one still claimed.
    expect(summary.replace(/\n/g, '').trimEnd()).toMatch(/--include-claimed stale-still$/);
  });
});

/**
 * A pass-through proxy in front of the sandbox whose upstream can be switched: to stand for a
 * service that starts refusing the key in the middle of a session. It changes nothing of what
 * passes; it records each answer as `METHOD path status` once its body is through.
 */
async function startSwitchingProxy(
  upstream: string,
): Promise<{ url: string; answers: string[]; switchTo(url: string): void; close(): Promise<void> }> {
  let target = new URL(upstream);
  const answers: string[] = [];
  const { url, close } = await listen((req, res) => {
    const forward = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => answers.push(`${req.method} ${req.url} ${answer.statusCode}`));
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return {
    url,
    answers,
    switchTo: (url) => (target = new URL(url)),
    close,
  };
}

describe('--log when the service refuses the key in the middle of a session', () => {
  let blocked: TestSandbox;
  let proxy: Awaited<ReturnType<typeof startSwitchingProxy>>;
  afterAll(async () => {
    await proxy?.close();
    await blocked?.close();
  });

  it('has the refused claim that ended the session, and the give-back that was refused too', async () => {
    await Promise.all(['key-1', 'key-2'].map(reviewEvent));
    // The same key, its merchant now blocked: every request gets 403 MERCHANT_BLOCKED.
    blocked = await startTestSandbox({
      configFile: writeConfig({
        merchants: [{ id: 'demo', name: 'Demo merchant', apiKey: 'sandbox-demo-key', blocked: true }],
      }),
    });
    proxy = await startSwitchingProxy(cli.sb.url);
    const log = join(cli.dir, 'refused-key.log');
    const pty = await terminal(['review', 'key-1', 'key-2', '--base-url', proxy.url, '--log', log]);
    await pty.waitFor(/^1\/2 {2}key-1 .*claimed by you/m, 'key-1 claimed');
    // key-2 is fetched ahead: once it is, the service starts refusing the key.
    const deadline = Date.now() + 10_000;
    while (!['GET /event/key-2 200', 'GET /event/key-2/risk-assessment 200'].every((a) => proxy.answers.includes(a))) {
      if (Date.now() > deadline) throw new Error(`key-2 was never fetched ahead: ${proxy.answers.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    proxy.switchTo(blocked.url);
    // Skip key-1: its give-back is refused; key-2's claim is refused, which ends the session.
    await pty.send('s');
    const { code, screen } = await pty.exited();
    expect(code).toBe(3);
    expect(screen).toMatch(/^error: the session stopped: the merchant of this API key is blocked/m);
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            eventId: string;
            action: string;
            outcome: string;
            status: number | null;
            message?: string;
          },
      );
    expect(lines.map((l) => `${l.eventId} ${l.action} ${l.outcome} ${l.status}`)).toEqual([
      'key-1 claim sending null',
      'key-1 claim ok null',
      'key-1 skip sending null',
      'key-1 skip refused 403',
      'key-2 claim refused 403',
    ]);
    expect(lines.at(-1)!.message).toContain('MERCHANT_BLOCKED');
    // The refused give-back left key-1 claimed, and key-2 was never claimed: the summary says so.
    expect(screen).toMatch(/STILL CLAIMED\s+1 {2}key-1/);
    expect(screen).toMatch(/left undecided\s+1 {2}key-2/);
  });
});
