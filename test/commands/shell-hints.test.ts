import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli } from '../support/cli.js';
import { tempDir } from '../support/sandbox.js';

/** An event the embedded sandbox screens (the README's first example). */
const EXAMPLE = fileURLToPath(new URL('../../examples/review.json', import.meta.url));

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
    const set = await runCli(['config', 'set', 'base-url', `https://${profile}.example.com`, '--profile', profile], {
      env,
    });
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
      const use = await runCli(['config', 'use', 'staging'], {
        env: { ...env, FRAUDCTL_PROFILE: 'prod', FRAUDCTL_SHELL: shell },
      });
      expect(use.code, use.stderr).toBe(0);
      hints[shell] = commandAfterRun(use.stderr);
    }
    expect(hints).toEqual({
      sh: 'unset FRAUDCTL_PROFILE',
      powershell: 'Remove-Item Env:FRAUDCTL_PROFILE',
      cmd: 'set "FRAUDCTL_PROFILE="',
    });
  });

  it('one it does not know: exit 2, one line naming the three it knows, nothing done', async () => {
    const result = await runCli(['config', 'use', 'staging'], {
      env: cliEnv({ XDG_CONFIG_HOME: join(tmp.dir, 'unknown-shell'), FRAUDCTL_SHELL: 'tcsh' }),
    });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      'error: FRAUDCTL_SHELL is "tcsh", not a shell fraudctl writes hints for\nset it to sh, powershell or cmd, or leave it empty to have the shell found\n',
    );
    expect(existsSync(join(tmp.dir, 'unknown-shell'))).toBe(false);
  });
});

const onWindows = process.platform === 'win32';

describe.skipIf(onWindows)(
  `a results file an editor saved with a byte order mark${onWindows ? ' (skipped: not on Windows: needs sh, a POSIX program)' : ''}`,
  () => {
    it('--resume refuses it; the printed command takes the mark off (PowerShell: through .NET), and --resume then goes on', async () => {
      const dir = join(tmp.dir, 'bom in a folder');
      mkdirSync(dir);
      const out = join(dir, 'results.jsonl');
      const env = cliEnv({ XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') });
      const submit = ['submit', EXAMPLE, '--out', out, '--resume'];
      expect((await runCli(['submit', EXAMPLE, '--out', out], { env })).code).toBe(0);
      writeFileSync(out, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(out)]));

      const powershell = await runCli(submit, { env: { ...env, FRAUDCTL_SHELL: 'powershell' } });
      expect(powershell.code).toBe(2);
      expect(powershell.stderr).toContain(
        `remove it: $p = Convert-Path -LiteralPath '${out}'; [IO.File]::WriteAllText($p, [IO.File]::ReadAllText($p))\n`,
      );

      const refused = await runCli(submit, { env });
      expect(refused.code).toBe(2);
      const hint = /^remove it: (.*)$/m.exec(refused.stderr)?.[1];
      expect(hint).toBe(`sed -i '1s/^\\xEF\\xBB\\xBF//' '${out}'`);
      spawnSync('sh', ['-c', hint!], { stdio: 'ignore' });
      expect(readFileSync(out).subarray(0, 3)).not.toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      const resumed = await runCli(submit, { env });
      expect(resumed.code, resumed.stderr).toBe(0);
    });
  },
);

/** Runs a line in cmd.exe as if typed at its prompt (`/s /c "…"`: the line as it is, the outer quotes taken off). */
function inCmd(line: string, env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', `"${line}"`], {
    env,
    encoding: 'utf8',
    windowsVerbatimArguments: true,
    timeout: 60_000,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.skipIf(!onWindows)(
  `hints of real failing commands, run by cmd.exe${onWindows ? '' : ' (skipped: only on Windows: cmd.exe, in the Windows job, .ci/windows)'}`,
  () => {
    /**
     * The environment of a cmd.exe window, so that the shell is found to be cmd.exe: no
     * FRAUDCTL_SHELL, no PowerShell module folder of the user, and none of the variables of a POSIX
     * shell (Wine hands Windows programs the Linux environment, SHELL=/bin/bash included).
     */
    const cmdWindow = (env: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
      const out: NodeJS.ProcessEnv = { ...process.env, ...env, ...extra };
      for (const name of ['FRAUDCTL_SHELL', 'PSModulePath', 'SHELL', 'MSYSTEM']) delete out[name];
      return out;
    };
    const fraudctl = (...args: string[]) =>
      [process.execPath, BIN]
        .map((p) => `"${p}"`)
        .concat(args)
        .join(' ');

    it('config use while FRAUDCTL_PROFILE wins: the printed set "NAME=" makes the next command use the profile just chosen', async () => {
      const { env } = await twoProfiles('use');
      const use = await runCli(['config', 'use', 'staging'], { env: cmdWindow(env, { FRAUDCTL_PROFILE: 'prod' }) });
      expect(use.code, use.stderr).toBe(0);
      const hint = commandAfterRun(use.stderr)!;
      expect(hint).toBe('set "FRAUDCTL_PROFILE="');
      const after = inCmd(
        `${hint} & ${fraudctl('config', 'get', 'base-url')}`,
        cmdWindow(env, { FRAUDCTL_PROFILE: 'prod' }),
      );
      expect(after.stdout.trim(), after.stderr).toBe('https://staging.example.com');
    });

    it('a results file locked by a run on another host, in a folder with a space, & and %: the printed del removes the lock, and the run then goes', async () => {
      const dir = join(tmp.dir, 'batch a&b 50%');
      mkdirSync(dir);
      const out = join(dir, 'results.jsonl');
      writeFileSync(`${out}.lock`, JSON.stringify({ pid: 1, host: 'another-host' }));
      const env = cmdWindow(cliEnv({ XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') }));
      const submit = ['submit', EXAMPLE, '--out', out];
      const locked = await runCli(submit, { env });
      expect(locked.code, locked.stderr).toBe(2);
      const hint = /any more: (.*)$/m.exec(locked.stderr)?.[1];
      expect(hint).toBe(`del ^"${dir.replace('&', '^&').replace('%', '%^')}\\results.jsonl.lock^"`);
      const removed = inCmd(hint!, env);
      expect(removed.status, removed.stderr).toBe(0);
      expect(existsSync(`${out}.lock`)).toBe(false);
      const again = await runCli(submit, { env, timeoutMs: 60_000 });
      expect(again.code, again.stderr).toBe(0);
      expect(readFileSync(out, 'utf8')).toContain('"outcome":"DECIDED"');
    });
  },
);
