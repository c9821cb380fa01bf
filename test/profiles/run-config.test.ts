import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';

// config's changing verbs with --json: the profile as it now is on stdout (config list --json's
// shape), the note on stderr, so a script needs no second call to see what it changed.
describe('config set/unset/use/delete --json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fraudctl-config-json-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  const env = cliEnv({ HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') });
  const config = async (...args: string[]) => {
    const result = await runInProcess(['config', ...args, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    return { json: JSON.parse(result.stdout) as Record<string, unknown>, note: result.stderr };
  };

  it('set prints the changed profile', async () => {
    const { json, note } = await config('set', 'base-url', 'http://127.0.0.1:9', '--profile', 'staging');
    expect(json).toMatchObject({ name: 'staging', baseUrl: 'http://127.0.0.1:9', timeoutSeconds: 30 });
    expect(note).toContain('base-url set to');
    expect((await config('set', 'timeout', '12', '--profile', 'staging')).json).toMatchObject({
      name: 'staging',
      timeoutSeconds: 12,
    });
  });

  it('unset prints the profile without the setting', async () => {
    expect((await config('unset', 'timeout', '--profile', 'staging')).json).toMatchObject({
      name: 'staging',
      timeoutSeconds: 30,
    });
  });

  it('use prints the profile now active', async () => {
    expect((await config('use', 'staging')).json).toMatchObject({ name: 'staging', active: true });
  });

  it('delete says what went and which profile is active now', async () => {
    expect((await config('delete', 'staging', '--yes')).json).toEqual({ deleted: 'staging', active: 'sandbox' });
  });
});

// What config set --help says makes a profile is what does: a newcomer's `config set timeout 10
// --profile prod` is refused with the command that makes prod, and that command works as written.
describe('config set on a profile that does not exist yet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fraudctl-config-new-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  const env = cliEnv({ HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') });

  it('help says setting base-url makes one; another setting is refused naming that command, which works', async () => {
    const help = await runInProcess(['config', 'set', '--help'], env);
    expect(help.stdout).toContain('setting base-url creates a new one');
    expect(help.stdout).not.toContain('created if new');
    const refused = await runInProcess(['config', 'set', 'timeout', '10', '--profile', 'prod'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'error: no profile "prod" (known: sandbox)\nto create it: fraudctl config set base-url URL --profile prod\n',
    );
    const hint = refused.stderr.split('to create it: fraudctl ')[1]!.trim();
    expect((await runInProcess(hint.replace('URL', 'https://fraud.example.com').split(' '), env)).code).toBe(0);
    const set = await runInProcess(['config', 'set', 'timeout', '10', '--profile', 'prod', '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    const profile = { name: 'prod', baseUrl: 'https://fraud.example.com', timeoutSeconds: 10 };
    expect(JSON.parse(set.stdout)).toMatchObject(profile);
  });
});
