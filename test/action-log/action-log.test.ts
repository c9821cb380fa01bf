import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSessionLog } from '../../src/action-log/action-log.js';
import type { LogEntry } from '../../src/review-queue/queue-model.js';
import { tempDir } from '../support/sandbox.js';

const tmp = tempDir('fraudctl-log-');
afterAll(() => tmp.remove());

const entry = (eventId: string): LogEntry => ({ eventId, action: 'approve', from: 'IN_REVIEW', to: 'APPROVED', comments: 'ok\u202e', requestId: 'r', outcome: 'ok', status: null });

describe('the session log', () => {
  it('appends whole JSON lines in the order of the actions, after what the file held, bidi escaped', async () => {
    const path = join(tmp.dir, 'review.log');
    writeFileSync(path, '{"earlier":true}\n');
    const log = await openSessionLog(path, () => new Date('2026-01-02T03:04:05.000Z'));
    await Promise.all(['e1', 'e2', 'e3'].map((id) => log.append(entry(id))));
    await log.close();
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('\\u202e');
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.eventId ?? 'earlier')).toEqual(['earlier', 'e1', 'e2', 'e3']);
    expect(Object.keys(lines[1]!)).toEqual(['time', 'eventId', 'action', 'from', 'to', 'comments', 'requestId', 'outcome', 'status']);
    expect(lines[1]!.time).toBe('2026-01-02T03:04:05.000Z');
  });

  it('a path that cannot be opened is a usage error', async () => {
    await expect(openSessionLog(join(tmp.dir, 'missing', 'dir', 'x.log'))).rejects.toMatchObject({ exitCode: 2 });
  });

  it('has one writer at a time (review and set-state alike): a log another live run writes is refused, exit 2, naming it and the pid; a session removes its lock at close', async () => {
    const path = join(tmp.dir, 'shared.log');
    const own = await openSessionLog(path);
    expect(existsSync(`${path}.lock`)).toBe(true);
    await own.close();
    expect(existsSync(`${path}.lock`)).toBe(false);

    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${path}.lock`, JSON.stringify({ pid: other.pid, host: hostname() }));
      await expect(openSessionLog(path)).rejects.toMatchObject({
        exitCode: 2,
        message: `${path} is being written by another fraudctl run (pid ${other.pid}): one run at a time may write it, and this one did nothing`,
      });
    } finally {
      other.kill('SIGKILL');
    }
  });
});
