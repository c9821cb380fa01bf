import type { Argument, Command, Option } from 'commander';
import { KNOWN_STATES } from '../contract/states.js';

/*
 * Shell completion scripts, generated from the command tree itself so they cannot drift from the
 * commands: command names, options, and the values of options and arguments, as gh's do. Values
 * come from the tree too: an argument's or option's choices (`config set <key>`, `completion
 * <shell>`), states for a `<state>`, files for a `<file>` or `<path>`, and profile names for
 * `--profile` and `config use <profile>`. Profile names change, so the script asks the CLI for
 * them when Tab is pressed (`fraudctl __complete profiles`, which prints names only, never a key).
 * zsh reuses the bash script through bashcompinit; fish gets its own. PowerShell's hands fraudctl
 * the words typed so far at each Tab (`fraudctl __complete words`, completion-words.ts), which
 * answers with the same rules as the bash script: PowerShell cannot be run here to test a
 * script written in its own language, and through the protocol the rules are tested as processes.
 */

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

/** What a value can be completed with. */
export type Values =
  { kind: 'none' } | { kind: 'words'; words: readonly string[] } | { kind: 'files' } | { kind: 'profiles' };

export interface ValueOption {
  flag: string;
  values: Values;
}

export interface Node {
  path: string[];
  name: string;
  description: string;
  /** Every long option of the command. */
  options: string[];
  /** The options that take a value, and what it can be. */
  valueOptions: ValueOption[];
  /** The positional arguments in order: what each can be. */
  args: Values[];
  children: Node[];
}

