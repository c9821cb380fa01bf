import { UsageError } from '../errors/cli-error.js';

/*
 * Commands printed as hints: a hint must work when pasted as it is, into the shell the person
 * is typing in. Three dialects:
 * - `sh`, any POSIX shell (bash, zsh, dash; fish takes the same single quotes): every word it
 *   would split or expand is put in single quotes, a `'` inside as `'\''`.
 * - `powershell` (Windows PowerShell 5.1 and PowerShell 7): single quotes, in which nothing is
 *   expanded (`$`, backtick); a quote inside is doubled, typographic single quotes too, which
 *   PowerShell takes for `'`. A quoted first word is a string, not a command, so `&` calls it.
 * - `cmd` (cmd.exe): each word is quoted as the program will split its command line (the
 *   Microsoft C runtime's rules: "...", `\"` for a quote, backslashes before a quote doubled),
 *   then every cmd.exe metacharacter of it, the quotes included, is escaped with `^`, so cmd.exe
 *   never enters or leaves a quoted part and passes the line on exactly; a `%` is followed by a
 *   `^`, which stops `%NAME%` from being expanded at the prompt (and is then removed).
 * Known limits, which no quoting removes: a word holding `"` reaches a program through Windows
 * PowerShell 5.1 (and 7.0 to 7.2) without its quote (their legacy argument passing), and through an
 * npm `.cmd` shim, which re-reads the line, split; an empty word is dropped by those
 * PowerShells; cmd.exe cannot take a line break in a word. The hints' words are paths, profile
 * names, ids and flags, which have none of these in practice.
 *
 * Which dialect: main chooses for each command it runs (`useShellFor`, as symbols.ts is chosen), from
 * FRAUDCTL_SHELL when it is set, else POSIX off Windows; on Windows, from the environment the
 * shell left (shellDialectFor). Every function takes the dialect as an argument, defaulting to
 * main's choice, so tests render each hint in each dialect in one process.
 */

export const SHELL_DIALECTS = ['sh', 'powershell', 'cmd'] as const;
export type ShellDialect = (typeof SHELL_DIALECTS)[number];

let chosen: ShellDialect = 'sh';

/** The dialect hints are written in for this process (main's choice; `sh` until then). */
export function currentShell(): ShellDialect {
  return chosen;
}

/** Folders under which PSModulePath lists the machine's modules, not the user's own. */
const MACHINE_FOLDERS = ['SystemRoot', 'windir', 'ProgramFiles', 'ProgramFiles(x86)', 'ProgramW6432'];

/**
 * On Windows, whether the shell that started fraudctl is PowerShell. Nothing names the shell
 * (Windows has no SHELL; PowerShell's maintainers declined to set one, PowerShell/PowerShell
 * #12150), so this is the heuristic other CLIs use (uv's shell detection, the lstk and carina
 * CLIs): PowerShell, at start, puts the user's own module folder (`Documents\PowerShell\Modules`,
 * `Documents\WindowsPowerShell\Modules`) in PSModulePath; cmd.exe leaves the machine's value,
 * which lists only folders under Program Files and Windows (PSModulePath itself is set for every
 * process, so its mere presence says nothing). A cmd.exe started from PowerShell inherits
 * PowerShell's value and is taken for PowerShell: FRAUDCTL_SHELL=cmd says otherwise.
 */
function startedFromPowerShell(env: NodeJS.ProcessEnv): boolean {
  const machine = MACHINE_FOLDERS.map((name) => env[name])
    .filter((folder): folder is string => Boolean(folder))
    .map((folder) => folder.toLowerCase().replace(/[\\/]+$/, ''));
  return (env.PSModulePath ?? '')
    .split(';')
    .map((entry) => entry.trim().toLowerCase())
    .some(
      (entry) =>
        /[\\/](windows)?powershell[\\/]modules[\\/]?$/.test(entry) &&
        !machine.some((folder) => entry.startsWith(`${folder}\\`) || entry.startsWith(`${folder}/`)),
    );
}

