import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv } from './cli.js';
import { runInProcess } from './in-process-cli.js';
import { tempDir } from './sandbox.js';

/*
 * The in-process harness sees what a process test would have seen: a write past the command's
 * streams (this process's own stdout or stderr, console) fails the run instead of going unseen.
 */

const tmp = tempDir('fraudctl-in-process-');
const env = () => cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: `${tmp.dir}/config`, XDG_DATA_HOME: `${tmp.dir}/data` });

describe('runInProcess', () => {
  it('gives what the command wrote on its streams, its exit code, and what it read on stdin', async () => {
    expect(await runInProcess(['config', 'list', '--json'], env())).toMatchObject({ code: 0, stderr: '' });
    const login = await runInProcess(
      ['login', '--profile', 'p', '--base-url', 'http://127.0.0.1:1', '--insecure-storage'],
      env(),
      { input: '' },
    );
    expect(login.code).toBe(2);
    expect(login.stderr).toMatch(/^error: .*key/);
  });

  afterAll(() => tmp.remove());

  for (const stray of [
    () => process.stdout.write('ord-1\n'),
    () => process.stderr.write('warning\n'),
    () => console.log('ord-1'),
  ]) {
    it(`a write past the command's streams fails the run: ${String(stray)}`, async () => {
      const own = [process.stdout.write, process.stderr.write, console.log];
      // Queued before the run starts, so it runs while the command waits for its first import.
      queueMicrotask(stray);
      await expect(runInProcess(['config', 'list'], env())).rejects.toThrow(
        /wrote past its streams: (process\.std(out|err)|console\.log): (ord-1|warning)/,
      );
      // And the process's own streams are its own again.
      expect([process.stdout.write, process.stderr.write, console.log]).toEqual(own);
      expect(await runInProcess(['config', 'list', '--json'], env())).toMatchObject({ code: 0 });
    });
  }
});
