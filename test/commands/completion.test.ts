import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

describe('fraudctl completion', () => {
  it('prints a bash script that bash accepts and that completes commands, options and states', async () => {
    const result = await runCli(['completion', 'bash']);
    expect(result.code).toBe(0);
    expect(spawnSync('bash', ['-n'], { input: result.stdout }).status).toBe(0);
    const complete = (line: string) => {
      const words = line.split(' ');
      const script = `${result.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _fraudctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
      return spawnSync('bash', ['-c', script], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    };
    expect(complete('fraudctl se')).toEqual(expect.arrayContaining(['set-state']));
    expect(complete('fraudctl set-state ord-1 --st')).toEqual(['--state']);
    expect(complete('fraudctl set-state ord-1 --state ESC')).toEqual(['ESCALATED']);
    expect(complete('fraudctl sandbox s')).toEqual(['serve']);
  });

  it('prints zsh and fish scripts naming every command', async () => {
    for (const shell of ['zsh', 'fish']) {
      const result = await runCli(['completion', shell]);
      expect(result.code).toBe(0);
      for (const command of ['submit', 'show', 'alerts', 'set-state', 'login', 'config', 'sandbox']) expect(result.stdout).toContain(command);
    }
  });

  it('exits 2 for a shell it does not know', async () => {
    const result = await runCli(['completion', 'tcsh']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/'tcsh' is invalid .*Allowed choices are bash, zsh, fish/);
  });
});
