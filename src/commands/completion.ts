import { Argument, Command } from 'commander';
import type { CliContext } from '../process/cli-context.js';

// The shells' names, here rather than imported: the script generator is import()ed only by this command.
const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;

export function completionCommand(context: CliContext): Command {
  return new Command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'before',
      `Examples:
  $ source <(fraudctl completion bash)                            # in ~/.bashrc
  $ fraudctl completion zsh > "\${fpath[1]}/_fraudctl"
  $ fraudctl completion fish > ~/.config/fish/completions/fraudctl.fish
  PS> fraudctl completion powershell | Out-String | Invoke-Expression   # in $PROFILE
`,
    )
    .action(async (shell: (typeof SHELLS)[number], _options: unknown, command: Command) => {
      const { completionScript } = await import('../completion/completion-script.js');
      context.stdout.write(completionScript(shell, command.parent!));
    });
}
