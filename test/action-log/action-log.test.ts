import { readFileSync, writeFileSync } from 'node:fs';
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
});