/**
 * The dialect for a process with this environment on this platform: FRAUDCTL_SHELL when set
 * (sh, powershell or cmd; anything else is a usage error); off Windows, POSIX; on Windows, POSIX
 * in Git Bash, MSYS2 or Cygwin (which set MSYSTEM, or a SHELL that is a POSIX path), else
 * PowerShell when it started fraudctl, else cmd.exe.
 */
export function shellDialectFor(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): ShellDialect {
  const given = env.FRAUDCTL_SHELL;
  if (given !== undefined && given !== '') {
    const name = given.trim().toLowerCase();
    if (name === 'pwsh') return 'powershell';
    if ((SHELL_DIALECTS as readonly string[]).includes(name)) return name as ShellDialect;
    throw new UsageError(
      `FRAUDCTL_SHELL is ${JSON.stringify(given)}, not a shell fraudctl writes hints for`,
      'set it to sh, powershell or cmd, or leave it empty to have the shell found',
    );
  }
  if (platform !== 'win32') return 'sh';
  if (env.MSYSTEM || env.SHELL?.startsWith('/')) return 'sh';
  return startedFromPowerShell(env) ? 'powershell' : 'cmd';
}

/** Hints in `dialect` from now on (main gives back the dialect it found when its command is over). */
export function useShell(dialect: ShellDialect): void {
  chosen = dialect;
}

/** main's choice for the process, from its environment and platform (a usage error for a FRAUDCTL_SHELL it does not know). */
export function useShellFor(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): ShellDialect {
  chosen = shellDialectFor(env, platform);
  return chosen;
}

/** cmd.exe's characters with a meaning of their own at the prompt, escaped with `^` outside quotes (`%` is not: see cmdWord). */
const CMD_SPECIAL = /[()!^"<>&|]/;

/** A word as the Microsoft C runtime (and Node's own argv) splits a command line back into it. */
function windowsArgvWord(word: string): string {
  if (word !== '' && !/[\s"]/.test(word)) return word;
  // Backslashes are literal except before a quote: there (and before the closing quote) doubled.
  return `"${word.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

function cmdWord(word: string): string {
  if (/^[A-Za-z0-9._:/\\+-]+$/.test(word)) return word;
  // Quoted for the program even without a space, so that the word is one token wherever an npm
  // `.cmd` shim passes it on with %*.
  const argv = word !== '' && !/[\s"]/.test(word) ? `"${word.replace(/(\\+)$/, '$1$1')}"` : windowsArgvWord(word);
  let out = '';
  for (let i = 0; i < argv.length; i += 1) {
    const c = argv[i]!;
    out += CMD_SPECIAL.test(c) ? `^${c}` : c;
    // `%NAME%` is expanded before any `^` is read, so `^%` would not stop it: a `^` after the `%`
    // makes the name one no variable has (`%^NAME%`), and is removed once expansion is over. A
    // character escaped next already puts its `^` there.
    if (c === '%' && !CMD_SPECIAL.test(argv[i + 1] ?? '')) out += '^';
  }
  return out;
}

function powershellWord(word: string): string {
  // Bare only when PowerShell's argument mode reads it as the same string: not `--` (the end of
  // its parameters), not a number in another form (`1e3`, `0x10`, `1kb` would reach the program as 1000, 16, 1024).
  if (
    /^[A-Za-z0-9._:/\\+=-]+$/.test(word) &&
    !/^[-.]*$/.test(word) &&
    !/^[-+.]?[0-9]/.test(word.replace(/^[0-9]+$/, 'n'))
  )
    return word;
  return `'${word.replace(/['\u2018\u2019\u201a\u201b]/g, (q) => q + q)}'`;
}

