import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { flushed } from '../src/main.js';
import { cliEnv, runCli } from './support/cli.js';

/* main.ts answers a lone --version itself, without commander or the command tree. */

describe('fraudctl --version', () => {
  it.each(['--version', '-V'])('%s prints the version alone, the same bytes as commander prints with another option around it', async (flag) => {
    const alone = await runCli([flag]);
    expect(alone).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const throughCommander = await runCli(['--no-color', flag]);
    expect(throughCommander).toMatchObject({ code: 0, stdout: alone.stdout, stderr: '' });
  });

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
    return { writableLength, destroyed, once: (_event: 'drain', listener: () => void) => drains.push(listener), drain: () => drains.forEach((f) => f()), drains };
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
