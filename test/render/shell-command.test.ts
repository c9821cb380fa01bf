import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  currentShell,
  diskFreeCommand,
  listFilesCommand,
  moveFileCommand,
  removeFileCommand,
  setEnvCommand,
  shellCommand,
  shellDialectFor,
  shellWord,
  stripByteOrderMarkCommand,
  unsetEnvCommand,
  useShellFor,
  type ShellDialect,
} from '../../src/render/shell-command.js';
import { keyHint, shellOverrides } from '../../src/profiles/setting-hints.js';
import { UsageError } from '../../src/errors/cli-error.js';

/*
 * Hints are commands to paste: each is written for the shell in use. The dialects are tested here
 * in one process on any platform (a table of hints × dialects, and of environments × the dialect
 * chosen); the POSIX one is run by sh. PowerShell and cmd.exe run the hints for real in
 * test/commands/shell-hints.test.ts, in the Windows job (cmd.exe; PowerShell is not in Wine).
 */

describe('shellWord and shellCommand', () => {
  it('quote only the words a shell would split or expand', () => {
    expect(shellWord("it's", 'sh')).toBe(`'it'\\''s'`);
    expect(shellWord('https://fraud.example.com:8443/api', 'sh')).toBe('https://fraud.example.com:8443/api');
    expect(shellCommand(['fraudctl', 'submit', 'rejects.jsonl', '--profile', 'night shift'], 'sh')).toBe(
      "fraudctl submit rejects.jsonl --profile 'night shift'",
    );
  });

  const onWindows = process.platform === 'win32';
  it.skipIf(onWindows)(
    `give a POSIX shell back exactly the words, whatever they hold${onWindows ? ' (skipped: not on Windows: needs sh, a POSIX program)' : ''}`,
    () => {
      const words = ["it's", 'two words', '$HOME', '`id`', 'a;b', '*', 'new\nline', '', 'plain'];
      const printed = execFileSync('sh', ['-c', `printf '%s\\0' ${shellCommand(words, 'sh')}`], { encoding: 'utf8' });
      expect(printed.split('\0').slice(0, -1)).toEqual(words);
    },
  );
});

const LOCK = 'C:\\Users\\Ann Lee\\AppData\\Roaming\\fraudctl\\config.json.lock';
const REJECTS = 'C:\\Users\\Ann Lee\\50% off & more\\rejects.jsonl';