/** The name in an option's `<placeholder>`: `--from <file>` → `file`. */
const placeholder = (option: Option) => /[<[]([\w-]+)/.exec(option.flags)?.[1] ?? '';

function valuesFor(name: string, choices: readonly string[] | undefined, flag?: string): Values {
  if (choices && choices.length > 0) return { kind: 'words', words: choices };
  if (flag === '--profile' || name === 'profile') return { kind: 'profiles' };
  if (name === 'state') return { kind: 'words', words: KNOWN_STATES };
  if (name === 'file' || name === 'path') return { kind: 'files' };
  return { kind: 'none' };
}

export const longFlags = (options: readonly Option[]) =>
  options.map((o) => o.long).filter((f): f is string => Boolean(f));

export function valueOptions(options: readonly Option[]): ValueOption[] {
  return options
    .filter((o) => o.long && (o.required || o.optional))
    .map((o) => ({ flag: o.long!, values: valuesFor(placeholder(o), o.argChoices, o.long) }));
}

const argumentValues = (arg: Argument) => valuesFor(arg.name(), arg.argChoices);

/** The visible commands: not `help`, not the hidden ones (`__complete`). */
const visible = (command: Command) => command.commands.filter((c) => c.name() !== 'help' && !c.name().startsWith('__'));

export function tree(command: Command, path: string[] = []): Node[] {
  return visible(command).map((c) => ({
    path: [...path, c.name()],
    name: c.name(),
    description: c.description().replace(/[\n'"`$\\]/g, ' '),
    options: longFlags(c.options),
    valueOptions: valueOptions(c.options),
    args: c.registeredArguments.map(argumentValues),
    children: tree(c, [...path, c.name()]),
  }));
}

export function flatten(nodes: Node[]): Node[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

/** bash: the words of a `case` pattern, quoted. */
const pattern = (items: string[]) => items.map((i) => `"${i}"`).join('|');

function bashValues(values: Values): string | null {
  switch (values.kind) {
    case 'words':
      return `COMPREPLY=($(compgen -W "${values.words.join(' ')}" -- "$cur"))`;
    case 'files':
      return '_fraudctl_files';
    case 'profiles':
      return '_fraudctl_profiles';
    default:
      return null;
  }
}

function bash(program: Command): string {
  const globals = [...longFlags(program.options), '--help'].join(' ');
  const globalValues = valueOptions(program.options);
  const nodes = flatten(tree(program));
  const paths = nodes.map((n) => n.path.join(' '));

  // Option values: `path|--flag`, the global ones under any path.
  const valueCases = new Map<string, string[]>();
  const allValueOptions: string[] = globalValues.map((o) => `*"|${o.flag}"`);
  const addValueCase = (values: Values, key: string) => {
    const action = bashValues(values) ?? 'return';
    valueCases.set(action, [...(valueCases.get(action) ?? []), key]);
  };
  for (const o of globalValues) addValueCase(o.values, `*"|${o.flag}"`);
  for (const n of nodes) {
    for (const o of n.valueOptions) {
      const key = `"${n.path.join(' ')}|${o.flag}"`;
      allValueOptions.push(key);
      addValueCase(o.values, key);
    }
  }
  // Positional arguments: `path|n` (a variadic last argument is every position from n on; none here needs values).
  const argCases: string[] = [];
  for (const n of nodes) {
    n.args.forEach((values, i) => {
      const action = bashValues(values);
      if (action) argCases.push(`    ${pattern([`${n.path.join(' ')}|${i}`])}) ${action}; return ;;`);
    });
  }
  const wordCases = nodes.map(
    (n) =>
      `    ${pattern([n.path.join(' ')])}) offered="${[...n.children.map((c) => c.name), ...n.options, '--help'].join(' ')}" ;;`,
  );
  const valueCaseLines = [...valueCases.entries()].map(
    ([action, keys]) => `    ${keys.join('|')}) ${action === 'return' ? 'return' : `${action}; return`} ;;`,
  );

  return `# fraudctl completion for bash: source <(fraudctl completion bash)
_fraudctl_profiles() {
  # Asked of the CLI at each Tab (the profiles change): names only, one a line.
  local IFS=$'\\n'
  COMPREPLY=($(compgen -W "$("\${COMP_WORDS[0]}" __complete profiles 2>/dev/null)" -- "$cur"))
}
_fraudctl_files() {
  type compopt > /dev/null 2>&1 && compopt -o filenames
  COMPREPLY=($(compgen -f -- "$cur"))
}
_fraudctl() {
  local cur prev at="" n=0 i w offered
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # (Not path or words: zsh, through bashcompinit, ties path to PATH and completes with words.)
  # The command path typed so far (\`config set\`), and how many arguments follow it.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$at|\${COMP_WORDS[i-1]}" in ${allValueOptions.join('|')}) continue ;; esac
    case "$w" in -*) continue ;; esac
    if [ "$n" -eq 0 ]; then
      case "|${paths.join('|')}|" in *"|\${at:+$at }$w|"*) at="\${at:+$at }$w"; continue ;; esac
    fi
    n=$((n + 1))
  done
  # The value of an option.
  case "$at|$prev" in
${valueCaseLines.join('\n')}
  esac
  # An argument, unless an option is being typed.
  case "$cur" in -*) ;; *)
    case "$at|$n" in
${argCases.join('\n')}
    esac ;;
  esac
  case "$at" in
    "") offered="${tree(program)
      .map((n) => n.name)
      .join(' ')}" ;;
${wordCases.join('\n')}
    *) offered="" ;;
  esac
  COMPREPLY=($(compgen -W "$offered ${globals}" -- "$cur"))
}
complete -o default -F _fraudctl fraudctl
`;
}

function zsh(program: Command): string {
  return `#compdef fraudctl
# fraudctl completion for zsh: source <(fraudctl completion zsh) (after compinit)
autoload -U +X bashcompinit && bashcompinit
${bash(program).split('\n').slice(1).join('\n')}`;
}

/** fish: `-a` and friends for what a value can be. */
function fishValues(values: Values): string {
  switch (values.kind) {
    case 'words':
      return ` -x -a '${values.words.join(' ')}'`;
    case 'files':
      return ' -r -F';
    case 'profiles':
      return " -x -a '(__fraudctl_profiles)'";
    default:
      return ' -x';
  }
}

function fish(program: Command): string {
  const nodes = flatten(tree(program));
  const globalValues = valueOptions(program.options);
  const valueFlags = [
    ...globalValues.map((o) => `'*|${o.flag}'`),
    ...nodes.flatMap((n) => n.valueOptions.map((o) => `'${n.path.join(' ')}|${o.flag}'`)),
  ];
  const lines = [
    '# fraudctl completion for fish: fraudctl completion fish | source',
    'complete -c fraudctl -f',
    '# The command path typed so far and how many arguments follow it: "config set|0".',
    'function __fraudctl_position',
    '    set -l tokens (commandline -opc)',
    "    set -l path ''",
    '    set -l n 0',
    "    set -l previous ''",
    '    for w in $tokens[2..-1]',
    '        set -l after "$path|$previous"',
    '        set previous $w',
    '        switch $after',
    `            case ${valueFlags.join(' ')}`,
    '                continue',
    '        end',
    '        switch $w',
    "            case '-*'",
    '                continue',
    '        end',
    '        set -l longer (string trim -- "$path $w")',
    `        if test $n -eq 0; and contains -- $longer ${nodes.map((n) => `'${n.path.join(' ')}'`).join(' ')}`,
    '            set path $longer',
    '        else',
    '            set n (math $n + 1)',
    '        end',
    '    end',
    '    echo "$path|$n"',
    'end',
    'function __fraudctl_at --argument-names want',
    '    test (__fraudctl_position) = $want',
    'end',
    'function __fraudctl_in --argument-names want',
    "    test (string split -f1 '|' -- (__fraudctl_position)) = $want",
    'end',
    '# Asked of the CLI at each Tab (the profiles change): names only, one a line.',
    'function __fraudctl_profiles',
    '    set -l command (commandline -opc)[1]',
    '    $command __complete profiles 2>/dev/null',
    'end',
  ];
  const describe = (text: string) => text.replace(/'/g, ' ');
  for (const o of program.options) {
    if (!o.long) continue;
    const values = globalValues.find((v) => v.flag === o.long)?.values;
    lines.push(
      `complete -c fraudctl -l ${o.long.slice(2)}${values ? fishValues(values) : ''} -d '${describe(o.description)}'`,
    );
  }
  const top = tree(program);
  for (const n of top) lines.push(`complete -c fraudctl -n "__fraudctl_at '|0'" -a ${n.name} -d '${n.description}'`);
  for (const n of nodes) {
    const here = n.path.join(' ');
    for (const c of n.children)
      lines.push(`complete -c fraudctl -n "__fraudctl_at '${here}|0'" -a ${c.name} -d '${c.description}'`);
    for (const flag of n.options) {
      const values = n.valueOptions.find((v) => v.flag === flag)?.values;
      lines.push(
        `complete -c fraudctl -n "__fraudctl_in '${here}'" -l ${flag.slice(2)}${values ? fishValues(values) : ''}`,
      );
    }
    n.args.forEach((values, i) => {
      if (values.kind === 'none') return;
      const at = `-n "__fraudctl_at '${here}|${i}'"`;
      if (values.kind === 'words') lines.push(`complete -c fraudctl ${at} -a '${values.words.join(' ')}'`);
      else if (values.kind === 'profiles') lines.push(`complete -c fraudctl ${at} -a '(__fraudctl_profiles)'`);
      else lines.push(`complete -c fraudctl ${at} -F -a '-'`);
    });
  }
  return `${lines.join('\n')}\n`;
}

/*
 * PowerShell (Windows PowerShell 5.1 and PowerShell 7): a native argument completer. PowerShell
 * has parsed the line: the words are its command elements before the cursor, quotes taken off
 * (a string constant's Value; other elements, such as --state, as typed), and an empty word when
 * the cursor is after a space. Each word goes to fraudctl with a leading ':', so that an empty
 * word is not dropped (Windows PowerShell drops empty arguments to programs) and no word is
 * taken for an option of __complete. fraudctl's output is UTF-8, read as such; a candidate that
 * PowerShell would split or expand is put in single quotes. No candidate: PowerShell completes
 * file names, as bash does with -o default.
 */
function powershell(): string {
  return `# fraudctl completion for PowerShell: fraudctl completion powershell | Out-String | Invoke-Expression
# (add that line to $PROFILE to keep it). At each Tab, fraudctl says what can come next: fraudctl __complete words.
Register-ArgumentCompleter -Native -CommandName fraudctl -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @()
    foreach ($element in ($commandAst.CommandElements | Select-Object -Skip 1)) {
        if ($element.Extent.StartOffset -ge $cursorPosition) { break }
        if ($element -is [System.Management.Automation.Language.StringConstantExpressionAst]) { $words += ':' + $element.Value }
        else { $words += ':' + $element.Extent.Text }
    }
    if ($wordToComplete -eq '') { $words += ':' }
    $program = $commandAst.GetCommandName()
    if (-not $program) { $program = 'fraudctl' }
    $encoding = [Console]::OutputEncoding
    try {
        [Console]::OutputEncoding = [System.Text.Encoding]::UTF8
        $candidates = @(& $program __complete words @words 2>$null)
    } finally {
        [Console]::OutputEncoding = $encoding
    }
    foreach ($candidate in $candidates) {
        if (-not $candidate) { continue }
        $text = $candidate
        if ($candidate -match '[\\s''"$\`;,(){}|&<>@#]') { $text = "'" + $candidate.Replace("'", "''") + "'" }
        [System.Management.Automation.CompletionResult]::new($text, $candidate, 'ParameterValue', $candidate)
    }
}
`;
}

export function completionScript(shell: Shell, program: Command): string {
  return shell === 'bash'
    ? bash(program)
    : shell === 'zsh'
      ? zsh(program)
      : shell === 'fish'
        ? fish(program)
        : powershell();
}
