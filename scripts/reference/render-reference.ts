import type { Command } from 'commander';
import { TOPICS, type TopicName } from '../../src/help-topics/topic-names.js';

/*
 * The reference, generated from the command tree: a Markdown page per command and per help
 * topic (docs/reference/), and the man page (man/fraudctl.1), both from the same help texts a
 * user gets from `--help` and `fraudctl help TOPIC`. test/reference/reference.test.ts compares
 * the committed files with what this makes (`npm run docs` writes them anew).
 *
 * The roff is written by hand: each section is the help text verbatim in no-fill mode (.nf), so
 * what is needed of roff is its escapes and a handful of macros; the converters on npm
 * (marked-man, remark-man) would make a man page from Markdown, a detour for text that is
 * already laid out.
 */

/** A command's help exactly as `fraudctl … --help` prints it off a terminal (80 columns). */
export type HelpOf = (path: string[]) => Promise<string>;

export interface ReferencePage {
  /** Relative to the repository's root. */
  file: string;
  text: string;
}

/** Every command path of the tree (`config set`, `sandbox serve`), the hidden ones and `help` left out. */
export function commandPaths(command: Command, path: string[] = []): string[][] {
  return command.commands
    .filter((c) => c.name() !== 'help' && !c.name().startsWith('__'))
    .flatMap((c) => [[...path, c.name()], ...commandPaths(c, [...path, c.name()])]);
}

const pageName = (path: string[]) => `fraudctl${path.map((p) => `-${p}`).join('')}.md`;
const topicPage = (topic: string) => `help-${topic}.md`;

function find(program: Command, path: string[]): Command {
  let command = program;
  for (const word of path) command = command.commands.find((c) => c.name() === word)!;
  return command;
}

/** The Markdown pages: an index, one a command, one a topic. */
export async function markdownPages(
  program: Command,
  helpOf: HelpOf,
  topicTexts: Record<TopicName, string>,
): Promise<ReferencePage[]> {
  const paths = commandPaths(program);
  const pages: ReferencePage[] = [];
  const generated = '<!-- Generated from the command tree by `npm run docs`; edit the commands, not this file. -->\n';
  for (const path of paths) {
    const command = find(program, path);
    const subcommands = commandPaths(command).filter((p) => p.length === 1);
    const help = (await helpOf(path)).trimEnd();
    pages.push({
      file: `docs/reference/${pageName(path)}`,
      text: [
        generated,
        `# fraudctl ${path.join(' ')}`,
        '',
        `${command.description()}`,
        '',
        '```text',
        help,
        '```',
        '',
        ...(subcommands.length > 0
          ? [
              'Commands:',
              '',
              ...subcommands.map(([s]) => `- [fraudctl ${[...path, s].join(' ')}](${pageName([...path, s!])})`),
              '',
            ]
          : []),
        `Exit codes: [fraudctl help exit-codes](${topicPage('exit-codes')}). Settings and variables: [config](${topicPage('config')}), [environment](${topicPage('environment')}).`,
        '',
      ].join('\n'),
    });
  }
  for (const [topic, summary] of Object.entries(TOPICS)) {
    pages.push({
      file: `docs/reference/${topicPage(topic)}`,
      text: [
        generated,
        `# fraudctl help ${topic}`,
        '',
        `${summary[0]!.toUpperCase()}${summary.slice(1)}.`,
        '',
        '```text',
        topicTexts[topic as TopicName].trimEnd(),
        '```',
        '',
      ].join('\n'),
    });
  }
  pages.unshift({
    file: 'docs/reference/README.md',
    text: [
      generated,
      '# fraudctl reference',
      '',
      'One page per command, as its `--help` prints it, and the help topics (`fraudctl help TOPIC`). The same text is the man page (`man fraudctl`).',
      '',
      '## Commands',
      '',
      ...paths.map(
        (p) => `- [fraudctl ${p.join(' ')}](${pageName(p)}): ${find(program, p).description().split('\n')[0]}`,
      ),
      '',
      '## Help topics',
      '',
      ...Object.entries(TOPICS).map(([t, s]) => `- [fraudctl help ${t}](${topicPage(t)}): ${s}`),
      '',
    ].join('\n'),
  });
  return pages;
}

/** Text made literal for roff: backslashes escaped, a line starting with a control character guarded. */
function roffText(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

/** The man page, fraudctl(1): every command's help and every topic, in one page. */
export async function manPage(
  program: Command,
  helpOf: HelpOf,
  topicTexts: Record<TopicName, string>,
  version: string,
): Promise<string> {
  const verbatim = (text: string) => ['.nf', roffText(text.trimEnd()), '.fi'];
  const lines = [
    '.\\" Generated from the command tree by `npm run docs`; edit the commands, not this file.',
    `.TH FRAUDCTL 1 "" "fraudctl ${version}" "User Commands"`,
    '.SH NAME',
    `fraudctl \\- ${roffText(program.description())}`,
    '.SH SYNOPSIS',
    '.B fraudctl',
    '[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]',
    '.br',
    '.B fraudctl help',
    '[\\fIcommand\\fR | \\fItopic\\fR]',
    '.SH DESCRIPTION',
    ...verbatim(await helpOf([])),
    '.SH COMMANDS',
  ];
  for (const path of commandPaths(program)) {
    lines.push(`.SS fraudctl ${path.join(' ')}`, ...verbatim(await helpOf(path)));
  }
  const section: Partial<Record<TopicName, string>> = {
    environment: 'ENVIRONMENT',
    'exit-codes': 'EXIT STATUS',
    config: 'FILES',
  };
  lines.push('.SH TOPICS', 'Also printed by \\fBfraudctl help\\fR \\fItopic\\fR.');
  for (const topic of Object.keys(TOPICS) as TopicName[]) {
    if (section[topic]) continue;
    lines.push(`.SS ${topic}`, ...verbatim(topicTexts[topic]));
  }
  for (const topic of Object.keys(TOPICS) as TopicName[]) {
    if (section[topic]) lines.push(`.SH ${section[topic]}`, ...verbatim(topicTexts[topic]));
  }
  lines.push('.SH SEE ALSO', 'The reference in docs/reference/ of the source, one page per command.', '');
  return lines.join('\n');
}
