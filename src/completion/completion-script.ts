import type { Command, Option } from 'commander';
import { KNOWN_STATES } from '../contract/states.js';

/*
 * Shell completion scripts, generated from the command tree itself so they cannot drift
 * from the commands. zsh reuses the bash script through bashcompinit.
 */

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Node {
  path: string[];
  name: string;
  description: string;
  options: string[];
  children: Node[];
}

const longFlags = (options: readonly Option[]) => options.map((o) => o.long).filter((f): f is string => Boolean(f));

function tree(command: Command, path: string[] = []): Node[] {
  return command.commands
    .filter((c) => c.name() !== 'help')
    .map((c) => ({
      path: [...path, c.name()],
      name: c.name(),
      description: c.description().replace(/[\n'"`$\\]/g, ' '),
      options: longFlags(c.options),
      children: tree(c, [...path, c.name()]),
    }));
}

function bash(program: Command): string {
  const globals = [...longFlags(program.options), '--help'].join(' ');
  const nodes = tree(program);
  const cases: string[] = [];
  const paths: string[] = [];
  const walk = (list: Node[]) => {
    for (const n of list) {
      paths.push(n.path.join(' '));
      const words = [...n.children.map((c) => c.name), ...n.options, '--help'].join(' ');
      cases.push(`    "${n.path.join(' ')}") words="${words}" ;;`);
      walk(n.children);
    }
  };
  walk(nodes);
  return `# fraudctl completion for bash: source <(fraudctl completion bash)
_fraudctl() {
  local cur prev path="" words i w
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    case "\${COMP_WORDS[i-1]}" in --profile|--base-url|--timeout|--state|--comments|--port|--host|--db|--config|--chaos) continue ;; esac
    # Only command words extend the path; an argument such as an event id does not.
    case "|${paths.join('|')}|" in *"|\${path:+$path }$w|"*) path="\${path:+$path }$w" ;; esac
  done
  case "$prev" in
    --state) COMPREPLY=($(compgen -W "${KNOWN_STATES.join(' ')}" -- "$cur")); return ;;
    --profile|--base-url|--timeout|--comments|--port|--host|--chaos) return ;;
    --db|--config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  case "$path" in
    "") words="${nodes.map((n) => n.name).join(' ')}" ;;
${cases.join('\n')}
    *) words="" ;;
  esac
  case "$path" in submit) COMPREPLY=($(compgen -f -W "- ${globals} $words" -- "$cur")); return ;; esac
  COMPREPLY=($(compgen -W "$words ${globals}" -- "$cur"))
}
complete -o default -F _fraudctl fraudctl
`;
}

function zsh(program: Command): string {
  return `#compdef fraudctl
# fraudctl completion for zsh: source <(fraudctl completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(program).split('\n').slice(1).join('\n')}`;
}

function fish(program: Command): string {
  const lines = ['# fraudctl completion for fish: fraudctl completion fish | source', 'complete -c fraudctl -f'];
  for (const o of program.options) {
    if (o.long) lines.push(`complete -c fraudctl -l ${o.long.slice(2)} -d '${o.description.replace(/'/g, ' ')}'${o.required || o.optional ? ' -r' : ''}`);
  }
  const walk = (list: Node[], parent: Node | undefined) => {
    for (const n of list) {
      const condition = parent
        ? `__fish_seen_subcommand_from ${parent.name}; and not __fish_seen_subcommand_from ${parent.children.map((c) => c.name).join(' ')}`
        : `not __fish_seen_subcommand_from ${list.map((c) => c.name).join(' ')}`;
      lines.push(`complete -c fraudctl -n '${condition}' -a ${n.name} -d '${n.description}'`);
      for (const flag of n.options) {
        const extra = flag === '--state' ? ` -r -a '${KNOWN_STATES.join(' ')}'` : '';
        lines.push(`complete -c fraudctl -n '__fish_seen_subcommand_from ${n.name}' -l ${flag.slice(2)}${extra}`);
      }
      walk(n.children, n);
    }
  };
  walk(tree(program), undefined);
  lines.push(`complete -c fraudctl -n '__fish_seen_subcommand_from submit' -F`);
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: Shell, program: Command): string {
  return shell === 'bash' ? bash(program) : shell === 'zsh' ? zsh(program) : fish(program);
}
