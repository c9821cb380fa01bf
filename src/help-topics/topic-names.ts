/*
 * The help topics `fraudctl help TOPIC` prints, by name, with a line each for the root help and
 * the reference (docs/reference/). Only the names live here, so the root help can list them
 * without loading the texts (topics.ts, import()ed by `fraudctl help TOPIC`).
 */

export const TOPICS = {
  'exit-codes': 'what each exit code means, and how a pipe closed by its reader ends',
  environment: 'every environment variable fraudctl reads',
  config: 'the config file, profiles, and where each setting comes from',
  results: 'the results file of a batch or a bulk change (--out), and --resume',
  log: 'the action log (--log) of review and set-state: every field, log verify',
  evaluate: 'the figures of fraudctl evaluate, and every field of its --json',
} as const;

export type TopicName = keyof typeof TOPICS;

export const isTopic = (word: string): word is TopicName => Object.hasOwn(TOPICS, word);

/** The topics in the root help: `Help topics (fraudctl help TOPIC):` and a line each. */
export function topicsHelp(): string {
  const width = Math.max(...Object.keys(TOPICS).map((n) => n.length));
  return `\nHelp topics (fraudctl help TOPIC):\n${Object.entries(TOPICS)
    .map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`)
    .join('\n')}\n`;
}