/** Each hint as sh, PowerShell and cmd.exe take it. */
const HINTS: [string, (dialect: ShellDialect) => string, () => Record<ShellDialect, string>][] = [
  [
    'a command with a path holding a space, % and &, and a profile with a space',
    (d) => shellCommand(['fraudctl', 'submit', REJECTS, '--profile', 'night shift'], d),
    () => ({
      sh: `fraudctl submit 'C:\\Users\\Ann Lee\\50% off & more\\rejects.jsonl' --profile 'night shift'`,
      powershell: `fraudctl submit 'C:\\Users\\Ann Lee\\50% off & more\\rejects.jsonl' --profile 'night shift'`,
      cmd: `fraudctl submit ^"C:\\Users\\Ann Lee\\50%^ off ^& more\\rejects.jsonl^" --profile ^"night shift^"`,
    }),
  ],
  [
    'words a shell would expand: $HOME, `id`, %PATH%, a quote',
    (d) => shellCommand(['fraudctl', 'show', '$HOME', '`id`', '%PATH%', "O'Brien"], d),
    () => ({
      sh: `fraudctl show '$HOME' '\`id\`' %PATH% 'O'\\''Brien'`,
      powershell: `fraudctl show '$HOME' '\`id\`' '%PATH%' 'O''Brien'`,
      cmd: `fraudctl show ^"$HOME^" ^"\`id\`^" ^"%^PATH%^" ^"O'Brien^"`,
    }),
  ],
  [
    'a number PowerShell would read in another form, and -- ',
    (d) => shellCommand(['fraudctl', 'show', '1e3', '0x10', '--'], d),
    () => ({
      sh: 'fraudctl show 1e3 0x10 --',
      powershell: "fraudctl show '1e3' '0x10' '--'",
      cmd: 'fraudctl show 1e3 0x10 --',
    }),
  ],
  [
    'a program whose path needs quoting',
    (d) => shellCommand(['C:\\Program Files\\fraudctl\\fraudctl.exe', '--version'], d),
    () => ({
      sh: `'C:\\Program Files\\fraudctl\\fraudctl.exe' --version`,
      powershell: `& 'C:\\Program Files\\fraudctl\\fraudctl.exe' --version`,
      cmd: `"C:\\Program Files\\fraudctl\\fraudctl.exe" --version`,
    }),
  ],
  [
    'unset two variables',
    (d) => unsetEnvCommand(['FRAUDCTL_API_KEY', 'FRAUDCTL_BASE_URL'], d),
    () => ({
      sh: 'unset FRAUDCTL_API_KEY FRAUDCTL_BASE_URL',
      powershell: 'Remove-Item Env:FRAUDCTL_API_KEY, Env:FRAUDCTL_BASE_URL',
      cmd: 'set "FRAUDCTL_API_KEY=" & set "FRAUDCTL_BASE_URL="',
    }),
  ],
  [
    'set a variable',
    (d) => setEnvCommand('FRAUDCTL_TIMEOUT', '10', d),
    () => ({
      sh: 'export FRAUDCTL_TIMEOUT=10',
      powershell: "$env:FRAUDCTL_TIMEOUT = '10'",
      cmd: 'set FRAUDCTL_TIMEOUT=10',
    }),
  ],
  [
    'remove a lock file',
    (d) => removeFileCommand(LOCK, d),
    () => ({ sh: `rm '${LOCK}'`, powershell: `Remove-Item -LiteralPath '${LOCK}'`, cmd: `del ^"${LOCK}^"` }),
  ],
  [
    'move a file aside',
    (d) => moveFileCommand('/tmp/config.json', '/tmp/config.json.old', d),
    () => ({
      sh: `mv /tmp/config.json /tmp/config.json.old`,
      powershell: `Move-Item -LiteralPath /tmp/config.json -Destination /tmp/config.json.old`,
      cmd: `move /tmp/config.json /tmp/config.json.old`,
    }),
  ],
  [
    'show two files',
    (d) => listFilesCommand(['/d', 'a b'], d),
    () => ({ sh: `ls -ld /d 'a b'`, powershell: `Get-Item -LiteralPath /d, 'a b'`, cmd: `dir /d ^"a b^"` }),
  ],
  [
    'take a byte order mark off a file',
    (d) => stripByteOrderMarkCommand('C:\\Users\\Ann Lee\\results.jsonl', d),
    () => ({
      sh: `sed -i '1s/^\\xEF\\xBB\\xBF//' 'C:\\Users\\Ann Lee\\results.jsonl'`,
      powershell: `$p = Convert-Path -LiteralPath 'C:\\Users\\Ann Lee\\results.jsonl'; [IO.File]::WriteAllText($p, [IO.File]::ReadAllText($p))`,
      cmd: `powershell -NoProfile -Command ^"$p = Convert-Path -LiteralPath 'C:\\Users\\Ann Lee\\results.jsonl'; [IO.File]::WriteAllText^($p, [IO.File]::ReadAllText^($p^)^)^"`,
    }),
  ],
  [
    'how full a disk is',
    (d) => diskFreeCommand('D:\\x y', d),
    () => ({ sh: `df -h 'D:\\x y'`, powershell: `Get-Volume -FilePath 'D:\\x y'`, cmd: `dir ^"D:\\x y^"` }),
  ],
];

describe('hints × dialects', () => {
  for (const [name, render, expected] of HINTS) {
    it(name, () =>
      expect({ sh: render('sh'), powershell: render('powershell'), cmd: render('cmd') }).toEqual(expected()),
    );
  }

  it('a typographic quote, which PowerShell takes for a single quote, is doubled like one', () => {
    expect(shellWord('it\u2019s', 'powershell')).toBe("'it\u2019\u2019s'");
  });

  it('cmd.exe: a quote and trailing backslashes are escaped as the C runtime reads them back', () => {
    // The line cmd.exe passes on is the word with its carets removed: "say \"hi\"" and "C:\dir x\\".
    expect(shellWord('say "hi"', 'cmd')).toBe('^"say \\^"hi\\^"^"');
    expect(shellWord('C:\\dir x\\', 'cmd')).toBe('^"C:\\dir x\\\\^"');
    expect(shellWord('', 'cmd')).toBe('^"^"');
  });
});

describe('the hints of a real producer follow the dialect main chose', () => {
  afterEach(() => {
    useShellFor({}, 'linux');
  });

  it('a variable that wins over config use: unset, Remove-Item Env:, set "NAME="', () => {
    const env = { FRAUDCTL_PROFILE: 'prod' };
    const last = (dialect: ShellDialect) => {
      useShellFor({ FRAUDCTL_SHELL: dialect }, 'linux');
      return shellOverrides(env, { profile: 'staging' })?.split('run: ')[1];
    };
    expect([last('sh'), last('powershell'), last('cmd')]).toEqual([
      'unset FRAUDCTL_PROFILE',
      'Remove-Item Env:FRAUDCTL_PROFILE',
      'set "FRAUDCTL_PROFILE="',
    ]);
  });

  it('a profile name with a space in a login hint', () => {
    useShellFor({}, 'win32');
    expect(currentShell()).toBe('cmd');
    expect(keyHint('night shift', 'file')).toBe(
      'log in again: fraudctl login --profile ^"night shift^" (or set FRAUDCTL_API_KEY)',
    );
    useShellFor({}, 'linux');
    expect(keyHint('night shift', 'file')).toBe(
      "log in again: fraudctl login --profile 'night shift' (or set FRAUDCTL_API_KEY)",
    );
  });
});

