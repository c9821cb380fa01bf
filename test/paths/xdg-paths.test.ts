import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fraudctlDir } from '../../src/paths/xdg-paths.js';
import { cliEnv, runCli } from '../support/cli.js';

describe('where fraudctl keeps its files', () => {
  // XDG_* moves them on every platform (as gh does): the one override that works on Windows too.
  it.each([
    ['linux', { XDG_CONFIG_HOME: '/srv/cfg' }, '/srv/cfg/fraudctl'],
    ['linux', { XDG_CONFIG_HOME: 'relative/cfg', HOME: '/home/ana' }, '/home/ana/.config/fraudctl'],
    ['linux', { HOME: '/home/ana' }, '/home/ana/.config/fraudctl'],
    ['darwin', { XDG_CONFIG_HOME: '/Users/ana/cfg' }, '/Users/ana/cfg/fraudctl'],
    ['win32', { XDG_CONFIG_HOME: 'C:\\Users\\ana\\cfg' }, 'C:\\Users\\ana\\cfg\\fraudctl'],
    ['win32', { XDG_CONFIG_HOME: 'C:\\Temp\\x/config' }, 'C:\\Temp\\x\\config\\fraudctl'],
  ] as const)('config on %s with %j is %s', (platform, env, expected) => {
    expect(fraudctlDir('config', { ...env }, platform)).toBe(expected);
  });

  it.each([
    ['data', 'XDG_DATA_HOME', 'D:\\fraud\\data\\fraudctl'],
    ['cache', 'XDG_CACHE_HOME', 'D:\\fraud\\data\\fraudctl'],
  ] as const)('%s follows %s on Windows', (kind, variable, expected) => {
    expect(fraudctlDir(kind, { [variable]: 'D:\\fraud\\data' }, 'win32')).toBe(expected);
  });

  it('a relative XDG path on Windows is ignored, as the XDG spec says', () => {
    if (process.platform === 'win32') {
      expect(fraudctlDir('config', { XDG_CONFIG_HOME: 'cfg' })).not.toContain('cfg\\fraudctl');
    } else {
      expect(() => fraudctlDir('config', { XDG_CONFIG_HOME: 'cfg' }, 'win32')).toThrow(/without XDG_CONFIG_HOME/);
    }
  });

  describe('as a process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fraudctl-xdg-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));

    it('config set writes under XDG_CONFIG_HOME on this platform', async () => {
      const result = await runCli(['config', 'set', 'timeout', '7'], {
        env: cliEnv({ HOME: dir, XDG_CONFIG_HOME: join(dir, 'elsewhere') }),
      });
      expect(result.stderr).toContain('timeout set');
      expect(result.code).toBe(0);
      expect(JSON.parse(readFileSync(join(dir, 'elsewhere', 'fraudctl', 'config.json'), 'utf8'))).toMatchObject({
        profiles: { sandbox: { timeoutSeconds: 7 } },
      });
    });
  });
});
