import { afterAll, describe, expect, it } from 'vitest';
import { currentShell } from '../src/render/shell-command.js';
import { sym } from '../src/render/symbols.js';
import { cliEnv } from './support/cli.js';
import { runInProcess } from './support/in-process-cli.js';
import { tempDir } from './support/sandbox.js';

/*
 * main takes the outside world from the context it is handed, not from this process: the help
 * is as wide as the terminal it is written to, and what a run chose from its environment (the
 * locale's marks, the shell its hints are written for) does not outlast the run, for a caller
 * that runs many commands in one process.
 */

const tmp = tempDir('fraudctl-main-context-');
const env = (extra: Record<string, string> = {}) =>
  cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: `${tmp.dir}/config`, XDG_DATA_HOME: `${tmp.dir}/data`, ...extra });
afterAll(() => tmp.remove());

describe('main and the context it is given', () => {
  it('help fits the width of the terminal it is written to; off a terminal, 80 columns, whatever this process writes to', async () => {
    const help = (columns?: number) =>
      runInProcess(['config', 'set', '--help'], env(), columns === undefined ? {} : { columns });
    const narrow = await help(60);
    expect(narrow.code).toBe(0);
    // What commander wraps (a description; not the option table, too narrow for it at 60 columns).
    expect(narrow.stdout).toContain('change one setting of a profile (setting base-url creates a\nnew one)');
    expect((await help(200)).stdout).toContain(
      'change one setting of a profile (setting base-url creates a new one); the API key is stored by fraudctl login\n',
    );
    expect((await help()).stdout).toBe((await help(80)).stdout);
  });

  it('a run in the C locale, with hints for PowerShell, leaves the marks and the dialect as they were', async () => {
    const before = { arrow: sym.arrow, shell: currentShell() };
    // Whatever the worker had (sh, or cmd.exe on Windows), not what the run chooses.
    expect(before.arrow).not.toBe('->');
    expect(before.shell).not.toBe('powershell');
    const shellEnv = env({ LANG: 'C', FRAUDCTL_SHELL: 'powershell' });
    // The runs themselves used them: ASCII borders, PowerShell's way to remove a variable.
    expect((await runInProcess(['config', 'list'], shellEnv)).stdout).toMatch(/^\+-+\+/);
    const hint = await runInProcess(['show', 'x'], { ...shellEnv, FRAUDCTL_TIMEOUT: 'abc' });
    expect(hint.code).toBe(2);
    expect(hint.stderr).toContain('Remove-Item Env:FRAUDCTL_TIMEOUT');
    expect({ arrow: sym.arrow, shell: currentShell() }).toEqual(before);
  });
});
