import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { endAsHungUp, endPastStrandedCalls, flushed, SHUTDOWN_SIGNALS, type ProcessEnd } from '../src/main.js';
import { spawn } from 'node:child_process';
import { BIN, cliEnv, runCli } from './support/cli.js';
import { notOnWindows, ON_WINDOWS } from './support/prerequisites.js';
import { useSandboxForCli } from './support/cli-against-sandbox.js';

/* main.ts answers a lone --version itself, without commander or the command tree. */

describe('fraudctl --version', () => {
  it.each(['--version', '-V'])(
    '%s prints the version alone, the same bytes as commander prints with another option around it',
    async (flag) => {
      const alone = await runCli([flag]);
      expect(alone).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
      const throughCommander = await runCli(['--no-color', flag]);
      expect(throughCommander).toMatchObject({ code: 0, stdout: alone.stdout, stderr: '' });
    },
  );

  it('loads nothing into the compile cache: it compiles next to nothing', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'fraudctl-version-'));
    try {
      expect((await runCli(['--version'], { env: cliEnv({ XDG_CACHE_HOME: cache }) })).code).toBe(0);
      expect(readdirSync(cache)).toEqual([]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe('flushed: what the process still holds for its streams before it ends itself', () => {
  const stream = (writableLength: number, destroyed = false) => {
    const drains: (() => void)[] = [];
    return {
      writableLength,
      destroyed,
      once: (_event: 'drain', listener: () => void) => drains.push(listener),
      drain: () => drains.forEach((f) => f()),
      drains,
    };
  };

  it('is over at once when nothing is held, or the stream is gone', async () => {
    const empty = stream(0);
    const gone = stream(10, true);
    await flushed([empty, gone], 60_000);
    expect([empty.drains, gone.drains]).toEqual([[], []]);
  });

  it('waits for every stream that holds something to drain', async () => {
    const [out, err] = [stream(10), stream(5)];
    let over = false;
    const waiting = flushed([out, err], 60_000).then(() => (over = true));
    out.drain();
    await new Promise((resolve) => setImmediate(resolve));
    expect(over).toBe(false);
    err.drain();
    await waiting;
    expect(over).toBe(true);
  });

  it('gives up on a stream that never drains after its limit', async () => {
    const started = performance.now();
    await flushed([stream(10)], 50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });
});

/*
 * The shutdowns Windows has. Node emits Ctrl-Break as SIGBREAK and a closed console window as
 * SIGHUP; neither can be sent to a process from outside (a kill there is TerminateProcess), so a
 * preload (support/emit-signal.mjs) makes the real process emit it, as Node does when it comes,
 * once the command has said it is running. These run on every platform, the Windows job's too.
 */
const EMIT_SIGNAL = fileURLToPath(new URL('./support/emit-signal.mjs', import.meta.url));
/** The preload added to whatever Node options the harness gives every process (cliEnv: Wine's shim). */
const emitting = (signal: string, after: string) => ({
  NODE_OPTIONS: [cliEnv().NODE_OPTIONS, `--import=${pathToFileURL(EMIT_SIGNAL).href}`].filter(Boolean).join(' '),
  EMIT_SIGNAL: signal,
  EMIT_SIGNAL_AFTER: after,
});

describe('Ctrl-Break and a closed console window (Windows) end a command as Ctrl-C and a hang-up do', () => {
  const cli = useSandboxForCli();
  const serve = ['sandbox', 'serve', '--port', '0', '--db', ':memory:'];

  it('Ctrl-Break (SIGBREAK): sandbox serve says so, drains and stops, exit 0, as on Ctrl-C', async () => {
    const result = await runCli(serve, { env: cliEnv(emitting('SIGBREAK', 'Press Ctrl-C to stop.')) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('SIGBREAK: finishing requests in flight, then stopping\nsandbox stopped\n');
  });

  it('Ctrl-Break (SIGBREAK): show --watch stops watching, exit 130, as on Ctrl-C', async () => {
    expect(
      (
        await cli.sb.call('POST', '/event', {
          body: { id: 'break-1', amount: 1649, currency: 'USD', billingCountry: 'BE', shippingCountry: 'NL' },
        })
      ).status,
    ).toBe(201);
    const result = await cli.run(['show', 'break-1', '--watch'], { env: emitting('SIGBREAK', '(Ctrl-C to stop)') });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/^error: stopped watching break-1$/m);
  });

  it('a closed console window (SIGHUP): sandbox serve drains and stops as on Ctrl-C, then ends as hung up: 129 on Windows, by SIGHUP elsewhere', async () => {
    const result = await runCli(serve, { env: cliEnv(emitting('SIGHUP', 'Press Ctrl-C to stop.')) });
    expect(result.stderr).toBe('SIGHUP: finishing requests in flight, then stopping\nsandbox stopped\n');
    if (process.platform === 'win32') expect(result).toMatchObject({ code: 129, signal: null });
    else expect(result).toMatchObject({ code: null, signal: 'SIGHUP' });
  });
});

describe('after a hang-up, a write that fails is the terminal gone, not the end', () => {
  // A closed console window may fail writes with another error than EIO, and the pipe of an ssh
  // session goes with it (EPIPE): either way the shutdown must go on (review gives its claims
  // back), not stop at exit 141 at its first message.
  it('sandbox serve whose stdout and stderr readers left with the hang-up drains and stops, then ends by SIGHUP (it ended 141 at its first line)', async () => {
    notOnWindows(ON_WINDOWS.signal);
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--db', ':memory:'], {
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    let said = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes('Press Ctrl-C to stop.')) resolve();
      });
      child.on('exit', () => reject(new Error(`serve ended before it was ready: ${said}`)));
    });
    child.stdout.destroy();
    child.stderr.destroy();
    child.kill('SIGHUP');
    expect(await ended).toEqual({ code: null, signal: 'SIGHUP' });
  });
});

