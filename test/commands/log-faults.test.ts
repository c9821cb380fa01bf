import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { lineHash } from '../../src/action-log/log-chain.js';
import { shellCommand } from '../../src/render/shell-command.js';
import { BIN, startCli } from '../support/cli.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { need, notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * The action log's writer under faults, as processes against the sandbox: a last line edited
 * before the next append, a log that is a FIFO or a pipe (a log shipper's, `--log /dev/stdout |
 * head`), logrotate rotating it under a bulk run, a team's umask and a colleague's file, and a
 * service URL that the profile did not give.
 */

const cli = useSandboxForCli();
let n = 0;
async function pending(prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `${prefix}-${++n}`);
  for (const id of ids)
    expect((await cli.sb.call('POST', '/event', { body: { id, amount: 1500, currency: 'EUR' } })).status).toBe(201);
  return ids;
}
const stateOf = async (id: string) => ((await cli.sb.call('GET', `/event/${id}`)).json as EventSummary).state;
const changed = async (ids: string[]) =>
  (await Promise.all(ids.map(stateOf))).filter((s) => s !== 'PENDING_REVIEW').length;
const rawLines = (path: string) => readFileSync(path, 'utf8').split('\n').slice(0, -1);
const parsed = (path: string) => rawLines(path).map((l) => JSON.parse(l) as Record<string, unknown>);
const lineCount = (path: string) => {
  try {
    return rawLines(path).length;
  } catch {
    return 0;
  }
};
/** A hint's `fraudctl …` command, run as written (fraudctl being this build). */

/**
 * Whether process `pid` listens for a hang-up (bit 0 of SigCgt in /proc/PID/status): fraudctl
 * catches SIGHUP only once a command waits for a shutdown signal (Node itself catches SIGTERM and
 * SIGINT from the start, so those bits say nothing).
 */
function listensForShutdown(pid: number): boolean {
  try {
    const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0';
    return (BigInt(`0x${mask}`) & 1n) !== 0n;
  } catch {
    return false;
  }
}

describe('a log whose last line was edited', () => {
  it('is refused before anything is sent (exit 1, naming the file and the line); the hint’s log verify runs as written; a new log goes on', async () => {
    const [first, second] = await pending('edit', 2);
    const log = join(cli.dir, 'edited.log');
    expect((await cli.run(['set-state', first!, '--state', 'approved', '--log', log])).code).toBe(0);
    // What `sed -i '$s/"ok"/"refused"/' edited.log` does: the last line's outcome changed.
    const edited = readFileSync(log, 'utf8').replace(/"ok"(?![\s\S]*"ok")/, '"refused"');
    writeFileSync(log, edited);
    const result = await cli.run(['set-state', second!, '--state', 'declined', '--log', log]);
    expect(result.code).toBe(1);
    const verifyCommand = shellCommand(['fraudctl', 'log', 'verify', log]);
    const hint = `see what changed: ${verifyCommand}; to go on, give --log a new file`;
    expect(result.stderr).toBe(
      `error: ${log} is not intact: line 2 was edited after it was written (its own hash does not match its text): no line is written to it, and nothing was sent\n${hint}\n`,
    );
    expect(await stateOf(second!)).toBe('PENDING_REVIEW');
    expect(readFileSync(log, 'utf8')).toBe(edited);
    // The hint's command, as the shell in use reads it (a path quoted for it).
    const verify = await cli.run(['log', 'verify', log]);
    // The hint runs as written, and log verify names the same line the refusal did.
    expect(verify.code, verify.stderr).toBe(1);
    expect(verify.stdout).toContain('line 2 was edited: its own hash does not match its text');
    const fresh = join(cli.dir, 'edited-new.log');
    expect((await cli.run(['set-state', second!, '--state', 'declined', '--log', fresh])).code).toBe(0);
    expect(await stateOf(second!)).toBe('DECLINED');
  });
});

describe('a log that is a FIFO or a pipe', () => {
  it('a FIFO nobody reads: said at once (exit 2), nothing sent, instead of lines written to nobody', async () => {
    notOnWindows(ON_WINDOWS.fifo);
    const ids = await pending('nofifo', 3);
    const fifo = join(cli.dir, 'nobody.fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await cli.run(['set-state', '--from', '-', '--state', 'declined', '--yes', '--log', fifo], {
      input: `${ids.join('\n')}\n`,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the log ${fifo}: it is a FIFO that nobody reads (ENXIO), so its lines would reach nobody\nstart the program that reads it first, then run this again\n`,
    );
    expect(await changed(ids)).toBe(0);
  });

  it('a FIFO whose reader is behind (its 64 KB full): no change is sent without its line, the process is never stuck in write(2), and SIGTERM twice (the second aborts what is in flight) ends the run', async () => {
    notOnWindows(ON_WINDOWS.fifo);
    const ids = await pending('fullfifo', 20);
    const fifo = join(cli.dir, 'full.fifo');
    execFileSync('mkfifo', [fifo]);
    // The test is the FIFO's reader, and reads nothing until the end; the pipe is filled first.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const filler = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    let filled = 0;
    for (;;) {
      try {
        filled += writeSync(filler, Buffer.alloc(4096, 'x'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
        throw error;
      }
    }
    closeSync(filler);
    expect(filled).toBeGreaterThanOrEqual(4096);
    const run = startCli(
      ['set-state', '--from', '-', '--state', 'declined', '--yes', '--concurrency', '2', '--log', fifo],
      { env: cli.env(), input: `${ids.join('\n')}\n` },
    );
    let ended = false;
    void run.done.finally(() => (ended = true));
    try {
      // SIGTERM once the run listens for it, then again once it says it is stopping: a process
      // stuck in write(2) would neither say so nor end.
      // Exactly two: a third, after the second has aborted, would end the process by the signal itself.
      await expect.poll(() => listensForShutdown(run.child.pid!), { timeout: 10_000 }).toBe(true);
      run.child.kill('SIGTERM');
      await expect.poll(() => run.output().stderr, { timeout: 10_000 }).toContain('stopping: finishing');
      run.child.kill('SIGTERM');
      await expect.poll(() => ended, { timeout: 15_000 }).toBe(true);
      const result = await run.done;
      // Stopped by its log (exit 1), the second signal having ended the wait for the reader.
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(
        `error: cannot write the log ${fifo}: interrupted while its reader took nothing\nstart its reader, or give --log a file\n`,
      );
      expect(await changed(ids)).toBe(0);
      // The FIFO holds what the test put there, and nothing of a line cut in two.
      const held = Buffer.alloc(filled + 4096);
      const got = readSync(reader, held, 0, held.length, null);
      expect(got).toBe(filled);
    } finally {
      run.child.kill('SIGKILL');
      closeSync(reader);
    }
  }, 30_000);

  it('--log /dev/stdout | head -c 2000: the reader goes away (EPIPE), the run ends, and no change is sent after the line that failed', async () => {
    notOnWindows(ON_WINDOWS.sh);
    const ids = await pending('head', 200);
    const input = join(cli.dir, 'head-ids.txt');
    writeFileSync(input, `${ids.join('\n')}\n`);
    const status = join(cli.dir, 'head-status');
    const errors = join(cli.dir, 'head-stderr');
    const script = `("$NODE" "$BIN" set-state --from "$IDS" --state declined --yes --concurrency 1 --comments "$COMMENT" --log /dev/stdout 2>"$ERR"; echo $? > "$STATUS") | head -c 2000 > /dev/null`;
    const comment = 'c'.repeat(500);
    // Its own process group: on a build that blocks in write(2), the test ends it and its pipe.
    const child = spawn('sh', ['-c', script], {
      env: { ...cli.env(), NODE: process.execPath, BIN, IDS: input, ERR: errors, STATUS: status, COMMENT: comment },
      stdio: 'ignore',
      detached: true,
    });
    try {
      const closed = new Promise((resolve) => child.on('close', resolve));
      await Promise.race([
        closed,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error("the run did not end after its log's reader went away")), 15_000).unref(),
        ),
      ]);
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Ended already.
      }
    }
    const code = Number(readFileSync(status, 'utf8'));
    const stderr = readFileSync(errors, 'utf8');
    // Ended as a tool whose reader went away ends (141), or stopped (1) by whichever write to the
    // one pipe failed first, saying so: the log's line, or the run's own stdout (the same pipe).
    expect([1, 141], stderr).toContain(code);
    if (code === 1) {
      const byLog =
        'error: cannot write the log /dev/stdout: its reader went away (EPIPE)\ngive --log a file, or a reader that reads to the end\n';
      expect(stderr.includes(byLog) || /^error: stdout was closed after [\d,]+ results?/m.test(stderr), stderr).toBe(
        true,
      );
    }
    // Each change is two lines of more than 500 bytes: what the pipe (64 KB) and head took bounds the changes sent.
    const sent = await changed(ids);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(Math.ceil((2000 + 65_536) / (2 * 500)) + 1);
  }, 30_000);
});

