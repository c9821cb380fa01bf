import type { Command } from 'commander';
import { flatten, longFlags, tree, valueOptions, type Values } from './completion-script.js';

/*
 * What can come at the cursor, for a completion script that hands fraudctl the words typed so
 * far (`fraudctl __complete words`, PowerShell's) rather than working it out in the shell's own
 * language as the bash and fish scripts do: the same rules as the bash script, from the same
 * command tree. The command path typed so far (`config set`), skipping options and the values of
 * the options that take one; then the value of an option, or an argument's values, or the
 * subcommands and options of the path, with the global options. Nothing when the answer is a
 * file name or free text: the shell then completes file names, as bash's `-o default` does.
 */

/** What can replace the last word (the one being typed, maybe empty), given the words before it. */
export function completeWords(program: Command, words: readonly string[], profiles: () => string[]): string[] {
  const roots = tree(program);
  const nodes = flatten(roots);
  const byPath = new Map(nodes.map((node) => [node.path.join(' '), node]));
  const globalValues = valueOptions(program.options);
  const typed = words.slice(0, -1);
  const current = words.at(-1) ?? '';
  /** The values of option `flag` at path `at`, when it takes one. */
  const valuesOf = (at: string, flag: string): Values | undefined =>
    (globalValues.find((o) => o.flag === flag) ?? byPath.get(at)?.valueOptions.find((o) => o.flag === flag))?.values;

  let at = '';
  let n = 0;
  typed.forEach((word, i) => {
    if (i > 0 && valuesOf(at, typed[i - 1]!) !== undefined) return;
    if (word.startsWith('-')) return;
    const longer = at === '' ? word : `${at} ${word}`;
    if (n === 0 && byPath.has(longer)) at = longer;
    else n += 1;
  });

  const starting = (candidates: readonly string[]) => candidates.filter((c) => c.startsWith(current));
  const offer = (values: Values): string[] =>
    values.kind === 'words' ? starting(values.words) : values.kind === 'profiles' ? starting(profiles()) : [];

  const optionValues = typed.length > 0 ? valuesOf(at, typed.at(-1)!) : undefined;
  if (optionValues) return offer(optionValues);
  const node = byPath.get(at);
  const argument = node?.args[n];
  if (!current.startsWith('-') && argument && argument.kind !== 'none') return offer(argument);
  const here =
    at === ''
      ? roots.map((top) => top.name)
      : node
        ? [...node.children.map((child) => child.name), ...node.options]
        : [];
  return starting([...new Set([...here, ...longFlags(program.options), '--help'])]);
}
