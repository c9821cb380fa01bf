import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { describeNeeding } from '../support/prerequisites.js';
import { startProgramOnTerminal } from '../support/pty.js';
import { tempDir } from '../support/sandbox.js';

/*
 * The completion scripts, run by the real shells: bash (its completion function, as bash calls
 * it on Tab), zsh (on a real terminal, Tab pressed), fish (its own completion engine,
 * `complete -C`). Values come from the tree (keys, shells, states) and, for profile names, from
 * the config file at the moment of the Tab, asked of fraudctl itself (`fraudctl __complete
 * profiles`): the scripts find `fraudctl` on PATH as a user's shell would. What fraudctl prints
 * (the scripts, `__complete`'s answers) is asked in-process (main, its streams and exit code).
 *
 * Needs bash, zsh, fish and tmux: each block is skipped, naming the program, where it cannot run
 * (prerequisites.ts); CI installs them (.ci/run).
 */

const tmp = tempDir('fraudctl-completion-');
const KEY = 'completion-secret-key-0123';
/** PATH with a `fraudctl` on it, and a config file with profiles prod and local (prod active, holding a key). */
let env: NodeJS.ProcessEnv;
const scripts: Record<string, string> = {};

beforeAll(async () => {
  const bin = join(tmp.dir, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'fraudctl'));
  // `#!/usr/bin/env node` finds the node running these tests.
  const config = join(tmp.dir, 'config');
  mkdirSync(join(config, 'fraudctl'), { recursive: true });
  writeFileSync(
    join(config, 'fraudctl', 'config.json'),
    JSON.stringify({
      activeProfile: 'prod',
      profiles: {
        prod: { baseUrl: 'https://fraud.example.com', apiKey: KEY },
        local: { baseUrl: 'http://127.0.0.1:8787' },
      },
    }),
  );
  chmodSync(join(config, 'fraudctl', 'config.json'), 0o600);
  env = cliEnv({
    PATH: `${bin}:${join(process.execPath, '..')}:${process.env.PATH}`,
    HOME: tmp.dir,
    XDG_CONFIG_HOME: config,
  });
  for (const shell of ['bash', 'zsh', 'fish', 'powershell']) {
    const result = await runInProcess(['completion', shell], env);
    expect(result.code, result.stderr).toBe(0);
    scripts[shell] = join(tmp.dir, `fraudctl.${shell}`);
    writeFileSync(scripts[shell], result.stdout);
  }
});
afterAll(() => tmp.remove());

