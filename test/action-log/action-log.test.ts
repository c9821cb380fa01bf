import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSessionLog, type LogContext } from '../../src/action-log/action-log.js';
import { checkSeal, GENESIS, lineHash } from '../../src/action-log/log-chain.js';
import { verifyLog } from '../../src/action-log/verify-log.js';
import type { LogEntry } from '../../src/review-queue/queue-model.js';
import { tempDir } from '../support/sandbox.js';
import { shellCommand } from '../../src/render/shell-command.js';
import { notOnWindows, notUnderWine, ON_WINDOWS, UNDER_WINE } from '../support/prerequisites.js';

const tmp = tempDir('fraudctl-log-');
afterAll(() => tmp.remove());

const entry = (eventId: string): LogEntry => ({
  eventId,
  action: 'approve',
  from: 'IN_REVIEW',
  to: 'APPROVED',
  comments: 'ok\u202e',
  requestId: 'r',
  outcome: 'ok',
  status: null,
});
const who = (analyst: string): LogContext => ({
  analyst,
  host: 'desk-1',
  profile: 'prod',
  service: 'https://fraud.example.com',
  version: '9.9.9',
  session: `session-of-${analyst}`,
});
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
    expect(Object.keys(lines[1]!)).toEqual([
      'time',
      'analyst',
      'host',
      'profile',
      'service',
      'version',
      'session',
      'eventId',
      'action',
      'from',
      'to',
      'comments',
      'requestId',
      'outcome',
      'status',
      'reason',
      'line',
      'prev',
      'hash',
    ]);
    expect(lines[1]).toMatchObject({
      time: '2026-01-02T03:04:05.000Z',
      analyst: 'ann',
      host: 'desk-1',
      profile: 'prod',
      service: 'https://fraud.example.com',
      version: '9.9.9',
      session: 'session-of-ann',
      reason: null,
    });
    // The first line written chains from the line the file held (an older build's), numbered by its place.
    expect(lines.slice(1).map((l) => [l.line, l.prev])).toEqual(
      [1, 2, 3].map((i) => [i + 1, lineHash(Buffer.from(raw[i - 1]!))]),
    );
    // Each line written ends with its own hash: the SHA-256 of its text without that member.
    for (const line of raw.slice(1)) {
      const { hash } = JSON.parse(line) as { hash: string };
      expect(line.endsWith(`,"hash":"${hash}"}`)).toBe(true);
      expect(hash).toBe(lineHash(Buffer.from(line.slice(0, -`,"hash":"${hash}"}`.length) + '}')));
      expect(checkSeal(Buffer.from(line))).toBe('sealed');
    }
  });

  it('a new file starts its chain at the genesis value; a whole last line without its line feed gets one before the next line', async () => {
    const path = join(tmp.dir, 'new.log');
    const log = await openSessionLog(path, who('ann'));
    await log.append(entry('a'));
    writeFileSync(path, readFileSync(path, 'utf8').trimEnd());
    await log.append(entry('b'));
    await log.close();
    const raw = readFileSync(path, 'utf8').split('\n');
    expect(raw).toHaveLength(3);
    expect(raw[2]).toBe('');
    expect(JSON.parse(raw[1]!)).toMatchObject({ eventId: 'b', line: 2, prev: lineHash(Buffer.from(raw[0]!)) });
    expect((await verifyLog(path)).intact).toBe(true);
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
    // The first line of each new file names the last line this session wrote to the old one; the next lines chain as usual.
    const first = (p: string) => JSON.parse(linesOf(p)[0]!) as Record<string, unknown>;
    expect(first(`${path}.2`)).toMatchObject({
      continues: { line: 1, hash: lineHash(Buffer.from(linesOf(`${path}.1`)[0]!)) },
      line: 1,
      prev: GENESIS,
    });
    expect(Object.keys(first(`${path}.2`)).slice(-4)).toEqual(['continues', 'line', 'prev', 'hash']);
    expect(JSON.parse(linesOf(`${path}.2`)[1]!)).not.toHaveProperty('continues');
    expect(first(path)).toMatchObject({
      continues: { line: 2, hash: lineHash(Buffer.from(linesOf(`${path}.2`)[1]!)) },
    });
    expect(notes).toHaveLength(2);
    expect(notes[0]).toBe(
      `note: ${path} was renamed while this session wrote to it (rotated?): its next lines go to a new ${path}, whose first line from this session names the old file's last line (continues)\n`,
    );
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
    await expect(openSessionLog(join(tmp.dir, 'missing', 'dir', 'x.log'), who('ann'))).rejects.toMatchObject({
      exitCode: 2,
    });
  });

  it('two sessions share one log: their lines interleave in one whole chain, and no lock is held between appends', async () => {
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
    const other = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(lock)}, JSON.stringify({ pid: process.pid, host: require('os').hostname() })); console.log('held'); setTimeout(() => fs.unlinkSync(${JSON.stringify(lock)}), 300);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
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
    expect(notes).toEqual([
      `note: ${lock} was left by a fraudctl run that is no longer running (pid ${gone.pid}): taking it over\n`,
    ]);
    await log.append(entry('y'));
    await log.close();
    expect(linesOf(path).map((l) => (JSON.parse(l) as { eventId: string; line: number }).eventId)).toEqual([
      'waited',
      'x',
      'y',
    ]);
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
      [
        '-e',
        `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(lock)}, JSON.stringify({ pid: process.pid, host: require('os').hostname() })); console.log('held'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) { fs.unlinkSync(${JSON.stringify(lock)}); clearInterval(t); } }, 5);`,
      ],
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

  it('an edited last line is never chained from: the next append is refused naming the file and the line, the file left as it was; a session opening it is refused with exit 1 and a hint', async () => {
    const path = join(tmp.dir, 'edited-last.log');
    const log = await openSessionLog(path, who('ann'));
    await log.append(entry('e1'));
    await log.append(entry('e2'));
    // What `sed -i '$s/APPROVED/DECLINED/'` does to the last line.
    const edited = readFileSync(path, 'utf8').replace(/"APPROVED"(?![\s\S]*"APPROVED")/, '"DECLINED"');
    writeFileSync(path, edited);
    await expect(log.append(entry('e3'))).rejects.toMatchObject({
      exitCode: 1,
      message: `cannot write the log ${path}: it is not intact: line 2 was edited after it was written (its own hash does not match its text); nothing is chained to it (see what changed: ${shellCommand(['fraudctl', 'log', 'verify', path])}; to go on, give --log a new file)`,
    });
    await log.close();
    expect(readFileSync(path, 'utf8')).toBe(edited);
    await expect(openSessionLog(path, who('bob'))).rejects.toMatchObject({
      exitCode: 1,
      message: `${path} is not intact: line 2 was edited after it was written (its own hash does not match its text): no line is written to it, and nothing was sent`,
      hint: `see what changed: ${shellCommand(['fraudctl', 'log', 'verify', path])}; to go on, give --log a new file`,
    });
    expect(readFileSync(path, 'utf8')).toBe(edited);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a last line whose own hash was taken out, or cut short, is refused too', async () => {
    const path = join(tmp.dir, 'stripped.log');
    const log = await openSessionLog(path, who('ann'));
    await log.append(entry('s1'));
    // The only line, its hash taken out: this session knows the file's lines carry one.
    writeFileSync(path, readFileSync(path, 'utf8').replace(/,"hash":"[0-9a-f]{64}"/, ''));
    await expect(log.append(entry('s2'))).rejects.toThrow(
      /^cannot write .*stripped\.log: it is not intact: line 1 carries no hash of its own after lines that do/,
    );
    await log.close();

    const two = join(tmp.dir, 'stripped-two.log');
    const writer = await openSessionLog(two, who('ann'));
    await writer.append(entry('t1'));
    await writer.append(entry('t2'));
    await writer.close();
    const lines = linesOf(two);
    writeFileSync(two, `${lines[0]}\n${lines[1]!.replace(/,"hash":"[0-9a-f]{64}"/, '')}\n`);
    await expect(openSessionLog(two, who('bob'))).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(
        /^.*stripped-two\.log is not intact: line 2 carries no hash of its own after lines that do/,
      ),
    });

    const torn = join(tmp.dir, 'torn.log');
    writeFileSync(torn, `${lines[0]}\n${lines[1]!.slice(0, 40)}`);
    await expect(openSessionLog(torn, who('bob'))).rejects.toMatchObject({
      exitCode: 1,
      message: `${torn} is not intact: line 2 is not a whole log line (cut short, or edited): no line is written to it, and nothing was sent`,
    });
  });

  it('a log of an older build (chained lines without a hash of their own) is walked whole once: chained onto when whole, refused naming the line when an earlier line was edited', async () => {
    const legacy = (name: string, edit: boolean) => {
      const path = join(tmp.dir, name);
      const l1 = JSON.stringify({ eventId: 'o1', action: 'approve', line: 1, prev: GENESIS });
      const l2 = JSON.stringify({ eventId: 'o2', action: 'approve', line: 2, prev: lineHash(Buffer.from(l1)) });
      writeFileSync(path, `${edit ? l1.replace('o1', 'o7') : l1}\n${l2}\n`);
      return { path, l2 };
    };
    const whole = legacy('legacy.log', false);
    const log = await openSessionLog(whole.path, who('ann'));
    await log.append(entry('n3'));
    await log.close();
    const third = linesOf(whole.path)[2]!;
    expect(JSON.parse(third)).toMatchObject({ eventId: 'n3', line: 3, prev: lineHash(Buffer.from(whole.l2)) });
    expect(checkSeal(Buffer.from(third))).toBe('sealed');

    const edited = legacy('legacy-edited.log', true);
    const before = readFileSync(edited.path, 'utf8');
    await expect(openSessionLog(edited.path, who('ann'))).rejects.toMatchObject({
      exitCode: 1,
      message: `${edited.path} is not intact: line 2 does not follow line 1: no line is written to it, and nothing was sent`,
    });
    expect(readFileSync(edited.path, 'utf8')).toBe(before);
  });

  it('a log cut short under the session (logrotate copytruncate; its last lines removed) is noticed: the next line names the last line the session knew (continues), said once', async () => {
    const path = join(tmp.dir, 'copytruncate.log');
    const notes: string[] = [];
    const log = await openSessionLog(path, who('ann'), (line) => notes.push(line));
    await log.append(entry('c1'));
    await log.append(entry('c2'));
    const second = linesOf(path)[1]!;
    // copytruncate: copy the file, then cut it to 0 in place (the same inode: the session does not see a rename).
    copyFileSync(path, `${path}.1`);
    truncateSync(path, 0);
    await log.append(entry('c3'));
    await log.append(entry('c4'));
    const after = linesOf(path).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(after.map((l) => [l.eventId, l.line, l.continues])).toEqual([
      ['c3', 1, { line: 2, hash: lineHash(Buffer.from(second)) }],
      ['c4', 2, undefined],
    ]);
    expect(after[0]!.prev).toBe(GENESIS);
    expect(notes).toEqual([
      `note: ${path} is shorter than when this session last wrote it (line 2): rotated by copytruncate, or cut; its next line names the line this session knew (continues)\n`,
    ]);
    for (const file of [`${path}.1`, path]) expect((await verifyLog(file)).intact, file).toBe(true);

    // Its last line removed (the file otherwise whole): the line written in its place says which line the session knew there.
    const kept = linesOf(path);
    writeFileSync(path, `${kept[0]}\n`);
    await log.append(entry('c5'));
    await log.close();
    expect(JSON.parse(linesOf(path)[1]!)).toMatchObject({
      eventId: 'c5',
      line: 2,
      prev: lineHash(Buffer.from(kept[0]!)),
      continues: { line: 2, hash: lineHash(Buffer.from(kept[1]!)) },
    });
  });

  it('a FIFO nobody reads is refused when the log is opened (ENXIO), rather than written to nobody; exit 2 before anything is sent', async () => {
    notOnWindows(ON_WINDOWS.fifo);
    const fifo = join(tmp.dir, 'shipper.fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(openSessionLog(fifo, who('ann'))).rejects.toMatchObject({
      exitCode: 2,
      message: `cannot write the log ${fifo}: it is a FIFO that nobody reads (ENXIO), so its lines would reach nobody`,
      hint: 'start the program that reads it first, then run this again',
    });
  });

  it('a log and its lock are created as touch creates a file (0666 less the umask): a team’s umask 002 lets its group write the log and read who holds the lock', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const path = join(tmp.dir, 'team-mode.log');
    const lockModes: string[] = [];
    // The worker is a process of its own (vitest's forks), so its umask can be set; it is put back after.
    const before = process.umask(0o002);
    try {
      // A rename is followed under the lock, and said then: the lock file is there to look at.
      const log = await openSessionLog(path, who('ann'), () =>
        lockModes.push((statSync(`${path}.lock`).mode & 0o777).toString(8)),
      );
      await log.append(entry('m1'));
      renameSync(path, `${path}.1`);
      await log.append(entry('m2'));
      await log.close();
    } finally {
      process.umask(before);
    }
    expect([(statSync(`${path}.1`).mode & 0o777).toString(8), (statSync(path).mode & 0o777).toString(8)]).toEqual([
      '664',
      '664',
    ]);
    expect(lockModes).toEqual(['664']);
  });
});