function posixWord(word: string): string {
  return /^[A-Za-z0-9._:/@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A word for the shell, quoted only when it needs to be. */
export function shellWord(word: string, dialect: ShellDialect = chosen): string {
  return dialect === 'powershell' ? powershellWord(word) : dialect === 'cmd' ? cmdWord(word) : posixWord(word);
}

/** The words of a command, each quoted as it needs, with spaces between. */
export function shellCommand(words: readonly string[], dialect: ShellDialect = chosen): string {
  const [program, ...rest] = words;
  if (program === undefined) return '';
  const line = [program, ...rest].map((word) => shellWord(word, dialect)).join(' ');
  if (shellWord(program, dialect) === program) return line;
  // PowerShell takes a quoted first word for a string to print: `&` runs it. cmd.exe finds the
  // program's name before any `^` is read: it must be in real quotes (a path has no `"` in it).
  if (dialect === 'powershell') return `& ${line}`;
  if (dialect === 'cmd') return [`"${program}"`, ...rest.map((word) => shellWord(word, dialect))].join(' ');
  return line;
}

/** Removes environment variables from this shell (only for the session: they may be set again by a profile script). */
export function unsetEnvCommand(names: readonly string[], dialect: ShellDialect = chosen): string {
  if (dialect === 'powershell') return `Remove-Item ${names.map((name) => `Env:${name}`).join(', ')}`;
  // `set "NAME="`: the quotes keep a space before `&` out of the value.
  if (dialect === 'cmd') return names.map((name) => `set "${name}="`).join(' & ');
  return `unset ${names.join(' ')}`;
}

/** Sets an environment variable for this shell and the programs it starts. */
export function setEnvCommand(name: string, value: string, dialect: ShellDialect = chosen): string {
  if (dialect === 'powershell')
    return `$env:${name} = ${powershellWord(value) === value ? `'${value}'` : powershellWord(value)}`;
  if (dialect === 'cmd') return cmdWord(value) === value ? `set ${name}=${value}` : `set "${name}=${value}"`;
  return `export ${name}=${posixWord(value)}`;
}

/** Removes one file, taking its name as it is (no wildcards). */
export function removeFileCommand(path: string, dialect: ShellDialect = chosen): string {
  if (dialect === 'powershell') return `Remove-Item -LiteralPath ${powershellWord(path)}`;
  if (dialect === 'cmd') return `del ${cmdWord(path)}`;
  return `rm ${posixWord(path)}`;
}

/** Moves (renames) a file or folder. */
export function moveFileCommand(from: string, to: string, dialect: ShellDialect = chosen): string {
  if (dialect === 'powershell')
    return `Move-Item -LiteralPath ${powershellWord(from)} -Destination ${powershellWord(to)}`;
  if (dialect === 'cmd') return `move ${cmdWord(from)} ${cmdWord(to)}`;
  return `mv ${posixWord(from)} ${posixWord(to)}`;
}

/** Shows files or folders themselves (their owner, mode or attributes), not what a folder holds. */
export function listFilesCommand(paths: readonly string[], dialect: ShellDialect = chosen): string {
  if (dialect === 'powershell') return `Get-Item -LiteralPath ${paths.map(powershellWord).join(', ')}`;
  if (dialect === 'cmd') return `dir ${paths.map(cmdWord).join(' ')}`;
  return `ls -ld ${paths.map(posixWord).join(' ')}`;
}

/** Shows how full the disk holding a folder is (cmd.exe's `dir` says the bytes free on its last line). */
export function diskFreeCommand(dir: string, dialect: ShellDialect = chosen): string {
  if (dialect === 'powershell') return `Get-Volume -FilePath ${powershellWord(dir)}`;
  if (dialect === 'cmd') return `dir ${cmdWord(dir)}`;
  return `df -h ${posixWord(dir)}`;
}

/**
 * Removes a UTF-8 byte order mark from the start of a file, in place. PowerShell has no sed:
 * .NET's File.ReadAllText takes the mark off and WriteAllText writes UTF-8 without one (both
 * documented so), through the full path (.NET resolves a relative one against the process's
 * folder, not PowerShell's). cmd.exe has no way of its own: it runs that through powershell.exe,
 * the command quoted as one argument.
 */
export function stripByteOrderMarkCommand(path: string, dialect: ShellDialect = chosen): string {
  const dotnet = `$p = Convert-Path -LiteralPath ${powershellWord(path)}; [IO.File]::WriteAllText($p, [IO.File]::ReadAllText($p))`;
  if (dialect === 'powershell') return dotnet;
  if (dialect === 'cmd') return `powershell -NoProfile -Command ${cmdWord(dotnet)}`;
  return `sed -i '1s/^\\xEF\\xBB\\xBF//' ${posixWord(path)}`;
}