describeNeeding(['bash'], 'bash', () => {
  /** What bash offers for each line (its last word is the one being completed), through the script's completion function, in one bash. */
  const complete = (...lines: string[]): string[][] => {
    const calls = lines.map((line) => {
      const words = line.split(' ');
      return `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _fraudctl; printf '%s\\n' "\${COMPREPLY[@]}" --end--`;
    });
    const result = spawnSync('bash', ['--norc', '-c', `source '${scripts.bash}'; ${calls.join('; ')}`], {
      encoding: 'utf8',
      env,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toContain(KEY);
    return result.stdout
      .split('--end--\n')
      .slice(0, lines.length)
      .map((block) => block.split('\n').filter(Boolean));
  };

  it('the script is valid bash', () => {
    expect(spawnSync('bash', ['-n', scripts.bash!]).status).toBe(0);
  });

  it('completes commands, options, states, and values: config set <key>, completion <shell>, config use <profile>, --profile <profile>', () => {
    expect(
      complete(
        'fraudctl se',
        'fraudctl set-state ord-1 --st',
        'fraudctl set-state ord-1 --state ESC',
        'fraudctl sandbox s',
        'fraudctl config set ',
        'fraudctl config get ti',
        'fraudctl completion ',
        'fraudctl config use ',
        'fraudctl config use p',
        'fraudctl --profile ',
        'fraudctl show ord-1 --profile l',
        // After a global option's value, the command still completes.
        'fraudctl --profile prod config u',
      ),
    ).toEqual([
      ['set-state'],
      ['--state'],
      ['ESCALATED'],
      ['serve'],
      ['base-url', 'timeout', 'retries', 'insecure-http', 'analyst', 'reasons', 'require-reason'],
      ['timeout'],
      ['bash', 'zsh', 'fish', 'powershell'],
      ['local', 'prod', 'sandbox'],
      ['prod'],
      ['local', 'prod', 'sandbox'],
      ['local'],
      ['unset', 'use'],
    ]);
    // The second argument of config set is a value, not a key.
    expect(complete('fraudctl config set timeout ')[0]).not.toContain('base-url');
  });

  it("fraudctl __complete words (PowerShell's) offers what the bash script offers, line for line", async () => {
    const lines = [
      'fraudctl ',
      'fraudctl se',
      'fraudctl set-state ord-1 --st',
      'fraudctl set-state ord-1 --state ',
      'fraudctl sandbox ',
      'fraudctl config ',
      'fraudctl config set ',
      'fraudctl config set timeout ',
      'fraudctl config get ',
      'fraudctl completion ',
      'fraudctl config use ',
      'fraudctl --profile ',
      'fraudctl show ord-1 --profile l',
      'fraudctl --profile prod config u',
      'fraudctl --timeout 5 show ord-1 --',
      'fraudctl review --sort ',
      'fraudctl show ord-1 ',
    ];
    const bash = complete(...lines);
    for (const [i, line] of lines.entries()) {
      const words = line
        .split(' ')
        .slice(1)
        .map((w) => `:${w}`);
      const result = await runInProcess(['__complete', 'words', ...words], env);
      expect(result.stderr).toBe('');
      expect({ line, offered: result.stdout.split('\n').filter(Boolean).sort() }).toEqual({
        line,
        offered: [...new Set(bash[i])].sort(),
      });
    }
  });
});

describeNeeding(['zsh', 'tmux'], 'zsh (bashcompinit), on a real terminal', () => {
  it('Tab after config use lists the profiles; after completion, the shells', async () => {
    const rc = join(tmp.dir, 'zdotdir');
    mkdirSync(rc, { recursive: true });
    writeFileSync(join(rc, '.zshrc'), `PS1='%% '\nautoload -U compinit && compinit -u\nsource '${scripts.zsh}'\n`);
    const zsh = await startProgramOnTerminal(['zsh', '-i'], { env: { ...env, ZDOTDIR: rc }, width: 100, height: 12 });
    try {
      await zsh.waitFor(/^%$/m, 'the prompt');
      await zsh.type('fraudctl config use ');
      await zsh.send('Tab');
      await zsh.waitFor(/^local\s+prod\s+sandbox$/m, 'the profiles offered');
      await zsh.send('C-u');
      await zsh.type('fraudctl completion ');
      await zsh.send('Tab');
      expect(await zsh.waitFor(/^bash\s+fish\s+powershell\s+zsh$/m, 'the shells offered')).not.toContain(KEY);
    } finally {
      await zsh.kill();
    }
  });
});

describeNeeding(['fish'], 'fish', () => {
  /** What fish's completion engine offers for each line (`complete -C`), values only. */
  const complete = (...lines: string[]): string[][] => {
    const script = `source '${scripts.fish}'; ${lines.map((l) => `complete -C '${l}'; echo '--end--'`).join('; ')}`;
    const result = spawnSync('fish', ['--no-config', '-c', script], { encoding: 'utf8', env });
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toContain(KEY);
    return result.stdout
      .split('--end--\n')
      .slice(0, lines.length)
      .map((block) =>
        block
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[0]!),
      );
  };

  it('completes commands, values of arguments and options, and profiles from the config file', () => {
    const [top, configVerbs, keys, shells, profiles, globalProfile, states, afterUse] = complete(
      'fraudctl ',
      'fraudctl config ',
      'fraudctl config set ',
      'fraudctl completion ',
      'fraudctl config use ',
      'fraudctl show x --profile ',
      'fraudctl set-state x --state ESC',
      'fraudctl config use prod ',
    );
    expect(top).toEqual(expect.arrayContaining(['submit', 'show', 'config', 'completion', 'sandbox']));
    expect(top).not.toContain('__complete');
    expect(configVerbs).toEqual(['delete', 'get', 'list', 'set', 'unset', 'use']);
    expect(keys).toEqual(['analyst', 'base-url', 'insecure-http', 'reasons', 'require-reason', 'retries', 'timeout']);
    expect(shells).toEqual(['bash', 'fish', 'powershell', 'zsh']);
    expect(profiles).toEqual(['local', 'prod', 'sandbox']);
    expect(globalProfile).toEqual(['local', 'prod', 'sandbox']);
    expect(states).toEqual(['ESCALATED']);
    expect(afterUse).toEqual([]);
  });
});

describe('PowerShell: tested through the protocol only (PowerShell cannot be installed here)', () => {
  /** What fraudctl answers for the words as the script hands them over: each with a leading ':', the last the one being typed. */
  const offered = async (...words: string[]) => {
    const result = await runInProcess(['__complete', 'words', ...words.map((w) => `:${w}`)], spacedEnv);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).not.toContain(KEY);
    return result.stdout.split('\n').filter(Boolean);
  };
  let spacedEnv: NodeJS.ProcessEnv;
  beforeAll(() => {
    const config = join(tmp.dir, 'spaced');
    mkdirSync(join(config, 'fraudctl'), { recursive: true });
    writeFileSync(
      join(config, 'fraudctl', 'config.json'),
      JSON.stringify({
        activeProfile: 'prod',
        profiles: {
          prod: { baseUrl: 'https://fraud.example.com', apiKey: KEY },
          'night-shift': { baseUrl: 'https://night.example.com' },
        },
      }),
      { mode: 0o600 },
    );
    spacedEnv = { ...env, XDG_CONFIG_HOME: config };
  });

  it('the script registers a native completer for fraudctl that hands each word, with its leading colon, to __complete words', () => {
    const script = readFileSync(scripts.powershell!, 'utf8');
    expect(script).toMatch(
      /^# fraudctl completion for PowerShell: fraudctl completion powershell \| Out-String \| Invoke-Expression$/m,
    );
    expect(script).toContain('Register-ArgumentCompleter -Native -CommandName fraudctl -ScriptBlock {');
    expect(script).toContain('param($wordToComplete, $commandAst, $cursorPosition)');
    expect(script).toContain("$words += ':' + $element.Value");
    expect(script).toContain("if ($wordToComplete -eq '') { $words += ':' }");
    expect(script).toContain('& $program __complete words @words 2>$null');
    // A candidate PowerShell would split or expand goes in single quotes, a quote in it doubled.
    expect(script).toContain(
      `if ($candidate -match '[\\s''"$\`;,(){}|&<>@#]') { $text = "'" + $candidate.Replace("'", "''") + "'" }`,
    );
    // Balanced, as PowerShell's parser needs them; no bash in it.
    for (const [open, close] of [
      ['{', '}'],
      ['(', ')'],
      ['[', ']'],
    ] as const)
      expect(script.split(open).length, open).toBe(script.split(close).length);
    expect(script).not.toMatch(/COMPREPLY|compgen|\bcomplete -c\b/);
  });

  it('an empty last word (Tab after a space) offers everything that can come there; a partial one, what starts with it', async () => {
    expect(await offered('config', 'use', '')).toEqual(['night-shift', 'prod', 'sandbox']);
    expect(await offered('completion', '')).toEqual(['bash', 'zsh', 'fish', 'powershell']);
    expect(await offered('set-state', 'ord-1', '--state', 'ESC')).toEqual(['ESCALATED']);
    expect(await offered('config', 'u')).toEqual(['unset', 'use']);
  });

  it('words as PowerShell parsed them, quotes taken off: a value with a space or a quote is one word, an option is not taken for an option of __complete', async () => {
    // fraudctl set-state ord-1 --comments "it's done, really" --st<Tab>
    expect(await offered('set-state', 'ord-1', '--comments', "it's done, really", '--st')).toEqual(['--state']);
    // fraudctl --timeout 5 --base-url 'https://x.example/a b' config u<Tab>
    expect(await offered('--timeout', '5', '--base-url', 'https://x.example/a b', 'config', 'u')).toEqual([
      'unset',
      'use',
    ]);
    // fraudctl config use 'night<Tab>: PowerShell's word is the string typed so far, its quote taken off
    expect(await offered('config', 'use', 'night')).toEqual(['night-shift']);
    expect(await offered('set-state', 'ord-1', '--')).toEqual(
      expect.arrayContaining(['--state', '--help', '--profile']),
    );
    // A file name comes next: nothing, and PowerShell completes file names.
    expect(await offered('submit', '--out', '')).toEqual([]);
  });

  it('a word without its leading colon is a usage error (exit 2)', async () => {
    const result = await runInProcess(['__complete', 'words', 'config'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`__complete words takes each word with a leading ':' (got "config")`);
  });
});

describe('fraudctl __complete (what the scripts ask at each Tab)', () => {
  it('prints the profile names, one a line, never a key; it is not in the help', async () => {
    const result = await runInProcess(['__complete', 'profiles'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('local\nprod\nsandbox\n');
    expect((await runInProcess(['--help'], env)).stdout).not.toContain('__complete');
  });

  it('with a config file that cannot be read, prints nothing (a Tab must not print errors)', async () => {
    const broken = join(tmp.dir, 'broken');
    mkdirSync(join(broken, 'fraudctl'), { recursive: true });
    writeFileSync(join(broken, 'fraudctl', 'config.json'), '{ "profiles": ', { mode: 0o600 });
    const result = await runInProcess(['__complete', 'profiles'], { ...env, XDG_CONFIG_HOME: broken });
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });
});

describe('fraudctl completion', () => {
  // As a process: the bundle's exit code for a usage error (the shells run fraudctl __complete as one too).
  it('exits 2 for a shell it does not know', async () => {
    const result = await runCli(['completion', 'tcsh']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/'tcsh' is invalid .*Allowed choices are bash, zsh, fish/);
  });
});
