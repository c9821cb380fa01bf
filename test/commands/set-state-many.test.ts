import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import type { ChangeResult } from '../../src/results-file/change-result.js';
import { runCli, startCli } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { useCli } from '../support/cli-against-sandbox.js';
import { readResultsFile } from '../support/batch-events.js';
import { startOnTerminal } from '../support/pty.js';
import { DEMO_KEY, send, stateChangesIn } from '../support/sandbox.js';
import { startStaticFileServer, type StaticServer } from '../support/static-file-server.js';
import { useServer } from '../support/listen.js';
import { inReview, postInReview } from '../support/event-fixtures.js';

/*
 * `set-state` for many events, as fraudctl runs it against the real sandbox: the guard, the
 * plan and its confirmation in a real terminal, --dry-run and --yes, results and resume after
 * kill -9, a change made by someone else between plan and PATCH, seeded faults, unknown and
 * malformed ids, a state this build does not know, and a URL that is not the service. The
 * sandboxes keep their database in a file, so that every state change they recorded (the
 * state_changes table) can be counted: nothing sent by --dry-run, nothing changed twice. A run
 * is in-process (main()) unless it needs a process: a terminal, a signal, kill -9, stdin left open.
 */

const cli = useCli((dir) => ({
  sb: { dbPath: join(dir, 'sandbox.db') },
  chaos: {
    dbPath: join(dir, 'chaos.db'),
    chaos: '503=0.05,504=0.05,reset-before=0.03,reset-after=0.05,retry-after=0,seed=3',
  },
  slow: { dbPath: join(dir, 'slow.db'), chaos: 'latency=15-30,seed=1' },
}));
const { sb, chaos, slow } = cli.sandboxes;
const db = join(cli.dir, 'sandbox.db');
const chaosDb = join(cli.dir, 'chaos.db');
const slowDb = join(cli.dir, 'slow.db');

const env = (url: string, extra: Record<string, string> = {}) =>
  cli.env({ FRAUDCTL_BASE_URL: url, FRAUDCTL_API_KEY: DEMO_KEY, ...extra });
const run = (args: string[], url = sb.url) => runInProcess(args, env(url));
let fileNo = 0;
const file = (name: string, content = '') => {
  const path = join(cli.dir, `${++fileNo}-${name}`);
  if (content !== '') writeFileSync(path, content);
  return path;
};

/** Events in PENDING_REVIEW, ids `${prefix}-1` …, created in the sandbox at `url`. */
async function pending(url: string, prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  for (const id of ids) await postInReview(url, inReview(id));
  return ids;
}
const stateOf = async (id: string, url = sb.url) =>
  ((await send(url, 'GET', `/event/${encodeURIComponent(id)}`)).json as EventSummary).state;
const patch = (id: string, state: string, url = sb.url) =>
  send(url, 'PATCH', `/event/${id}/state`, { body: { state } });

const changesOf = stateChangesIn;

/** A line of a results file, as the product writes it. */
type Line = ChangeResult;
const readLines = (path: string): Line[] => readResultsFile(path).results as unknown as Line[];

