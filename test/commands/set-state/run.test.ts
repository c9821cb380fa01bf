import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { EventSummary } from '../../../src/contract/index.js';
import type { CliContext } from '../../../src/process/cli-context.js';
import type { Prompter } from '../../../src/prompter/prompter.js';
import { run } from '../../../src/commands/set-state/run.js';
import type { SetStateDeps } from '../../../src/commands/set-state/deps.js';
import type { ManyEventsOptions, OneEventOptions } from '../../../src/commands/set-state/options.js';
import { logContextFor } from '../../../src/action-log/log-context.js';
import { openChangeLog } from '../../../src/action-log/logged-change.js';
import { useSandboxInProcess } from '../../support/in-process-cli.js';
import { ran, sessionFor, type PrintingDeps } from '../../support/room-deps.js';
import { inReview, postInReview } from '../../support/event-fixtures.js';

/*
 * set-state's work through run(options, deps) against a real sandbox on port 0, with deps the
 * test builds: streams that keep what is written (the pool of many writes to the context's),
 * the sandbox's client and settings, and, for the questions a terminal would ask, a prompter
 * that answers as told and keeps what it was asked.
 */

const cli = useSandboxInProcess();
let n = 0;
const reviewEvent = () => postInReview(cli.sb, inReview(`run-${++n}`));
const summaryOf = async (id: string) => (await cli.sb.call('GET', `/event/${id}`)).json as EventSummary;

const one = (eventId: string, overrides: Partial<OneEventOptions> = {}): OneEventOptions => ({
  ...{ form: 'one', eventId, state: null, comments: null, dryRun: false, yes: false, forceState: false },
  ...{ verbose: false, appendComment: false, replaceComment: false, log: null, reason: null },
  ...{ includeClaimed: false, json: false, noColor: false },
  ...overrides,
});

const many = (ids: string[], overrides: Partial<ManyEventsOptions> = {}): ManyEventsOptions => ({
  ...{ form: 'many', ids, from: null, state: 'declined', comments: null, commentMode: null, ifState: null },
  ...{ force: false, dryRun: false, yes: true, out: null, resume: false, concurrency: 4 },
  ...{ log: null, reason: null, includeClaimed: false, json: false },
  ...overrides,
});

/** A prompter that gives the answers in order (a function: what it resolves to, once it has run), and keeps each question. */
function answering(answers: unknown[]): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const next = async (message: string) => {
    asked.push(message);
    if (answers.length === 0) throw new Error(`not expected: ${message}`);
    const answer = answers.shift();
    return typeof answer === 'function' ? ((await (answer as () => Promise<unknown>)()) as never) : answer;
  };
  return {
    asked,
    select: (message) => next(message) as never,
    input: (message) => next(message) as never,
    confirm: (message) => next(message) as never,
    secret: (message) => next(message) as never,
  };
}

function deps(options: { prompter?: Prompter } = {}): SetStateDeps & PrintingDeps {
  const written = { stdout: '', stderr: '' };
  const sink = (name: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        written[name] += chunk.toString();
        done();
      },
    });
  const stdin = new PassThrough();
  stdin.end();
  const context: CliContext = {
    stdin,
    stdout: sink('stdout'),
    stderr: sink('stderr'),
    env: {},
    debug: false,
    waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    onStdoutClosed: () => () => {},
  };
  const session = sessionFor(cli.sb.url);
  const settings = () => session.settings();
  const prompter = options.prompter;
  return {
    written,
    stdout: { write: (t) => void context.stdout.write(t), isTTY: false, columns: null },
    stderr: { write: (t) => void context.stderr.write(t), isTTY: false, columns: null },
    env: {},
    context,
    canPrompt: prompter !== undefined,
    prompter: () => (prompter ? Promise.resolve(prompter) : Promise.reject(new Error('no terminal'))),
    settings,
    client: (clientOptions) => session.client(clientOptions),
    service: () => Promise.resolve(cli.sb.url),
    logContext: async () => logContextFor(await settings(), {}),
    openLog: async (path) =>
      openChangeLog(path, logContextFor(await settings(), {}), (line) => context.stderr.write(line)),
    hintFlags: [],
    serviceFlags: [],
    now: () => Date.parse('2026-12-04T12:00:00Z'),
  };
}