describe('logrotate under a bulk run', () => {
  it('copytruncate, then create: every action accounted for — the first line after each rotation names the last line the writer knew (continues), and each file verifies', async () => {
    need('logrotate');
    const ids = await pending('rotate', 30);
    const dir = join(cli.dir, 'rotated');
    mkdirSync(dir, { mode: 0o700 });
    const log = join(dir, 'team.log');
    const state = join(dir, 'logrotate.state');
    const rotate = (how: string) => {
      const conf = join(dir, `${how}.conf`);
      writeFileSync(conf, `${log} {\n  ${how}\n  rotate 5\n  missingok\n}\n`, { mode: 0o644 });
      execFileSync('logrotate', ['-f', '-s', state, conf], { stdio: 'pipe' });
    };
    const run = startCli(['set-state', '--from', '-', '--state', 'declined', '--yes', '--log', log], {
      env: cli.env(),
      keepStdinOpen: true,
    });
    run.child.stdin.write(`${ids.slice(0, 10).join('\n')}\n`);
    await expect.poll(() => lineCount(log), { timeout: 10_000 }).toBe(20);
    rotate('copytruncate');
    run.child.stdin.write(`${ids.slice(10, 20).join('\n')}\n`);
    await expect.poll(() => lineCount(log), { timeout: 10_000 }).toBe(20);
    rotate('create');
    run.child.stdin.end(`${ids.slice(20).join('\n')}\n`);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`note: ${log} is shorter than when this session last wrote it (line 20)`);
    expect(result.stderr).toContain(`note: ${log} was renamed while this session wrote to it (rotated?)`);
    // Oldest first: team.log.2 (the copy), team.log.1 (after copytruncate, renamed by create), team.log.
    const files = [`${log}.2`, `${log}.1`, log];
    const lines = files.map(parsed);
    expect(lines.map((l) => l.length)).toEqual([20, 20, 20]);
    for (const [i, file] of files.entries()) {
      const verify = await cli.run(['log', 'verify', file]);
      expect(verify.code, verify.stdout).toBe(0);
      if (i === 0) continue;
      const before = rawLines(files[i - 1]!);
      expect(lines[i]![0]).toMatchObject({
        line: 1,
        continues: { line: before.length, hash: lineHash(Buffer.from(before.at(-1)!)) },
      });
      expect(lines[i]!.slice(1).every((l) => l.continues === undefined)).toBe(true);
    }
    expect(await changed(ids)).toBe(30);
  }, 30_000);
});

