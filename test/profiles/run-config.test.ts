import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';

// config's changing verbs with --json: the profile as it now is on stdout (config list --json's
// shape), the note on stderr, so a script needs no second call to see what it changed.
describe('config set/unset/use/delete --json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fraudctl-config-json-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  const env = cliEnv({ HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') });
  const config = async (...args: string[]) => {
    const result = await runCli(['config', ...args, '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    return { json: JSON.parse(result.stdout) as Record<string, unknown>, note: result.stderr };
  };

  it('set prints the changed profile', async () => {
    const { json, note } = await config('set', 'base-url', 'http://127.0.0.1:9', '--profile', 'staging');
    expect(json).toMatchObject({ name: 'staging', baseUrl: 'http://127.0.0.1:9', timeoutSeconds: 30 });
    expect(note).toContain('base-url set to');
    expect((await config('set', 'timeout', '12', '--profile', 'staging')).json).toMatchObject({ name: 'staging', timeoutSeconds: 12 });
  });

  it('unset prints the profile without the setting', async () => {
    expect((await config('unset', 'timeout', '--profile', 'staging')).json).toMatchObject({ name: 'staging', timeoutSeconds: 30 });
  });

  it('use prints the profile now active', async () => {
    expect((await config('use', 'staging')).json).toMatchObject({ name: 'staging', active: true });
  });

  it('delete says what went and which profile is active now', async () => {
    expect((await config('delete', 'staging', '--yes')).json).toEqual({ deleted: 'staging', active: 'sandbox' });
  });
});