describe('set-state: run(options, deps) for one event', () => {
  it('--state and --comments, no terminal: read, read again, sent; one line says what changed', async () => {
    const id = await reviewEvent();
    const d = deps();
    const result = await ran(run(one(id, { state: 'escalated', comments: 'second look' }), d), d);
    expect(result).toEqual({ code: 0, stdout: `${id}  PENDING_REVIEW → ESCALATED  comment recorded\n`, stderr: '' });
    expect(await summaryOf(id)).toMatchObject({ state: 'ESCALATED', comments: 'second look' });
  });

  it('--json prints the body of the PATCH; --verbose the summary as tables', async () => {
    const id = await reviewEvent();
    const json = deps();
    await run(one(id, { state: 'in-review', json: true }), json);
    expect(JSON.parse(json.written.stdout)).toEqual(await summaryOf(id));
    const verbose = deps();
    await run(one(await reviewEvent(), { state: 'escalated', comments: 'look', verbose: true }), verbose);
    expect(verbose.written.stdout).toMatch(/state\s+│ ESCALATED/);
    expect(verbose.written.stdout).toMatch(/comments\s+│ look/);
  });

  it('a transition the service refuses: exit 5, its words and the hint, nothing changed', async () => {
    const id = await reviewEvent();
    const d = deps();
    const result = await ran(run(one(id, { state: 'fraud-confirmed' }), d), d);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('INVALID_STATE_TRANSITION');
    expect(result.stderr).toContain('fraudctl set-state --help');
    expect((await summaryOf(id)).state).toBe('PENDING_REVIEW');
  });

  it('--dry-run of that transition: the request shown, then the refusal the real run would meet (exit 5); nothing sent', async () => {
    const id = await reviewEvent();
    const d = deps();
    const result = await ran(run(one(id, { state: 'fraud-confirmed', dryRun: true }), d), d);
    expect(result.code).toBe(5);
    expect(result.stdout).toContain(`PATCH ${cli.sb.url}/event/${id}/state`);
    expect(result.stdout).toContain('x-client-api-key: [redacted]');
    expect(result.stderr).toMatch(/^error: the real run would be refused: .* PENDING_REVIEW → FRAUD_CONFIRMED/m);
    expect((await summaryOf(id)).state).toBe('PENDING_REVIEW');
  });

  it('off a terminal without --state: exit 2 naming --state, nothing read', async () => {
    const id = await reviewEvent();
    const d = deps();
    const result = await ran(run(one(id), d), d);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: set-state needs --state \(or --comments\) when it cannot prompt$/m);
  });

  it('with a person to ask: the state from the allowed ones, a comment, then the confirmation before → after', async () => {
    const id = await reviewEvent();
    const prompter = answering(['APPROVED', 'verified by phone', true]);
    const d = deps({ prompter });
    const result = await ran(run(one(id), d), d);
    expect(result.code, result.stderr).toBe(0);
    expect(prompter.asked).toEqual([
      'New state (from PENDING_REVIEW)',
      'Comments (optional)',
      `Change ${id}: PENDING_REVIEW → APPROVED with comment "verified by phone"?`,
    ]);
    expect(result.stdout).toBe(`${id}  PENDING_REVIEW → APPROVED  comment recorded\n`);
    expect(await summaryOf(id)).toMatchObject({ state: 'APPROVED', comments: 'verified by phone' });
  });

  it('a colleague decides while the confirmation is up: what changed is said, the question asked again; no sends nothing', async () => {
    const id = await reviewEvent();
    const colleague = async () => {
      await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state: 'DECLINED' } });
      return true;
    };
    const prompter = answering(['', colleague, false]);
    const d = deps({ prompter });
    const result = await ran(run(one(id, { state: 'approved' }), d), d);
    expect(result.code).toBe(130);
    expect(prompter.asked).toEqual([
      'Comments (optional)',
      `Change ${id}: PENDING_REVIEW → APPROVED?`,
      `Change ${id}: DECLINED → APPROVED?`,
    ]);
    expect(result.stderr).toContain(`${id} changed since you read it: state PENDING_REVIEW → DECLINED\n`);
    expect((await summaryOf(id)).state).toBe('DECLINED');
  });

  it('with a person to ask who says no: exit 130, nothing changed', async () => {
    const id = await reviewEvent();
    const d = deps({ prompter: answering([false]) });
    const result = await ran(run(one(id, { state: 'declined', comments: 'no' }), d), d);
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('cancelled: nothing was changed');
    expect(await summaryOf(id)).toMatchObject({ state: 'PENDING_REVIEW', comments: null });
  });
});

