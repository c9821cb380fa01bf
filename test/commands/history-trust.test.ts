import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSessionLog, type LogContext } from '../../src/action-log/action-log.js';
import { closedPort } from '../support/listen.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { shellWord } from '../../src/render/shell-command.js';
import { historyAt } from '../support/history-run.js';

/*
 * `history`'s run(options, deps) against the sandbox on port 0, over logs written by real set-state runs: a line
 * that breaks the log's hash chain is named and the story is not told as fact (exit 1), unless
 * --include-unverified, when its actions are marked; and when the event cannot be read now (not
 * found, the service down), the story from the logs is told all the same, then why "now" is
 * missing, with the failure's exit code.
 */

/** A path as a hint quotes it (POSIX sh, as the tests' environment has it): as is on Linux, quoted on Windows. */
const q = (path: string) => shellWord(path, 'sh');
/** Text, as a regular expression matches it literally (a Windows path's backslashes). */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const cli = useSandboxInProcess();
const history = (...args: Parameters<ReturnType<typeof historyAt>>) => historyAt(cli.sb.url)(...args);
let n = 0;

async function story(): Promise<{ id: string; log: string }> {
  const id = `ht-${++n}`;
  expect((await cli.sb.call('POST', '/event', { body: { id, amount: 1500, currency: 'EUR' } })).status).toBe(201);
  const log = join(cli.dir, `${id}.log`);
  for (const [state, comment] of [
    ['escalated', 'call the bank'],
    ['declined', 'stolen card'],
  ]) {
    const result = await cli.run([
      'set-state',
      id,
      '--state',
      state!,
      '--comments',
      comment!,
      '--replace-comment',
      '--log',
      log,
    ]);
    expect(result.code, result.stderr).toBe(0);
  }
  return { id, log };
}

describe('history believes only lines whose hash chain holds', () => {
  it('a comment changed by hand: named (file:line, kind), no story, exit 1; --include-unverified tells it with that action marked', async () => {
    const { id, log } = await story();
    const lines = readFileSync(log, 'utf8').split('\n');
    // Line 2: the outcome of the escalation; its comment rewritten.
    lines[1] = lines[1]!.replace('"comments":"call the bank"', '"comments":"customer confirmed"');
    writeFileSync(log, lines.join('\n'));
    const refused = await history(id, [log]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      new RegExp(`  ${literal(log)}:(2 edited: line 2 was edited|3 unlinked: line 3 does not follow line 2)`),
    );
    expect(refused.stderr).toContain(`error: 1 line of ${log} cannot be verified (`);
    expect(refused.stderr).toContain(
      `fraudctl log verify ${q(log)} says what happened; to read them too, said as unverified: ` +
        `fraudctl history ${id} --log ${q(log)} --include-unverified\n`,
    );

    const told = await history(id, [log], { includeUnverified: true });
    expect(told.code, told.stderr).toBe(0);
    expect(told.stderr).toContain('note: the story includes 1 unverified line (');
    const marked = told.stdout.split('\n').filter((l) => l.includes('UNVERIFIED'));
    expect(marked).toHaveLength(1);
    const json = await history(id, [log], { includeUnverified: true, json: true });
    const actions = (JSON.parse(json.stdout) as { actions: { unverified: string | null }[] }).actions;
    expect(actions.filter((a) => a.unverified !== null)).toHaveLength(1);
    expect(actions.find((a) => a.unverified !== null)!.unverified).toMatch(/^line [23] (edited|unlinked)$/);
  });
});

describe('history when the event cannot be read now', () => {
  it('not at the service (404): the story from the logs, then "now: not read", exit 4 with the error', async () => {
    // Logged by the real writer at this service, for an event it does not have (deleted since, say).
    const id = 'ht-gone';
    const log = join(cli.dir, 'gone.log');
    const context: LogContext = {
      analyst: 'Ann',
      host: 'desk',
      profile: 'default',
      service: cli.sb.url,
      version: '0.0.0',
      session: 's',
    };
    const writer = await openSessionLog(log, context);
    for (const [to, comments] of [
      ['ESCALATED', 'call the bank'],
      ['DECLINED', 'stolen card'],
    ] as const) {
      for (const outcome of ['sending', 'ok'] as const)
        await writer.append({
          eventId: id,
          action: to === 'DECLINED' ? 'decline' : 'escalate',
          from: null,
          to,
          comments,
          requestId: null,
          outcome,
          status: null,
        });
    }
    await writer.close();
    const result = await history(id, [log]);
    expect(result.code).toBe(4);
    expect(result.stdout).toContain(`${id}: 2 actions in ${log}`);
    expect(result.stdout).toContain('    comment: stolen card\n');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      `now: not read from ${cli.sb.url} (the error below says why)`,
    );
    expect(result.stderr).toMatch(/^error: .+/m);
  });

  it('the service down: the story all the same, exit 6; --json has now: null', async () => {
    const { id, log } = await story();
    const down = historyAt(`http://127.0.0.1:${await closedPort()}`);
    const result = await down(id, [log]);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stdout).toContain(`${id}: 2 actions in ${log}`);
    expect(result.stdout).toContain('now: not read from http://127.0.0.1:');
    const json = await down(id, [log], { json: true });
    expect(json.code).toBe(6);
    const value = JSON.parse(json.stdout) as { actions: unknown[]; now: unknown };
    expect(value.actions).toHaveLength(2);
    expect(value.now).toBeNull();
  });
});
