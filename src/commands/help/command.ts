import { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { isTopic, TOPICS } from '../../help-topics/topic-names.js';
import type { HelpOptions } from './options.js';

export type { HelpOptions } from './options.js';

/*
 * `fraudctl help [COMMAND... | TOPIC]`: a command's help (as `COMMAND --help`), or a topic's
 * text (src/help-topics/), as gh's `gh help environment`. Replaces commander's own help command,
 * which knows only commands. argv → one HelpOptions value; then the work (run.ts), import()ed
 * when it runs, with the tree it is under (deps.ts). `run` is injectable, so a test checks
 * argv → options without doing the work.
 */

export type HelpRun = (command: Command, options: HelpOptions) => Promise<void>;

export function helpCommand(context: CliContext, run?: HelpRun): Command {
  const runWork: HelpRun =
    run ??
    (async (command, options) => {
      const [{ run: help }, { helpDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return help(options, helpDeps(context, command.parent!));
    });
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
    .action(async (words: string[], _options: unknown, command: Command) => {
      const [first] = words;
      if (first === undefined) return runWork(command, { verb: 'root' });
      if (words.length === 1 && isTopic(first)) return runWork(command, { verb: 'topic', topic: first });
      await runWork(command, { verb: 'command', path: words });
    });
}