describe('set-state: run(options, deps) for many events', () => {
  it('many ids with --yes: a line per id, the summary, each changed; one the guard skips says why', async () => {
    const [a, b, c] = [await reviewEvent(), await reviewEvent(), await reviewEvent()];
    await cli.sb.call('PATCH', `/event/${c}/state`, { body: { state: 'DECLINED' } });
    const d = deps();
    const result = await ran(run(many([a, b, c], { comments: 'ring 7' }), d), d);
    expect(result.code, result.stderr).toBe(0);
    // A line per id as each settles (in any order).
    expect(result.stdout.split('\n').sort()).toEqual(
      [
        '',
        `${a}  PENDING_REVIEW → DECLINED  changed`,
        `${b}  PENDING_REVIEW → DECLINED  changed`,
        `${c}  DECLINED  skipped: already DECLINED`,
      ].sort(),
    );
    expect(result.stderr).toMatch(/changed\s+2\s+to DECLINED, from PENDING_REVIEW 2/);
    expect(await Promise.all([a, b].map(summaryOf))).toMatchObject([
      { state: 'DECLINED', comments: 'ring 7' },
      { state: 'DECLINED', comments: 'ring 7' },
    ]);
  });

  it('a transition the known rules do not allow is skipped; a missing id is exit 4, with one line saying how many', async () => {
    const id = await reviewEvent();
    await cli.sb.call('PATCH', `/event/${id}/state`, { body: { state: 'APPROVED' } });
    const d = deps();
    const result = await ran(run(many([id, 'no-such-event'], { state: 'escalated' }), d), d);
    expect(result.code).toBe(4);
    expect(result.stdout).toContain(
      `${id}  APPROVED  skipped: APPROVED → ESCALATED is not allowed (--force-state sends it)`,
    );
    expect(result.stderr).toMatch(/^error: 1 of 2 ids were not changed: 1 not found$/m);
    expect((await summaryOf(id)).state).toBe('APPROVED');
  });

  it('without --yes and no one to ask: exit 2 saying to add --yes or --dry-run, nothing changed', async () => {
    const [a, b] = [await reviewEvent(), await reviewEvent()];
    const d = deps();
    const result = await ran(run(many([a, b], { yes: false }), d), d);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^add --yes, or --dry-run to see the plan$/m);
    expect((await Promise.all([a, b].map(summaryOf))).map((s) => s.state)).toEqual([
      'PENDING_REVIEW',
      'PENDING_REVIEW',
    ]);
  });

  it('with a person to ask: the plan, one question (default no); yes changes the planned ones', async () => {
    const [a, b] = [await reviewEvent(), await reviewEvent()];
    const prompter = answering([true]);
    const d = deps({ prompter });
    const result = await ran(run(many([a, b], { yes: false }), d), d);
    expect(result.code, result.stderr).toBe(0);
    expect(prompter.asked).toEqual(['Change 2 events to DECLINED?']);
    expect(result.stderr).toMatch(/^Plan: change 2 of 2 events to DECLINED$/m);
    expect((await Promise.all([a, b].map(summaryOf))).map((s) => s.state)).toEqual(['DECLINED', 'DECLINED']);
  });
});

describe('set-state for many ids: the second Ctrl-C', () => {
  it('pressed the moment "press Ctrl-C again" is said, it aborts the run (a listener is there), never meets none', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await reviewEvent());
    const d = deps();
    // Signals as main delivers them: each resolves the waiters of the moment, which stop
    // listening; one that meets no waiter is the default action, the process ended where it stands.
    let waiters: ((signal: NodeJS.Signals) => void)[] = [];
    let endedWhereItStood = false;
    const signal = () => {
      if (waiters.length === 0) return void (endedWhereItStood = true);
      const now = waiters;
      waiters = [];
      for (const resolve of now) resolve('SIGINT');
    };
    d.context.waitForShutdown = () => new Promise((resolve) => void waiters.push(resolve));
    const hook = (stream: NodeJS.WritableStream, onText: (text: string) => void) => {
      const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
      stream.write = ((chunk: unknown, ...rest: unknown[]) => {
        const written = write(chunk, ...rest);
        onText(String(chunk));
        return written;
      }) as typeof stream.write;
    };
    let first = true;
    hook(d.context.stdout, () => {
      if (!first) return;
      first = false;
      signal();
    });
    // The second comes as the words that ask for it are written: before the code after them runs.
    hook(d.context.stderr, (text) => {
      if (text.includes('press Ctrl-C again')) signal();
    });
    const result = await ran(run(many(ids, { concurrency: 1 }), d), d);
    expect(endedWhereItStood).toBe(false);
    expect(result.stderr).toContain('stopping: finishing');
    expect(result.code).toBe(130);
  });
});
