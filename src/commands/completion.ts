import { Argument, Command } from 'commander';
import type { CliContext } from '../cli-context.js';

export function completionCommand(context: CliContext): Command {
  return new Command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'before',
      `Examples:
  $ source <(fraudctl completion bash)                            # in ~/.bashrc
  $ fraudctl completion zsh > "\${fpath[1]}/_fraudctl"
  $ fraudctl completion fish > ~/.config/fish/completions/fraudctl.fish
`,
    )
    .action(async (shell: 'bash' | 'zsh' | 'fish', _options: unknown, command: Command) => {
      const { completionScript } = await import('../completion/completion-script.js');
      context.stdout.write(completionScript(shell, command.parent!));
    });
}