describe('a team’s log: modes and owners', () => {
  it('created as touch creates a file: 0664 under a team’s umask 002, 0600 under umask 077', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const [a, b] = await pending('umask', 2);
    for (const [umask, id, mode] of [
      ['002', a!, 0o664],
      ['077', b!, 0o600],
    ] as const) {
      const log = join(cli.dir, `umask-${umask}.log`);
      const child = spawn(
        'sh',
        ['-c', `umask ${umask}; exec "$NODE" "$BIN" set-state "$ID" --state declined --log "$LOG"`],
        { env: { ...cli.env(), NODE: process.execPath, BIN, ID: id, LOG: log }, stdio: 'ignore' },
      );
      expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
      expect((statSync(log).mode & 0o777).toString(8), umask).toBe(mode.toString(8));
      expect(lineCount(log)).toBe(2);
    }
  });

  it('a colleague who may not write the file is told to look at the file’s owner and mode (a command that works as written), not the directory', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const [id] = await pending('colleague', 1);
    const log = join(cli.dir, 'annes.log');
    writeFileSync(log, '', { mode: 0o644 });
    let command: string[];
    if (process.getuid?.() === 0) {
      // Root without the right to override file modes is a colleague of the file's owner (nobody).
      need('setpriv');
      chownSync(log, 65534, 65534);
      command = [
        'setpriv',
        '--inh-caps=-dac_override,-dac_read_search',
        '--bounding-set=-dac_override,-dac_read_search',
        '--',
        process.execPath,
        BIN,
      ];
    } else {
      chmodSync(log, 0o444);
      command = [process.execPath, BIN];
    }
    const child = spawn(command[0]!, [...command.slice(1), 'set-state', id!, '--state', 'declined', '--log', log], {
      env: cli.env(),
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
    expect(stderr).toBe(
      `error: cannot write the log ${log}: permission denied (EACCES)\ncheck who owns it and its mode: ls -ld ${log}; a team's log is its group's (fraudctl help log)\n`,
    );
    expect(await stateOf(id!)).toBe('PENDING_REVIEW');
    // The hint's command, as written.
    expect(execFileSync('sh', ['-c', /ls -ld [^\s;]+/.exec(stderr)![0]], { encoding: 'utf8' })).toMatch(/^-r/);
  });
});

describe('the profile a line names', () => {
  it('a URL from FRAUDCTL_BASE_URL or --base-url over the built-in sandbox profile is named as such, beside that URL', async () => {
    const [a, b] = await pending('url', 2);
    const viaEnv = join(cli.dir, 'url-env.log');
    expect((await cli.run(['set-state', a!, '--state', 'declined', '--log', viaEnv])).code).toBe(0);
    expect(parsed(viaEnv).map((l) => [l.profile, l.service])).toEqual([
      ['(FRAUDCTL_BASE_URL)', cli.sb.url],
      ['(FRAUDCTL_BASE_URL)', cli.sb.url],
    ]);
    const viaFlag = join(cli.dir, 'url-flag.log');
    expect(
      (await cli.run(['set-state', b!, '--state', 'declined', '--base-url', cli.sb.url, '--log', viaFlag])).code,
    ).toBe(0);
    expect(new Set(parsed(viaFlag).map((l) => `${String(l.profile)} ${String(l.service)}`))).toEqual(
      new Set([`(--base-url) ${cli.sb.url}`]),
    );
  });
});
