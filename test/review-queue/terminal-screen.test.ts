import { fstatSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/process/cli-context.js';
import { UsageError } from '../../src/errors/cli-error.js';
import { run } from '../../src/commands/review/run.js';
import { reviewDeps } from '../../src/commands/review/deps.js';
import { openKeyStream } from '../../src/review-queue/terminal-screen.js';
import { Session } from '../../src/session.js';
import { reviewOptions } from '../support/review-run.js';
import { tempDir } from '../support/sandbox.js';

/*
 * review with ids piped in: keys (and on Windows the screen) come from the terminal itself, not
 * stdin: /dev/tty, or Windows' console devices CONIN$ and CONOUT$. Which devices are asked for,
 * in each order, and what is said when one cannot be opened, in-process on any platform (the
 * platform is the context's). Opening a real console is left to a Windows machine: Wine's
 * console is not one the tests can type into.
 */

const tmp = tempDir('fraudctl-terminal-screen-');
afterAll(() => tmp.remove());

/** stdin a pipe (ids piped in), stdout a terminal. */
function contextOn(platform: NodeJS.Platform): CliContext {
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  return {
    stdin: new PassThrough(),
    stdout,
    stderr: new PassThrough(),
    env: {},
    platform,
    debug: false,
    waitForShutdown: () => new Promise(() => {}),
    onStdoutClosed: () => () => {},
  };
}

/** An opener that records what it is asked for, and fails for the devices named. */
function opener(failing: readonly string[]) {
  const asked: [string, string][] = [];
  const fds: number[] = [];
  const open = ((path: string, flags: string) => {
    asked.push([path, flags]);
    if (failing.includes(path))
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
    const fd = openSync(join(tmp.dir, 'stand-in'), 'w');
    fds.push(fd);
    return fd;
  }) as typeof openSync;
  return { asked, fds, open };
}

const isOpen = (fd: number) => {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
};

describe('the terminal when stdin is not one', () => {
  it('on Windows: CONIN$ for the keys, then CONOUT$ for the screen', () => {
    const { asked, open } = opener(['CONIN$', 'CONOUT$']);
    expect(openKeyStream(contextOn('win32'), open)).toEqual({ unavailable: 'CONIN$', for: 'keys' });
    expect(asked).toEqual([['CONIN$', 'r']]);

    const second = opener(['CONOUT$']);
    expect(openKeyStream(contextOn('win32'), second.open)).toEqual({ unavailable: 'CONOUT$', for: 'screen' });
    expect(second.asked).toEqual([
      ['CONIN$', 'r'],
      ['CONOUT$', 'w'],
    ]);
    // CONIN$, opened, is closed again: nothing is left open on the way out.
    expect(second.fds.map(isOpen)).toEqual([false]);
  });

  it('elsewhere: /dev/tty, for the keys only (the screen is stdout)', () => {
    const { asked, open } = opener(['/dev/tty']);
    expect(openKeyStream(contextOn('linux'), open)).toEqual({ unavailable: '/dev/tty', for: 'keys' });
    expect(asked).toEqual([['/dev/tty', 'r']]);
  });

  it('stdin a terminal: nothing is opened', () => {
    const { asked, open } = opener([]);
    const context = contextOn('win32');
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
    const opened = openKeyStream({ ...context, stdin }, open);
    expect('stream' in opened && opened.stream).toBe(stdin);
    expect(asked).toEqual([]);
  });

  // On Windows itself CONIN$ is the real console, which may open: the refusal is shown where it is only a name.
  it.skipIf(process.platform === 'win32')(
    `review's error names the device that could not be opened: CONIN$ on Windows, not /dev/tty${process.platform === 'win32' ? ' (skipped: not on Windows: CONIN$ is the real console there)' : ''}`,
    async () => {
      const refusal = async (platform: NodeJS.Platform) => {
        // The real deps (review's own opening of the devices), made from this context.
        const context = contextOn(platform);
        const session = new Session(context, {});
        const error = await run(reviewOptions({ ids: ['evt_1'], claim: false }), reviewDeps(context, session))
          .then(
            () => null,
            (e: unknown) => e,
          )
          .finally(() => session.close());
        expect(error).toBeInstanceOf(UsageError);
        return (error as UsageError).message;
      };
      expect(await refusal('win32')).toBe(
        'review needs a terminal to read keys from (stdin is not one, and CONIN$ cannot be opened)',
      );
    },
  );
});
