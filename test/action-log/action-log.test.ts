import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSessionLog, type LogContext } from '../../src/action-log/action-log.js';
import { GENESIS, lineHash } from '../../src/action-log/log-chain.js';
import { verifyLog } from '../../src/action-log/verify-log.js';
import type { LogEntry } from '../../src/review-queue/queue-model.js';
import { tempDir } from '../support/sandbox.js';
import { notUnderWine, UNDER_WINE } from '../support/prerequisites.js';

const tmp = tempDir('fraudctl-log-');
afterAll(() => tmp.remove());

const entry = (eventId: string): LogEntry => ({ eventId, action: 'approve', from: 'IN_REVIEW', to: 'APPROVED', comments: 'ok\u202e', requestId: 'r', outcome: 'ok', status: null });
const who = (analyst: string): LogContext => ({ analyst, host: 'desk-1', profile: 'prod', service: 'https://fraud.example.com', version: '9.9.9', session: `session-of-${analyst}` });
const linesOf = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n');

describe('the session log', () => {
  it('appends whole JSON lines in the order of the actions, after what the file held, bidi escaped, each saying who and where, chained to the line before', async () => {
    const path = join(tmp.dir, 'review.log');
    writeFileSync(path, '{"earlier":true}\n');
    const log = await openSessionLog(path, who('ann'), undefined, () => new Date('2026-01-02T03:04:05.000Z'));
    await Promise.all(['e1', 'e2', 'e3'].map((id) => log.append(entry(id))));
    await log.close();
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('\\u202e');
    const raw = linesOf(path);
    const lines = raw.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.eventId ?? 'earlier')).toEqual(['earlier', 'e1', 'e2', 'e3']);
    expect(Object.keys(lines[1]!)).toEqual(['time', 'analyst', 'host', 'profile', 'service', 'version', 'session', 'eventId', 'action', 'from', 'to', 'comments', 'requestId', 'outcome', 'status', 'reason', 'line', 'prev']);
    expect(lines[1]).toMatchObject({ time: '2026-01-02T03:04:05.000Z', analyst: 'ann', host: 'desk-1', profile: 'prod', service: 'https://fraud.example.com', version: '9.9.9', session: 'session-of-ann', reason: null });
    // The first line written chains from the line the file held (an older build's), numbered by its place.
    expect(lines.slice(1).map((l) => [l.line, l.prev])).toEqual([1, 2, 3].map((i) => [i + 1, lineHash(Buffer.from(raw[i - 1]!))]));
  });

  it('a new file starts its chain at the genesis value; a file cut in the middle of a line gets a line feed before the next line', async () => {
    const path = join(tmp.dir, 'new.log');
    const log = await openSessionLog(path, who('ann'));
    await log.append(entry('a'));
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 30));
    await log.append(entry('b'));
    await log.close();
    const raw = readFileSync(path, 'utf8').split('\n');
    expect(raw).toHaveLength(3);
    expect(raw[2]).toBe('');
    expect(JSON.parse(raw[1]!)).toMatchObject({ eventId: 'b', line: 2, prev: lineHash(Buffer.from(raw[0]!)) });
    const fresh = join(tmp.dir, 'fresh.log');
    const again = await openSessionLog(fresh, who('ann'));
    await again.append(entry('c'));
    await again.close();
    expect(JSON.parse(linesOf(fresh)[0]!)).toMatchObject({ line: 1, prev: GENESIS });
  });

  it('a log renamed while open (logrotate) is followed: the next lines go to a file at the path again, its own chain, said once per rename; both files verify', async () => {
    const path = join(tmp.dir, 'rotated.log');
    const notes: string[] = [];
    const log = await openSessionLog(path, who('ann'), (line) => notes.push(line));
    await log.append(entry('before'));
    // logrotate's default: rename, then create an empty file at the path.
    renameSync(path, `${path}.1`);
    writeFileSync(path, '');
    await log.append(entry('after-1'));
    await log.append(entry('after-2'));
    // Rotated again with nocreate: the session makes the file itself. Not on Windows, where a
    // path naming nothing may be a deletion (the link count is not trusted there): it stops.
    renameSync(path, `${path}.2`);
    if (process.platform === 'win32') {
      await expect(log.append(entry('last'))).rejects.toThrow(/deleted/);
      writeFileSync(path, '');
      await log.append(entry('last'));
    } else {
      await log.append(entry('last'));
    }
    await log.close();
    const ids = (p: string) => linesOf(p).map((l) => (JSON.parse(l) as { eventId: string }).eventId);
    expect([ids(`${path}.1`), ids(`${path}.2`), ids(path)]).toEqual([['before'], ['after-1', 'after-2'], ['last']]);
    expect(JSON.parse(linesOf(path)[0]!)).toMatchObject({ line: 1, prev: GENESIS });
    expect(notes).toHaveLength(2);
    expect(notes[0]).toBe(`note: ${path} was renamed while this session wrote to it (rotated?): its next lines go to a new ${path}, which starts its own chain\n`);
    for (const file of [`${path}.1`, `${path}.2`, path]) expect((await verifyLog(file)).intact, file).toBe(true);
  });

  it('a log deleted while open is not followed: the append fails naming it, so the change is not sent', async () => {
    notUnderWine(UNDER_WINE.deletedWhileOpen);
    const path = join(tmp.dir, 'deleted.log');
    const log = await openSessionLog(path, who('ann'));
    await log.append(entry('before'));
    unlinkSync(path);
    await expect(log.append(entry('after'))).rejects.toThrow(/deleted/);
    await log.close();
    expect(existsSync(path)).toBe(false);
  });

  it('a path that cannot be opened is a usage error', async () => {
    await expect(openSessionLog(join(tmp.dir, 'missing', 'dir', 'x.log'), who('ann'))).rejects.toMatchObject({ exitCode: 2 });
  });

  it('two sessions share one log (issue 29 reverses "one session at a time"): their lines interleave in one whole chain, and no lock is held between appends', async () => {
    const path = join(tmp.dir, 'shared.log');
    const ann = await openSessionLog(path, who('ann'));
    const bob = await openSessionLog(path, who('bob'));
    expect(existsSync(`${path}.lock`)).toBe(false);
    for (const id of ['1', '2', '3']) {
      await ann.append(entry(`a${id}`));
      await bob.append(entry(`b${id}`));
    }
    await Promise.all([ann.close(), bob.close()]);
    const raw = linesOf(path);
    const lines = raw.map((l) => JSON.parse(l) as { analyst: string; line: number; prev: string });
    expect(lines.map((l) => l.analyst)).toEqual(['ann', 'bob', 'ann', 'bob', 'ann', 'bob']);
    expect(lines.map((l) => l.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lines.map((l) => l.prev)).toEqual([GENESIS, ...raw.slice(0, -1).map((l) => lineHash(Buffer.from(l)))]);
  });

  it('an append waits for another process holding the log’s lock for its append, then goes on; a lock left by a process that is gone is taken over with a note', async () => {
    const path = join(tmp.dir, 'held.log');
    const lock = `${path}.lock`;
    const log = await openSessionLog(path, who('ann'));
    // Another process takes the lock as an append does, and gives it back a moment later.
    const other = spawn(process.execPath, ['-e', `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(lock)}, JSON.stringify({ pid: process.pid, host: require('os').hostname() })); console.log('held'); setTimeout(() => fs.unlinkSync(${JSON.stringify(lock)}), 300);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => other.stdout.once('data', resolve));
    const started = performance.now();
    await log.append(entry('waited'));
    expect(performance.now() - started).toBeGreaterThan(100);
    expect(existsSync(lock)).toBe(false);

    const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => gone.on('exit', resolve));
    writeFileSync(lock, JSON.stringify({ pid: gone.pid, host: hostname() }));
    const notes: string[] = [];
    const bob = await openSessionLog(path, who('bob'), (line) => notes.push(line));
    await bob.append(entry('x'));
    await bob.close();
    expect(notes).toEqual([`note: ${lock} was left by a fraudctl run that is no longer running (pid ${gone.pid}): taking it over\n`]);
    await log.append(entry('y'));
    await log.close();
    expect(linesOf(path).map((l) => (JSON.parse(l) as { eventId: string; line: number }).eventId)).toEqual(['waited', 'x', 'y']);
    expect(existsSync(lock)).toBe(false);
  }, 30_000);

  it('while an append waits for another process’s lock, this process goes on (a review screen is not frozen); appends asked for meanwhile land in order', async () => {
    const path = join(tmp.dir, 'waiting.jsonl');
    const lock = `${path}.lock`;
    const go = join(tmp.dir, 'waiting.go');
    const log = await openSessionLog(path, who('ann'));
    // Another process holds the log's lock until this test says so (no timing involved).
    const other = spawn(
      process.execPath,
      ['-e', `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(lock)}, JSON.stringify({ pid: process.pid, host: require('os').hostname() })); console.log('held'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) { fs.unlinkSync(${JSON.stringify(lock)}); clearInterval(t); } }, 5);`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => other.stdout.once('data', resolve));
    let settled = false;
    const first = log.append(entry('first')).then(() => (settled = true));
    const second = log.append(entry('second'));
    // The event loop turns while both wait: a blocking wait would hold it for the lock's 10 s and fail.
    for (let turns = 0; turns < 20; turns++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    writeFileSync(go, '');
    await Promise.all([first, second]);
    await log.close();
    expect(linesOf(path).map((l) => (JSON.parse(l) as { eventId: string }).eventId)).toEqual(['first', 'second']);
  }, 30_000);
});