describe('which dialect: FRAUDCTL_SHELL, else POSIX off Windows, else what the Windows shell left in the environment', () => {
  const WINDOWS = { SystemRoot: 'C:\\WINDOWS', ProgramFiles: 'C:\\Program Files', USERPROFILE: 'C:\\Users\\ann' };
  const MACHINE_PSMODULEPATH =
    'C:\\Program Files\\WindowsPowerShell\\Modules;C:\\WINDOWS\\system32\\WindowsPowerShell\\v1.0\\Modules';
  const cases: [string, NodeJS.ProcessEnv, NodeJS.Platform, ShellDialect][] = [
    ['Linux', { PSModulePath: 'C:\\Users\\ann\\Documents\\PowerShell\\Modules' }, 'linux', 'sh'],
    ['macOS', {}, 'darwin', 'sh'],
    ['Windows, nothing known', {}, 'win32', 'cmd'],
    [
      'cmd.exe: the machine PSModulePath only',
      { ...WINDOWS, PSModulePath: MACHINE_PSMODULEPATH, PROMPT: '$P$G' },
      'win32',
      'cmd',
    ],
    [
      'Windows PowerShell 5.1: the user module folder first',
      { ...WINDOWS, PSModulePath: `C:\\Users\\ann\\Documents\\WindowsPowerShell\\Modules;${MACHINE_PSMODULEPATH}` },
      'win32',
      'powershell',
    ],
    [
      'PowerShell 7, Documents redirected to OneDrive',
      {
        ...WINDOWS,
        PSModulePath: `C:\\Users\\ann\\OneDrive\\Documents\\PowerShell\\Modules;C:\\Program Files\\PowerShell\\Modules;c:\\program files\\powershell\\7\\Modules;${MACHINE_PSMODULEPATH}`,
      },
      'win32',
      'powershell',
    ],
    [
      'PowerShell 7 alone on the machine (its own folder is under Program Files)',
      { ...WINDOWS, PSModulePath: 'C:\\Program Files\\PowerShell\\Modules;c:\\program files\\powershell\\7\\Modules' },
      'win32',
      'cmd',
    ],
    [
      'Git Bash (MSYSTEM)',
      {
        ...WINDOWS,
        MSYSTEM: 'MINGW64',
        PSModulePath: `C:\\Users\\ann\\Documents\\WindowsPowerShell\\Modules;${MACHINE_PSMODULEPATH}`,
      },
      'win32',
      'sh',
    ],
    ['Cygwin (SHELL=/bin/bash)', { ...WINDOWS, SHELL: '/bin/bash', PSModulePath: MACHINE_PSMODULEPATH }, 'win32', 'sh'],
    [
      'FRAUDCTL_SHELL=cmd in a cmd.exe started from PowerShell',
      {
        ...WINDOWS,
        FRAUDCTL_SHELL: 'cmd',
        PSModulePath: `C:\\Users\\ann\\Documents\\WindowsPowerShell\\Modules;${MACHINE_PSMODULEPATH}`,
      },
      'win32',
      'cmd',
    ],
    ['FRAUDCTL_SHELL=pwsh on Linux', { FRAUDCTL_SHELL: 'pwsh' }, 'linux', 'powershell'],
    ['FRAUDCTL_SHELL=PowerShell, any case', { FRAUDCTL_SHELL: 'PowerShell' }, 'linux', 'powershell'],
    ['FRAUDCTL_SHELL=sh on Windows', { FRAUDCTL_SHELL: 'sh' }, 'win32', 'sh'],
    ['FRAUDCTL_SHELL empty: found as if not set', { FRAUDCTL_SHELL: '' }, 'win32', 'cmd'],
  ];
  for (const [name, env, platform, want] of cases) {
    it(`${name}: ${want}`, () => expect(shellDialectFor(env, platform)).toBe(want));
  }

  it('a FRAUDCTL_SHELL it does not know is a usage error naming the three it does', () => {
    expect(() => shellDialectFor({ FRAUDCTL_SHELL: 'tcsh' }, 'linux')).toThrow(UsageError);
    expect(() => shellDialectFor({ FRAUDCTL_SHELL: 'tcsh' }, 'linux')).toThrow(
      'FRAUDCTL_SHELL is "tcsh", not a shell fraudctl writes hints for',
    );
  });
});
