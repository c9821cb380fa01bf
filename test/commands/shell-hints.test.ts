import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli } from '../support/cli.js';
import { tempDir } from '../support/sandbox.js';

/*
 * Hints written for the shell they are pasted into, as processes: FRAUDCTL_SHELL picks the
 * dialect on any platform; without it, on Windows, the shell is found from the environment
 * (src/render/shell-command.ts). In the Windows job (.ci/windows: node.exe under Wine), the
 * hints of real failing commands are run by cmd.exe itself, as a person would paste them.
 */

const tmp = tempDir('fraudctl-shell-hints-');
afterAll(() => tmp.remove());

/** A config directory whose path holds a space, `&` and `%`, with profiles staging and prod. */
async function twoProfiles(name: string): Promise<{ env: NodeJS.ProcessEnv; config: string }> {
  const config = join(tmp.dir, `${name} a&b 50%`, 'config');
  mkdirSync(config, { recursive: true });
  const env = cliEnv({ XDG_CONFIG_HOME: config, XDG_DATA_HOME: join(config, '..', 'data') });
  for (const profile of ['staging', 'prod']) {
    const set = await runCli(['config', 'set', 'base-url', `https://${profile}.example.com`, '--profile', profile], { env });
    expect(set.code, set.stderr).toBe(0);
  }
  return { env, config };
}

/** The command after "run: " on the warning line. */
const commandAfterRun = (stderr: string) => /run: (.*)$/m.exec(stderr)?.[1];

describe('FRAUDCTL_SHELL: the dialect of every hint', () => {
  it('config use while FRAUDCTL_PROFILE wins: unset, Remove-Item Env:, or set "NAME=", as the shell takes it', async () => {
    const { env } = await twoProfiles('dialects');
    const hints: Record<string, string | undefined> = {};
    for (const shell of ['sh', 'powershell', 'cmd']) {
      const use = await runCli(['config', 'use', 'staging'], { env: { ...env, FRAUDCTL_PROFILE: 'prod', FRAUDCTL_SHELL: shell } });
      expect(use.code, use.stderr).toBe(0);
      hints[shell] = commandAfterRun(use.stderr);
    }
    expect(hints).toEqual({ sh: 'unset FRAUDCTL_PROFILE', powershell: 'Remove-Item Env:FRAUDCTL_PROFILE', cmd: 'set "FRAUDCTL_PROFILE="' });
  });

  it('one it does not know: exit 2, one line naming the three it knows, nothing done', async () => {
    const result = await runCli(['config', 'use', 'staging'], { env: cliEnv({ XDG_CONFIG_HOME: join(tmp.dir, 'unknown-shell'), FRAUDCTL_SHELL: 'tcsh' }) });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe('error: FRAUDCTL_SHELL is "tcsh", not a shell fraudctl writes hints for\nset it to sh, powershell or cmd, or leave it empty to have the shell found\n');
    expect(existsSync(join(tmp.dir, 'unknown-shell'))).toBe(false);
  });
});

const onWindows = process.platform === 'win32';

/** Runs a line in cmd.exe as if typed at its prompt (`/s /c "…"`: the line as it is, the outer quotes taken off). */
function inCmd(line: string, env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', `"${line}"`], { env, encoding: 'utf8', windowsVerbatimArguments: true, timeout: 60_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.skipIf(!onWindows)(`hints of real failing commands, run by cmd.exe${onWindows ? '' : ' (skipped: needs Windows: cmd.exe, in the Windows job, .ci/windows)'}`, () => {
  /** The environment of a cmd.exe window: no FRAUDCTL_SHELL, no PowerShell module folder of the user, so the shell is found to be cmd.exe. */
  const cmdWindow = (env: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const out: NodeJS.ProcessEnv = { ...process.env, ...env, ...extra };
    delete out.FRAUDCTL_SHELL;
    delete out.PSModulePath;
    return out;
  };
  const fraudctl = (...args: string[]) => [process.execPath, BIN].map((p) => `"${p}"`).concat(args).join(' ');

  it('config use while FRAUDCTL_PROFILE wins: the printed set "NAME=" makes the next command use the profile just chosen', async () => {
    const { env } = await twoProfiles('use');
    const use = await runCli(['config', 'use', 'staging'], { env: cmdWindow(env, { FRAUDCTL_PROFILE: 'prod' }) });
    expect(use.code, use.stderr).toBe(0);
    const hint = commandAfterRun(use.stderr)!;
    expect(hint).toBe('set "FRAUDCTL_PROFILE="');
    const after = inCmd(`${hint} & ${fraudctl('config', 'get', 'base-url')}`, cmdWindow(env, { FRAUDCTL_PROFILE: 'prod' }));
    expect(after.stdout.trim(), after.stderr).toBe('https://staging.example.com');
  });

  it('a lock left by another host, in a folder with a space, & and %: the printed del removes it, and the command then works', async () => {
    const { env, config } = await twoProfiles('lock');
    const lock = join(config, 'fraudctl', 'config.json.lock');
    writeFileSync(lock, JSON.stringify({ pid: 1, host: 'another-host' }));
    const locked = await runCli(['config', 'set', 'timeout', '5', '--profile', 'prod'], { env: cmdWindow(env) });
    expect(locked.code).toBe(1);
    const hint = /any more: (.*)$/m.exec(locked.stderr)?.[1];
    expect(hint).toMatch(/^del \^".*a\^&b 50%\^.*config\.json\.lock\^"$/);
    const removed = inCmd(hint!, cmdWindow(env));
    expect(removed.status, removed.stderr).toBe(0);
    expect(existsSync(lock)).toBe(false);
    expect((await runCli(['config', 'set', 'timeout', '5', '--profile', 'prod'], { env: cmdWindow(env) })).code).toBe(0);
  });
});
