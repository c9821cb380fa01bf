import type { TopicName } from '../../help-topics/topic-names.js';

/*
 * What `help` is asked, as one typed value: command.ts makes it from argv (a lone word that
 * names a topic is that topic), run.ts answers it.
 */

export type HelpOptions =
  /** No words: the root's help. */
  | { verb: 'root' }
  /** `help exit-codes`: the topic's text. */
  | { verb: 'topic'; topic: TopicName }
  /** `help config set`: that command's help, the words its path (looked up in the tree by the run). */
  | { verb: 'command'; path: string[] };