describe('set-state for many events: the guard, a result per id, exit codes', () => {
  it('reads before writing: changes what the guard allows, skips the rest saying why, one result line per id', async () => {
    const [a, b, c, d, e] = await pending(sb.url, 'guard', 5);
    await patch(b!, 'DECLINED');
    await patch(c!, 'ESCALATED');
    await patch(d!, 'APPROVED');
    await patch(d!, 'FRAUD_CONFIRMED');
    const ids = file('ids.txt', `# the ring\n${a}\n${b}\n${c}\n\n${d}\nno-such-event\n`);
    const out = file('out.jsonl');
    const log = file('log.jsonl');
    const all = await run([
      'set-state',
      e!,
      'bad-id/ö',
      '--from',
      ids,
      '--state',
      'declined',
      '--comments',
      'ring 7',
      '--if-state',
      'Pending-Review,escalated,fraud_confirmed',
      '--yes',
      '--out',
      out,
      '--log',
      log,
    ]);
    expect(all.code, all.stderr).toBe(4);
    const lines = readLines(out);
    const byId = new Map(lines.map((l) => [l.id, l]));
    // One line per id, written as each is settled (in any order).
    expect(lines.map((l) => l.item).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(byId.get(e!)).toMatchObject({
      from: 'PENDING_REVIEW',
      to: 'DECLINED',
      outcome: 'CHANGED',
      where: 'argument 1',
    });
    expect(byId.get('bad-id/ö')).toMatchObject({
      outcome: 'INVALID',
      status: 422,
      errorCodes: ['eventId:INVALID_FORMAT'],
    });
    expect(byId.get(a!)).toMatchObject({
      from: 'PENDING_REVIEW',
      outcome: 'CHANGED',
      reason: null,
      where: expect.stringMatching(/ids\.txt:2$/),
    });
    expect(byId.get(b!)).toMatchObject({ from: 'DECLINED', outcome: 'SKIPPED', reason: 'already DECLINED' });
    expect(byId.get(c!)).toMatchObject({ from: 'ESCALATED', outcome: 'CHANGED' });
    expect(byId.get(d!)).toMatchObject({
      from: 'FRAUD_CONFIRMED',
      outcome: 'SKIPPED',
      reason: 'FRAUD_CONFIRMED → DECLINED is not allowed (--force-state sends it)',
    });
    expect(byId.get('no-such-event')).toMatchObject({ outcome: 'NOT_FOUND', status: 404 });
    // Every line carries the status that settled it: the PATCH's for a change, the read's for a skip.
    expect([byId.get(e!)!.status, byId.get(a!)!.status, byId.get(b!)!.status]).toEqual([200, 200, 200]);
    expect(lines.every((l) => typeof l.status === 'number')).toBe(true);
    expect(await Promise.all([a, c].map((id) => stateOf(id!)))).toEqual(['DECLINED', 'DECLINED']);
    expect(((await send(sb.url, 'GET', `/event/${a}`)).json as EventSummary).comments).toBe('ring 7');
    expect(all.stderr).toMatch(/changed\s+3\s+to DECLINED, from PENDING_REVIEW 2 · ESCALATED 1/);
    expect(all.stderr).toMatch(/skipped\s+2\s+already DECLINED 1 · FRAUD_CONFIRMED → DECLINED is not allowed/);
    expect(all.stderr).toMatch(/^error: 2 of 7 ids were not changed: 1 not found, 1 invalid$/m);
    // The same action lines as review --log: one before each change is sent, one for its outcome.
    const logged = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { eventId: string; action: string; from: string; to: string; outcome: string });
    const perEvent = (id: string | undefined) =>
      logged.filter((l) => l.eventId === id).map((l) => [l.action, l.from, l.to, l.outcome]);
    expect(perEvent(e)).toEqual([
      ['decline', 'PENDING_REVIEW', 'DECLINED', 'sending'],
      ['decline', 'PENDING_REVIEW', 'DECLINED', 'ok'],
    ]);
    expect(perEvent(a)).toEqual([
      ['decline', 'PENDING_REVIEW', 'DECLINED', 'sending'],
      ['decline', 'PENDING_REVIEW', 'DECLINED', 'ok'],
    ]);
    expect(perEvent(c)).toEqual([
      ['decline', 'ESCALATED', 'DECLINED', 'sending'],
      ['decline', 'ESCALATED', 'DECLINED', 'ok'],
    ]);
    expect(logged).toHaveLength(6);
  });

  it('without --out: a line per id on stdout (JSON Lines with --json); ids from a submit --out file; --if-state with a typo gets a did-you-mean', async () => {
    const [a, b] = await pending(sb.url, 'lines', 2);
    await patch(b!, 'APPROVED');
    const results = file(
      'results.jsonl',
      `{"line":1,"id":"${a}","outcome":"DECIDED","actionType":"REVIEW"}\n{"line":2,"id":null,"outcome":"REJECTED"}\n{"line":3,"id":"${b}","outcome":"DECIDED","actionType":"REVIEW"}\n`,
    );
    const text = await run(['set-state', '--from', results, '--state', 'approved', '--yes']);
    expect(text.code, text.stderr).toBe(4);
    expect(text.stdout.split('\n').sort()).toEqual([
      '',
      `(${results}:2)  invalid: no id (an event that was never stored has none)`,
      `${a}  PENDING_REVIEW → APPROVED  changed`,
      `${b}  APPROVED  skipped: already APPROVED`,
    ]);
    const json = await run(['set-state', a!, b!, '--state', 'declined', '--yes', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Line).outcome),
    ).toEqual(['CHANGED', 'CHANGED']);
    const typo = await run(['set-state', a!, b!, '--state', 'approved', '--if-state', 'pendng-review', '--yes']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^error: --if-state: unknown state "pendng-review": did you mean PENDING_REVIEW\?$/m);
  });

  it('off a terminal, without --yes: exit 2 saying to add --yes or --dry-run, and nothing is read or changed', async () => {
    const [a, b] = await pending(sb.url, 'noyes', 2);
    const before = changesOf(db, [a!, b!]);
    const result = await run(['set-state', a!, b!, '--state', 'declined']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: set-state for many events asks for a confirmation, and there is no terminal to ask on/m,
    );
    expect(result.stderr).toMatch(/^add --yes, or --dry-run to see the plan$/m);
    expect(changesOf(db, [a!, b!])).toEqual(before);
  });

  it('a refused key stops at once: exit 3, one line, nothing changed', async () => {
    const ids = await pending(sb.url, 'badkey', 3);
    const before = [...changesOf(db, ids).values()];
    const result = await runInProcess(
      ['set-state', ...ids, '--state', 'declined', '--yes', '--concurrency', '1'],
      env(sb.url, { FRAUDCTL_API_KEY: 'wrong-key' }),
    );
    expect(result.code).toBe(3);
    expect(result.stderr.split('\n').filter((l) => l.startsWith('error: '))).toEqual([
      expect.stringMatching(/^error: the service did not accept the API key/),
    ]);
    expect(result.stderr).toContain('stopped: the service refused the API key');
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect([...changesOf(db, ids).values()]).toEqual(before);
  });

  it('ids that come slowly on stdin: each is changed as it comes; Ctrl-C while waiting for the next ends at once, exit 130, nothing lost', async () => {
    const ids = await pending(sb.url, 'trickle', 2);
    const before = changesOf(db, ids);
    const running = startCli(['set-state', '--from', '-', '--state', 'declined', '--yes'], {
      env: env(sb.url),
      keepStdinOpen: true,
    });
    try {
      for (const [i, id] of ids.entries()) {
        running.child.stdin.write(`${id}\n`);
        await expect
          .poll(() => running.output().stdout.trim().split('\n').filter(Boolean).length, {
            timeout: 5000,
            message: `the line of ${id} while the next id has not come:\n${running.output().stdout}`,
          })
          .toBe(i + 1);
      }
      running.child.kill('SIGINT');
      const result = await Promise.race([
        running.done,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`still running 5 s after SIGINT (stdin still open):\n${running.output().stderr}`)),
            5000,
          ),
        ),
      ]);
      expect(result.code, result.stderr).toBe(130);
      expect(result.stdout.trim().split('\n')).toEqual(ids.map((id) => `${id}  PENDING_REVIEW → DECLINED  changed`));
      expect(result.stderr).toContain('interrupted: the ids in flight were finished, no new id was read');
      expect(result.stderr).not.toMatch(/could not be read|AbortError/);
      // Each changed once.
      expect([...changesOf(db, ids).entries()]).toEqual([...before.entries()].map(([id, n]) => [id, n + 1]));
    } finally {
      running.child.kill('SIGKILL');
    }
  });

  it('a refused key stops at once also while the next id has not come on stdin: exit 3 without waiting for it', async () => {
    const [id] = await pending(sb.url, 'trickle-badkey', 1);
    const running = startCli(['set-state', '--from', '-', '--state', 'declined', '--yes'], {
      env: env(sb.url, { FRAUDCTL_API_KEY: 'wrong-key' }),
      keepStdinOpen: true,
    });
    try {
      running.child.stdin.write(`${id}\n`);
      const result = await Promise.race([
        running.done,
        new Promise<never>((_, reject) =>
          setTimeout(
            () =>
              reject(
                new Error(
                  `still running 5 s after the key was refused (stdin still open):\n${running.output().stderr}`,
                ),
              ),
            5000,
          ),
        ),
      ]);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toContain('stopped: the service refused the API key');
    } finally {
      running.child.kill('SIGKILL');
    }
  });

  it("--comments never silently replaces a colleague's note: without --append-comment or --replace-comment an event with a comment of its own is skipped, saying why; with one, kept or replaced", async () => {
    const commented = async (prefix: string) => {
      const [noted, plain] = await pending(sb.url, prefix, 2);
      expect(
        (await send(sb.url, 'PATCH', `/event/${noted}/state`, { body: { comments: 'colleague: fraud ring' } })).status,
      ).toBe(200);
      return [noted!, plain!] as const;
    };
    const commentOf = async (id: string) => ((await send(sb.url, 'GET', `/event/${id}`)).json as EventSummary).comments;
    // Neither flag: the event with a note is skipped (its state and note as they were), the other changed.
    const [noted, plain] = await commented('note-keep');
    const out = file('note.jsonl');
    const result = await run([
      'set-state',
      noted,
      plain,
      '--state',
      'declined',
      '--comments',
      'ring 9',
      '--yes',
      '--out',
      out,
    ]);
    // Not changed as asked: exit 1, so a script notices.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      /^error: 1 of 2 ids were not changed: 1 kept a comment of its own \(--append-comment or --replace-comment says what to do with it\)$/m,
    );
    const lines = new Map(readLines(out).map((l) => [l.id, l]));
    expect(lines.get(noted)).toMatchObject({
      outcome: 'SKIPPED',
      reason: 'has a comment of its own: not changed (--append-comment keeps it, --replace-comment replaces it)',
    });
    expect(lines.get(plain)).toMatchObject({ outcome: 'CHANGED' });
    expect([await stateOf(noted), await commentOf(noted)]).toEqual(['PENDING_REVIEW', 'colleague: fraud ring']);
    expect(await commentOf(plain)).toBe('ring 9');
    expect(result.stderr).toMatch(/skipped\s+1\s+has a comment of its own/);
    // --append-comment keeps the note, this one after it; --replace-comment replaces it.
    const [kept] = await commented('note-append');
    expect(
      (
        await run([
          'set-state',
          kept,
          '--from',
          '/dev/null',
          '--state',
          'declined',
          '--comments',
          'ring 9',
          '--append-comment',
          '--yes',
        ])
      ).code,
    ).toBe(0);
    expect(await commentOf(kept)).toBe('colleague: fraud ring | ring 9');
    const [replaced] = await commented('note-replace');
    expect(
      (
        await run([
          'set-state',
          replaced,
          '--from',
          '/dev/null',
          '--state',
          'declined',
          '--comments',
          'ring 9',
          '--replace-comment',
          '--yes',
        ])
      ).code,
    ).toBe(0);
    expect(await commentOf(replaced)).toBe('ring 9');
    // A resume with another choice than the first run's is refused: the record names it.
    const resumed = await run([
      'set-state',
      noted,
      plain,
      '--state',
      'declined',
      '--comments',
      'ring 9',
      '--replace-comment',
      '--yes',
      '--out',
      out,
      '--resume',
    ]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(
      'written with neither --append-comment nor --replace-comment, this run has --replace-comment',
    );
  });

  it('--dry-run reads, prints the plan and a line per id, and sends nothing (counted at the sandbox)', async () => {
    const ids = await pending(sb.url, 'dry', 4);
    await patch(ids[3]!, 'DECLINED');
    const before = [...changesOf(db, ids).values()];
    const result = await run(['set-state', ...ids, '--state', 'declined', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    // A line per id as each settles (in any order), in columns (the move column as wide as FRAUD_CONFIRMED → DECLINED).
    expect(result.stdout.trim().split('\n').sort()).toEqual(
      [
        ...ids.slice(0, 3).map((id) => `${id}  PENDING_REVIEW → DECLINED   would change`),
        `${ids[3]}  DECLINED                    skipped: already DECLINED`,
      ].sort(),
    );
    expect(result.stderr).toMatch(/^Plan: change 3 of 4 events to DECLINED\n {2}from {7}PENDING_REVIEW 3$/m);
    expect(result.stderr).toMatch(/skipped\s+1: already DECLINED 1/);
    expect(result.stderr).toContain('Dry run: nothing was changed.');
    expect([...changesOf(db, ids).values()]).toEqual(before);
  });

  it('--dry-run lines are in columns: ids of any length, moves and kept states, ids not found', async () => {
    const [short] = await pending(sb.url, 'c', 1);
    const [long] = await pending(sb.url, 'a-much-longer-prefix', 1);
    await patch(long!, 'APPROVED');
    const result = await run(['set-state', short!, 'nope', long!, '--state', 'declined', '--dry-run']);
    expect(result.code).toBe(4);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    const outcomes = new Set(lines.map((line) => line.search(/(would change|not found)/)));
    expect(outcomes.size, lines.join('\n')).toBe(1);
    const moves = new Set(lines.filter((line) => !line.includes('not found')).map((line) => line.search(/[A-Z]/)));
    expect(moves.size, lines.join('\n')).toBe(1);
  });
});

