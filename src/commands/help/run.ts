import { UsageError } from '../../errors/cli-error.js';
import type { HelpDeps } from './deps.js';
import type { HelpOptions } from './options.js';

/*
 * `help`: the root's help; a topic's text (src/help-topics/, loaded only for a topic); or a
 * command's help, as `COMMAND --help` prints it. A word that is neither is a usage error naming
 * what was not found, and how to list what there is.
 */

export async function run(options: HelpOptions, deps: HelpDeps): Promise<void> {
  if (options.verb === 'root') return void deps.tree.outputHelp();
  if (options.verb === 'topic') {
    const { TOPIC_TEXTS } = await import('../../help-topics/topics.js');
    deps.stdout.write(TOPIC_TEXTS[options.topic]);
    return;
  }
  const words = options.path;
  let command = deps.tree;
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
}
