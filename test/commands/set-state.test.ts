import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { onTerminal } from '../support/script-terminal.js';
import { useServer } from '../support/listen.js';
import { inReview, postInReview } from '../support/event-fixtures.js';

/*
 * One-event set-state as fraudctl runs it (argv → output and exit code), in-process through
 * main() against a real sandbox on port 0; the questions on a real terminal (script) as processes.
 */

const cli = useSandboxInProcess();
let n = 0;
const reviewEvent = () => postInReview(cli.sb, inReview(`ss-${++n}`));
const stateOf = async (id: string) => ((await cli.sb.call('GET', `/event/${id}`)).json as EventSummary).state;

describe('fraudctl set-state with flags', () => {
  it('changes the state, records the comment and says so in one line', async () => {
    const id = await reviewEvent();
    const result = await cli.run(['set-state', id, '--state', 'ESCALATED', '--comments', 'needs a second look']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${id}  PENDING_REVIEW → ESCALATED  comment recorded\n`);
    expect(await stateOf(id)).toBe('ESCALATED');
    expect(((await cli.sb.call('GET', `/event/${id}`)).json as EventSummary).comments).toBe('needs a second look');
  });

  it('--verbose prints the updated summary as tables', async () => {
    const id = await reviewEvent();
    const result = await cli.run([
      'set-state',
      id,
      '--state',
      'ESCALATED',
      '--comments',
      'needs a second look',
      '--verbose',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/state\s+│ ESCALATED/);
    expect(result.stdout).toMatch(/comments\s+│ needs a second look/);
  });

  it.each([
    ['approved', 'APPROVED'],
    ['in-review', 'IN_REVIEW'],
    ['Escalated', 'ESCALATED'],
    ['in review', 'IN_REVIEW'],
  ])('takes a known state whatever its case or separators: %s → %s', async (typed, state) => {
    const id = await reviewEvent();
    const result = await cli.run(['set-state', id, '--state', typed]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${id}  PENDING_REVIEW → ${state}\n`);
    expect(await stateOf(id)).toBe(state);
  });

  it('an unknown state gets the nearest known one suggested, and nothing is sent', async () => {
    const id = await reviewEvent();
    const result = await cli.run(['set-state', id, '--state', 'aproved', '--comments', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown state "aproved": did you mean APPROVED\?$/m);
    expect(result.stderr).toContain('--force-state');
    expect(await stateOf(id)).toBe('PENDING_REVIEW');
    expect(((await cli.sb.call('GET', `/event/${id}`)).json as EventSummary).comments).toBeNull();
    const far = await cli.run(['set-state', id, '--state', 'ON_HOLD']);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/^error: unknown state "ON_HOLD"$/m);
  });

  it('--force-state sends a state this build does not know as typed (the sandbox refuses it: exit 5)', async () => {
    const id = await reviewEvent();
    const result = await cli.run(['set-state', id, '--state', 'On_Hold', '--force-state']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('INVALID_STATE');
  });

  it("never sends an empty comment, so a colleague's note is not erased", async () => {
    const id = await reviewEvent();
    expect((await cli.run(['set-state', id, '--comments', 'colleague: waiting for ID documents'])).code).toBe(0);
    const withState = await cli.run(['set-state', id, '--state', 'IN_REVIEW', '--comments', '']);
    expect(withState.code).toBe(0);
    expect(withState.stderr).toContain('the empty --comments is not sent');
    const alone = await cli.run(['set-state', id, '--comments', '  ']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^error: nothing to change/m);
    const summary = (await cli.sb.call('GET', `/event/${id}`)).json as EventSummary;
    expect(summary.state).toBe('IN_REVIEW');
    expect(summary.comments).toBe('colleague: waiting for ID documents');
  });

  it('refuses a comment over the service’s limit (4,000 characters, counted as the service counts) before sending anything', async () => {
    const id = await reviewEvent();
    // 4,000 emoji are 8,000 UTF-16 units but 4,000 characters: within the limit.
    const atLimit = await cli.run(['set-state', id, '--comments', '😀'.repeat(4000)]);
    expect(atLimit.code, atLimit.stderr).toBe(0);
    const over = await cli.run(['set-state', id, '--state', 'APPROVED', '--comments', 'x'.repeat(4001), '--debug']);
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(
      /^error: the comment is 4,001 characters long; the service takes at most 4,000: nothing was sent$/m,
    );
    // Not even the read of the state before the change went out.
    expect(over.stderr).not.toMatch(/debug: → /);
    expect(await stateOf(id)).toBe('PENDING_REVIEW');
  });

  it('--json prints the service body of the PATCH', async () => {
    const id = await reviewEvent();
    const result = await cli.run(['set-state', id, '--state', 'IN_REVIEW', '--json']);
    expect(JSON.parse(result.stdout)).toEqual((await cli.sb.call('GET', `/event/${id}`)).json);
  });

  it('adds a comment alone', async () => {
    const id = await reviewEvent();
    const result = await cli.run(['set-state', id, '--comments', 'called the customer']);
    expect(result.code).toBe(0);
    expect(await stateOf(id)).toBe('PENDING_REVIEW');
  });

  it('exits 5 for a transition the service forbids, and changes nothing', async () => {
    const id = await reviewEvent();
    const result = await cli.run(['set-state', id, '--state', 'FRAUD_CONFIRMED']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('INVALID_STATE_TRANSITION');
    expect(result.stderr).toContain('fraudctl set-state --help');
    expect(await stateOf(id)).toBe('PENDING_REVIEW');
  });

  it('--dry-run prints the request, key redacted, and sends nothing', async () => {
    const id = await reviewEvent();
    const result = await cli.run(['set-state', id, '--state', 'APPROVED', '--comments', 'ok', '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`PATCH ${cli.sb.url}/event/${id}/state\nto ${cli.sb.url}/, profile sandbox\n`);
    expect(result.stdout).toContain('x-client-api-key: [redacted]');
    expect(result.stdout).toContain('"state": "APPROVED"');
    expect(result.stdout).not.toContain('sandbox-demo-key');
    expect(await stateOf(id)).toBe('PENDING_REVIEW');
  });

  it('--dry-run on the embedded sandbox: the method and the path, then where it would go, in words', async () => {
    // The dry run reads the event: it is there.
    const example = await cli.run(['submit', resolve(import.meta.dirname, '../../examples/review.json')], {
      env: { FRAUDCTL_BASE_URL: '', FRAUDCTL_API_KEY: '' },
    });
    expect(example.code, example.stderr).toBe(0);
    const result = await cli.run(['set-state', 'ord-1002', '--state', 'APPROVED', '--dry-run'], {
      env: { FRAUDCTL_BASE_URL: '', FRAUDCTL_API_KEY: '' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n').slice(0, 3)).toEqual([
      'dry run: nothing was sent',
      'PATCH /event/ord-1002/state',
      'to the embedded sandbox (a local service on a loopback port, not production), profile sandbox',
    ]);
    expect(result.stdout).not.toContain('(embedded sandbox)/');
    const json = await cli.run(['set-state', 'ord-1002', '--state', 'APPROVED', '--dry-run', '--json'], {
      env: { FRAUDCTL_BASE_URL: '', FRAUDCTL_API_KEY: '' },
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      method: 'PATCH',
      path: '/event/ord-1002/state',
      url: null,
      to: expect.stringMatching(/^the embedded sandbox/) as unknown,
    });
    // The event is read (one GET), as the real run reads it: the embedded sandbox starts, and says so.
    expect(result.stderr).toContain('SANDBOX');
  });

  it('--dry-run reads the event and says when the real run would be refused (APPROVED → ESCALATED), with its exit code; nothing is sent', async () => {
    const id = await reviewEvent();
    expect((await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state: 'APPROVED' } })).status).toBe(200);
    const dry = await cli.run(['set-state', id, '--state', 'escalated', '--comments', 'look again', '--dry-run']);
    expect(dry.stdout).toContain(`PATCH ${cli.sb.url}/event/${id}/state`);
    expect(dry.stderr).toMatch(
      new RegExp(
        `^error: the real run would be refused: ${id} is APPROVED, and APPROVED → ESCALATED is not allowed \\(from APPROVED: DECLINED, FRAUD_CONFIRMED\\)$`,
        'm',
      ),
    );
    expect(await cli.sb.call('GET', `/event/${id}`)).toMatchObject({ json: { state: 'APPROVED', comments: null } });
    const real = await cli.run(['set-state', id, '--state', 'escalated', '--comments', 'look again']);
    expect(real.stderr).toContain('INVALID_STATE_TRANSITION');
    expect(dry.code).toBe(5);
    expect(dry.code).toBe(real.code);
  });

  it('--dry-run of an allowed change exits 0; of an event that is not there, 4 as the real run', async () => {
    const id = await reviewEvent();
    expect((await cli.run(['set-state', id, '--state', 'DECLINED', '--dry-run'])).code).toBe(0);
    const missing = await cli.run(['set-state', 'no-such-event', '--state', 'DECLINED', '--dry-run']);
    expect(missing.code).toBe(4);
    expect(missing.code).toBe((await cli.run(['set-state', 'no-such-event', '--state', 'DECLINED'])).code);
    expect(await stateOf(id)).toBe('PENDING_REVIEW');
  });

  it('path-encodes ids so an id with a slash reaches its own resource', async () => {
    const result = await cli.run(['set-state', 'a/b', '--state', 'APPROVED', '--dry-run']);
    expect(result.stdout).toContain('/event/a%2Fb/state');
  });
});

describe('fraudctl set-state without a terminal', () => {
  it.each([[[]], [['--no-input']]])('exits 2 at once naming --state when the state is missing (%j)', async (extra) => {
    const id = await reviewEvent();
    const started = Date.now();
    const result = await cli.run(['set-state', id, ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: set-state needs --state \(or --comments\) when it cannot prompt$/m);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await stateOf(id)).toBe('PENDING_REVIEW');
  });
});

describe('fraudctl set-state against a service that answers 204', () => {
  const seen: string[] = [];
  const server = useServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.method === 'PATCH') {
      res.statusCode = 204;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({ id: 'x-1', totalScore: 40, state: 'APPROVED', allowlistMatch: false, denylistMatch: false }),
    );
  });

  it('with --verbose, fetches and shows the summary after an empty 204', async () => {
    seen.length = 0;
    const result = await cli.run(['set-state', 'x-1', '--state', 'APPROVED', '--base-url', server.url, '--verbose']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/state\s+│ APPROVED/);
    // Read, read again just before the change, then the summary after the empty answer.
    expect(seen).toEqual(['GET /event/x-1', 'GET /event/x-1', 'PATCH /event/x-1/state', 'GET /event/x-1']);
  });

  it('says what changed in one line after an empty 204, from the state read before', async () => {
    seen.length = 0;
    const result = await cli.run(['set-state', 'x-1', '--state', 'DECLINED', '--base-url', server.url]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('x-1  APPROVED → DECLINED\n');
    expect(seen).toEqual(['GET /event/x-1', 'GET /event/x-1', 'PATCH /event/x-1/state']);
  });

  it('prints nothing on stdout with --json, since the service sent no body', async () => {
    const result = await cli.run(['set-state', 'x-1', '--state', 'APPROVED', '--base-url', server.url, '--json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
  });
});

const DOWN = '\u001b[B';
const ENTER = '\r';

describe('fraudctl set-state on a terminal', () => {
  it('asks for the state from a list (current one marked), then a comment, then confirms before → after', async () => {
    const id = await reviewEvent();
    // Allowed transitions come first: IN_REVIEW, ESCALATED, APPROVED, DECLINED; two downs pick APPROVED.
    const { code, screen } = await onTerminal(
      ['set-state', id],
      [
        [/New state/, `${DOWN}${DOWN}${ENTER}`],
        [/Comments/, `verified by phone${ENTER}`],
        [/PENDING_REVIEW → APPROVED with comment "verified by phone"\?/, `y${ENTER}`],
      ],
      cli.env(),
    );
    expect(screen).toContain('New state (from PENDING_REVIEW)');
    // Only the transitions the current state allows are offered.
    expect(screen).not.toContain('FRAUD_CONFIRMED');
    expect(screen).not.toContain('not allowed');
    expect(screen).toContain(`${id}  PENDING_REVIEW → APPROVED  comment recorded`);
    expect(code).toBe(0);
    expect(await stateOf(id)).toBe('APPROVED');
    expect(((await cli.sb.call('GET', `/event/${id}`)).json as EventSummary).comments).toBe('verified by phone');
  });

  it('takes a state the list does not know through "other…"', async () => {
    const id = await reviewEvent();
    const { screen } = await onTerminal(
      ['set-state', id, '--comments', 'x'],
      [
        [/New state/, `${'\u001b[A'.repeat(2)}${ENTER}`],
        [/State/, `ON_HOLD${ENTER}`],
        [/→ ON_HOLD/, `y${ENTER}`],
      ],
      cli.env(),
    );
    // The sandbox does not know ON_HOLD: its refusal comes back as a clear error.
    expect(screen).toContain('INVALID_STATE');
  });

  it('does not offer a state the current one does not allow, nor take it typed; overturning a decision defaults to no', async () => {
    const id = await reviewEvent();
    await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state: 'DECLINED' } });
    // From DECLINED: APPROVED, FRAUD_CONFIRMED, other…, keep; two downs pick other….
    const { code, screen } = await onTerminal(
      ['set-state', id],
      [
        [/New state/, `${DOWN}${DOWN}${ENTER}`],
        [/State/, `escalated${ENTER}`],
        [/not taken/, `approved${ENTER}`],
        [/Comments/, ENTER],
        [/DECLINED → APPROVED\? \(y\/N\)/, ENTER],
      ],
      cli.env(),
    );
    expect(screen).not.toMatch(/❯? ?ESCALATED\r?\n/);
    expect(screen).toContain(
      'DECLINED → ESCALATED is not allowed (from DECLINED: APPROVED, FRAUD_CONFIRMED): not taken (--force-state sends it)',
    );
    expect(code).toBe(130);
    expect(await stateOf(id)).toBe('DECLINED');
  });

  it('an event held in a review session: says so, and the confirmation defaults to no', async () => {
    const id = await reviewEvent();
    await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state: 'IN_REVIEW' } });
    const question = /IN_REVIEW → APPROVED with comment "ok"\? \(y\/N\)/;
    const { code, screen } = await onTerminal(
      ['set-state', id, '--state', 'approved', '--comments', 'ok'],
      [[question, ENTER]],
      cli.env(),
    );
    expect(screen).toContain(`${id} is IN_REVIEW, claimed for review by another session`);
    expect(code).toBe(130);
    expect(await stateOf(id)).toBe('IN_REVIEW');
  });

  it('exits 130 and changes nothing when the confirmation is declined', async () => {
    const id = await reviewEvent();
    const { code } = await onTerminal(
      ['set-state', id, '--state', 'DECLINED', '--comments', 'no'],
      [[/DECLINED/, `n${ENTER}`]],
      cli.env(),
    );
    expect(code).toBe(130);
    expect(await stateOf(id)).toBe('PENDING_REVIEW');
  });

  it('exits 130 on Ctrl-C at a prompt', async () => {
    const id = await reviewEvent();
    const { code } = await onTerminal(['set-state', id], [[/New state/, '\u0003']], cli.env());
    expect(code).toBe(130);
    expect(await stateOf(id)).toBe('PENDING_REVIEW');
  });
});