/** A stand-in for `process` that records how it was asked to end (the real one would end the test). */
function recordingProcess(): ProcessEnd & { calls: string[] } {
  const calls: string[] = [];
  return {
    pid: 4242,
    calls,
    kill: (pid, signal) => calls.push(`kill ${pid} ${signal}`),
    exit: (code) => calls.push(`exit ${code}`),
    removeAllListeners: (event) => calls.push(`removeAllListeners ${event}`),
    execve: (file, args) => calls.push(`execve ${file} ${args.join(' ')}`),
  };
}

describe("how the process ends itself, per platform (the other platform's branch run here)", () => {
  it('listens for Ctrl-Break (SIGBREAK) besides Ctrl-C, SIGTERM and the hang-up', () => {
    expect([...SHUTDOWN_SIGNALS].sort()).toEqual(['SIGBREAK', 'SIGHUP', 'SIGINT', 'SIGTERM']);
  });

  it('after a hang-up: by SIGHUP on POSIX; on Windows, where a process cannot send itself SIGHUP (ENOSYS), exit 129', async () => {
    const posix = recordingProcess();
    await endAsHungUp('linux', posix);
    expect(posix.calls).toEqual(['removeAllListeners SIGHUP', 'kill 4242 SIGHUP']);
    const windows = recordingProcess();
    await endAsHungUp('win32', windows);
    expect(windows.calls).toEqual(['exit 129']);
  });

  it('past a stranded credential-store call: execve, else SIGTERM on POSIX; on Windows neither (a self-kill is TerminateProcess, status 1): it ends as usual, with its own code', async () => {
    const posix = recordingProcess();
    await endPastStrandedCalls(3, 'linux', posix);
    expect(posix.calls).toEqual(['execve /bin/sh sh -c exit 3', 'removeAllListeners SIGTERM', 'kill 4242 SIGTERM']);
    const windows = recordingProcess();
    await endPastStrandedCalls(3, 'win32', windows);
    expect(windows.calls).toEqual([]);
  });
});