describe('set-state for many events on a terminal: the plan, then one question', () => {
  it('`n` changes nothing; `y` changes the planned ones', async () => {
    const ids = await pending(sb.url, 'confirm', 3);
    await patch(ids[2]!, 'DECLINED');
    const list = file('confirm.txt', `${ids.join('\n')}\n`);
    const ask = async (answer: string) => {
      const pty = await startOnTerminal(['set-state', '--from', list, '--state', 'declined', '--comments', 'ring'], {
        env: env(sb.url),
      });
      try {
        const screen = await pty.waitFor(/Change 2 events to DECLINED\?/);
        expect(screen).toMatch(/^Plan: change 2 of 3 events to DECLINED\n {2}from {7}PENDING_REVIEW 2$/m);
        expect(screen).toMatch(/\(y\/N\)/);
        await pty.send(answer, 'Enter');
        return await pty.exited();
      } finally {
        await pty.kill();
      }
    };
    const before = [...changesOf(db, ids).values()];
    // A results file that exists is refused before anything is read, not after the question.
    const taken = file('taken.jsonl', '{}\n');
    const early = await startOnTerminal(['set-state', '--from', list, '--state', 'declined', '--out', taken], {
      env: env(sb.url),
    });
    try {
      const { code, screen } = await early.exited();
      expect(code).toBe(2);
      expect(screen).toContain(`error: ${taken} already exists`);
      expect(screen).not.toContain('Plan:');
    } finally {
      await early.kill();
    }
    const no = await ask('n');
    expect(no.code).toBe(130);
    expect(no.screen).toContain('cancelled: nothing was changed');
    expect([...changesOf(db, ids).values()]).toEqual(before);
    const yes = await ask('y');
    expect(yes.code, yes.screen).toBe(0);
    expect(yes.screen).toContain(`${ids[0]}  PENDING_REVIEW → DECLINED  changed`);
    expect(await Promise.all(ids.map((id) => stateOf(id)))).toEqual(['DECLINED', 'DECLINED', 'DECLINED']);
    expect([...changesOf(db, ids).values()]).toEqual([before[0]! + 1, before[1]! + 1, before[2]]);
  });

  it('an event changed by someone else between the plan and the PATCH is a CONFLICT, naming both states, and is not sent', async () => {
    const ids = await pending(sb.url, 'conflict', 3);
    const out = file('conflict.jsonl');
    const pty = await startOnTerminal(
      ['set-state', ...ids, '--state', 'declined', '--if-state', 'pending-review', '--out', out],
      { env: env(sb.url) },
    );
    try {
      await pty.waitFor(/Change 3 events to DECLINED\?/);
      // Another analyst escalates one of them while the question is on screen.
      expect((await patch(ids[1]!, 'ESCALATED')).status).toBe(200);
      await pty.send('y', 'Enter');
      const { code } = await pty.exited();
      expect(code).toBe(1);
    } finally {
      await pty.kill();
    }
    const lines = readLines(out).sort((x, y) => x.item - y.item);
    expect(lines.map((l) => l.outcome)).toEqual(['CHANGED', 'CONFLICT', 'CHANGED']);
    expect(lines[1]).toMatchObject({
      from: 'ESCALATED',
      reason: 'PENDING_REVIEW at the plan, ESCALATED now: the change no longer applies, not sent',
    });
    expect(await stateOf(ids[1]!)).toBe('ESCALATED');
  });
});

