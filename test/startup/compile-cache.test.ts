import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * The compile cache (Node >= 22.1) keeps V8's code for fraudctl's modules between runs. It must
 * never get in a command's way: same output, no message, whatever state the cache is in. How
 * fast it makes a command is bench:startup's business.
 */

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fraudctl-startup-'));
  made.push(dir);
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const nodeHasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';
/** The reason in the title of a test for the other kind of Node (skip-reporter.ts lists it). */
const onlyOn = (withCache: boolean) =>
  withCache === nodeHasCompileCache
    ? ''
    : ` (skipped: not on this Node: ${withCache ? 'it has no compile cache (Node 22.1 and later have one)' : 'it has a compile cache'})`;

describe('the compile cache', () => {
  it.runIf(nodeHasCompileCache)(
    'is written under XDG_CACHE_HOME/fraudctl/compile-cache, and the next run gives the same output' + onlyOn(true),
    async () => {
      const cache = tempDir();
      const env = cliEnv({ XDG_CACHE_HOME: cache });
      const first = await runCli(['completion', 'bash'], { env });
      expect(first.code).toBe(0);
      expect(filesUnder(join(cache, 'fraudctl', 'compile-cache')).length).toBeGreaterThan(0);
      expect(await runCli(['completion', 'bash'], { env })).toMatchObject({
        code: 0,
        stdout: first.stdout,
        stderr: '',
      });
    },
  );

  it.runIf(nodeHasCompileCache)(
    "keeps each Node version's code where Node puts it, beside another version's: nothing is pruned" + onlyOn(true),
    async () => {
      const cache = tempDir();
      const versions = join(cache, 'fraudctl', 'compile-cache');
      const other = join(versions, 'v99.0.0-x64-abc123-0');
      mkdirSync(other, { recursive: true });
      writeFileSync(join(other, 'code'), 'old code');
      expect((await runCli(['completion', 'bash'], { env: cliEnv({ XDG_CACHE_HOME: cache }) })).code).toBe(0);
      const mine = readdirSync(versions).filter((name) => name.startsWith(`v${process.versions.node}-`));
      expect(mine).toHaveLength(1);
      expect(filesUnder(join(versions, mine[0]!)).length).toBeGreaterThan(0);
      expect(filesUnder(other)).toEqual([join(other, 'code')]);
    },
  );

  it.runIf(nodeHasCompileCache)(
    'falls back to HOME/.cache without XDG_CACHE_HOME, and is off with NODE_DISABLE_COMPILE_CACHE' + onlyOn(true),
    async () => {
      notOnWindows(ON_WINDOWS.homeDefaults);
      const home = tempDir();
      const { XDG_CACHE_HOME: _shared, ...withoutCache } = cliEnv({ HOME: home });
      expect((await runCli(['completion', 'bash'], { env: withoutCache })).code).toBe(0);
      expect(filesUnder(join(home, '.cache', 'fraudctl', 'compile-cache')).length).toBeGreaterThan(0);

      const off = tempDir();
      const { XDG_CACHE_HOME: _also, ...disabled } = cliEnv({ HOME: off, NODE_DISABLE_COMPILE_CACHE: '1' });
      expect((await runCli(['completion', 'bash'], { env: disabled })).code).toBe(0);
      expect(existsSync(join(off, '.cache'))).toBe(false);
    },
  );

  it.runIf(!nodeHasCompileCache)('is not attempted on a Node without one (Node 20)' + onlyOn(false), async () => {
    const cache = tempDir();
    expect((await runCli(['completion', 'bash'], { env: cliEnv({ XDG_CACHE_HOME: cache }) })).code).toBe(0);
    expect(readdirSync(cache)).toEqual([]);
  });

  it('a cache directory that cannot be made costs the command nothing: same output, no message', async () => {
    const blocked = join(tempDir(), 'a-file');
    writeFileSync(blocked, 'not a directory');
    const expected = await runCli(['completion', 'bash'], { env: cliEnv({ XDG_CACHE_HOME: tempDir() }) });
    const result = await runCli(['completion', 'bash'], { env: cliEnv({ XDG_CACHE_HOME: blocked }) });
    expect(result).toMatchObject({ code: 0, stdout: expected.stdout, stderr: '' });
  });

  it.runIf(nodeHasCompileCache)('damaged cache files are compiled again, not trusted' + onlyOn(true), async () => {
    const cache = tempDir();
    const env = cliEnv({ XDG_CACHE_HOME: cache });
    const first = await runCli(['completion', 'bash'], { env });
    const files = filesUnder(cache);
    expect(files.length).toBeGreaterThan(0);
    files.forEach((file, i) => writeFileSync(file, i % 2 === 0 ? '' : 'garbage, not V8 code'));
    expect(await runCli(['completion', 'bash'], { env })).toMatchObject({ code: 0, stdout: first.stdout, stderr: '' });
  });
});
