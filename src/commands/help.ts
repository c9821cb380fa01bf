import { Command } from 'commander';
import type { CliContext } from '../process/cli-context.js';
import { UsageError } from '../errors/cli-error.js';
import { isTopic, TOPICS } from '../help-topics/topic-names.js';

/*
 * `fraudctl help [COMMAND... | TOPIC]`: a command's help (as `COMMAND --help`), or a topic's
 * text (src/help-topics/), as gh's `gh help environment`. Replaces commander's own help command,
 * which knows only commands.
 */
export function helpCommand(context: CliContext, program: Command): Command {
  return new Command('help')
    .description('help for a command or a topic')
    .argument('[words...]', `a command (config set) or a topic: ${Object.keys(TOPICS).join(', ')}`)
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl help exit-codes
  $ fraudctl help environment
  $ fraudctl help config set
`,
    )
    .action(async (words: string[]) => {
      const [first] = words;
      if (first === undefined) return void program.outputHelp();
      if (words.length === 1 && isTopic(first)) {
        const { TOPIC_TEXTS } = await import('../help-topics/topics.js');
        context.stdout.write(TOPIC_TEXTS[first]);
        return;
      }
      let command = program;
      for (const word of words) {
        const sub = command.commands.find((c) => c.name() === word && !word.startsWith('__'));
        if (!sub)
          throw new UsageError(
            `no command or help topic "${[...words.slice(0, words.indexOf(word)), word].join(' ')}"`,
            `run fraudctl help to list the commands and the topics`,
          );
        command = sub;
      }
      command.outputHelp();
    });
}