describe('set-state for many events: interrupted, faults, servers that are not the sandbox', () => {
  it('Ctrl-C, then kill -9 mid-run, then --resume: one line per id, every event changed once', async () => {
    const ids = await pending(slow.url, 'kill', 30);
    const list = file('kill.txt', `${ids.join('\n')}\n`);
    const out = file('kill.jsonl');
    const args = ['set-state', '--from', list, '--state', 'approved', '--yes', '--out', out, '--concurrency', '2'];
    // Result lines, the header (the first line) not counted.
    const recorded = () => (existsSync(out) ? Math.max(0, readFileSync(out, 'utf8').split('\n').length - 2) : 0);
    const until = async (lines: number) => {
      for (let delay = 10; recorded() < lines; delay = Math.min(100, delay * 2))
        await new Promise((r) => setTimeout(r, delay));
    };
    // Ctrl-C: no new id is read, those in flight are finished and recorded, exit 130.
    const first = startCli(args, { env: env(slow.url) });
    await until(4);
    first.child.kill('SIGINT');
    const interrupted = await first.done;
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(interrupted.stderr).toContain('stopping: finishing the ids in flight');
    expect(interrupted.stderr).toMatch(/^error: interrupted after \d+ ids$/m);
    const afterInterrupt = readLines(out).length;
    expect(afterInterrupt).toBeLessThan(ids.length);
    // kill -9 of the resumed run.
    const second = startCli([...args, '--resume'], { env: env(slow.url) });
    await until(afterInterrupt + 4);
    second.child.kill('SIGKILL');
    await second.done;
    const cut = readLines(out).length;
    expect(cut).toBeLessThan(ids.length);
    const resumed = await runCli([...args, '--resume'], { env: env(slow.url), timeoutMs: 60_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    const lines = readLines(out);
    expect(lines.map((l) => l.item).sort((x, y) => x - y)).toEqual(ids.map((_, i) => i + 1));
    // An id the killed run changed without recording it is read first: already APPROVED, not changed again.
    expect(
      lines.every((l) => l.outcome === 'CHANGED' || (l.outcome === 'SKIPPED' && l.reason === 'already APPROVED')),
    ).toBe(true);
    expect([...changesOf(slowDb, ids).values()].filter((n) => n !== 1)).toEqual([]);
    expect(resumed.stderr).toMatch(new RegExp(`${cut} already done by the earlier run`));
  });

  it('under seeded --chaos faults: every id changed, nothing changed twice, nothing lost', async () => {
    // Created through a batch, which gets past the faults.
    const ids = Array.from({ length: 40 }, (_, i) => `chaos-${i + 1}`);
    const events = file(
      'chaos-events.jsonl',
      `${ids.map((id) => JSON.stringify({ id, amount: 1500, currency: 'EUR' })).join('\n')}\n`,
    );
    const submitted = file('chaos-submitted.jsonl');
    let created = await runInProcess(['submit', events, '--out', submitted, '-q'], env(chaos.url));
    // A line whose every attempt met a fault is FAILED: --resume settles it.
    if (created.code !== 0)
      created = await runInProcess(['submit', events, '--out', submitted, '-q', '--resume'], env(chaos.url));
    expect(created.code, created.stderr).toBe(0);
    const out = file('chaos.jsonl');
    const log = file('chaos-log.jsonl');
    const result = await run(
      [
        'set-state',
        ...ids,
        '--state',
        'escalated',
        '--comments',
        'second look',
        '--yes',
        '--out',
        out,
        '--concurrency',
        '8',
        '--log',
        log,
      ],
      chaos.url,
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = readLines(out);
    expect(lines).toHaveLength(ids.length);
    expect(lines.filter((l) => l.outcome !== 'CHANGED')).toEqual([]);
    expect([...changesOf(chaosDb, ids).values()].filter((n) => n !== 1)).toEqual([]);
    expect(result.stderr).toMatch(/retries\s+\d+/);
    // The faults met PATCHes too: answers lost after the change was made, settled by reading the event.
    const logged = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { outcome: string; message?: string });
    expect(
      logged.filter((l) => l.message === 'confirmed by reading the event again after the failure').length,
    ).toBeGreaterThan(0);
  });

  describe('against a tolerant-reader service whose events are in a state this build does not know', () => {
    const patches: string[] = [];
    const server = useServer((req, res) => {
      if (req.method === 'PATCH') patches.push(req.url ?? '');
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'x',
            totalScore: 40,
            state: req.method === 'PATCH' ? 'APPROVED' : 'ON_HOLD',
            allowlistMatch: false,
            denylistMatch: false,
            extra: { nested: true },
          }),
        );
      });
    });

    it('skips them naming the state as the service spelled it; --force-state sends the change', async () => {
      const skipped = await run(['set-state', 'h-1', 'h-2', '--state', 'approved', '--yes'], server.url);
      expect(skipped.code, skipped.stderr).toBe(0);
      // A line per id as each settles (in any order).
      expect(skipped.stdout.split('\n').sort()).toEqual([
        '',
        'h-1  ON_HOLD  skipped: ON_HOLD is not a state this build knows (--force-state sends it)',
        'h-2  ON_HOLD  skipped: ON_HOLD is not a state this build knows (--force-state sends it)',
      ]);
      expect(patches).toEqual([]);
      const forced = await run(
        ['set-state', 'h-1', 'h-2', '--state', 'approved', '--yes', '--force-state'],
        server.url,
      );
      expect(forced.code, forced.stderr).toBe(0);
      expect(patches.sort()).toEqual(['/event/h-1/state', '/event/h-2/state']);
    });
  });

  describe('a URL that is not the service (python3 -m http.server)', () => {
    let python: StaticServer;
    beforeAll(async () => {
      python = await startStaticFileServer(undefined, { unsupportedMethods: true });
    });
    afterAll(() => python.close());

    it('stops at once: no new ids, those in flight recorded, one line naming the URL, exit 1; --resume at the right URL finishes', async () => {
      const ids = await pending(sb.url, 'nts', 30);
      const out = file('nts.jsonl');
      const args = ['set-state', ...ids, '--state', 'declined', '--yes', '--out', out, '--concurrency', '4'];
      const wrong = await run(args, python.url);
      expect(wrong.code, wrong.stderr).toBe(1);
      expect(python.requests.length).toBeLessThanOrEqual(4);
      expect(readLines(out)).toHaveLength(python.requests.length);
      const errors = wrong.stderr.split('\n').filter((l) => l.startsWith('error: '));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /answered 404 with an HTML page titled "Error response".*so this URL is not the service, or not its base path/,
      );
      expect(wrong.stderr).toContain('stopped: the URL does not answer as the fraud-screening service');
      const resumed = await run([...args, '--resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(
        readLines(out)
          .map((l) => l.item)
          .sort((x, y) => x - y),
      ).toEqual(ids.map((_, i) => i + 1));
      expect(await Promise.all(ids.map((id) => stateOf(id)))).toEqual(ids.map(() => 'DECLINED'));
    });
  });
});
