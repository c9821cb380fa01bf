import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
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
