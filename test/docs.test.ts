import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

/*
 * Every fraudctl command the README and the guides in docs/ show is one that exists, with
 * options that exist: they are where a new user copies from, so an example that drifted from the
 * CLI is a bug. (The reference in docs/reference/ is generated from the command tree itself.)
 */

const PAGES = [
  'README.md',
  ...readdirSync(new URL('../docs', import.meta.url))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The fraudctl invocations in a page's code blocks, as written (after `$`, `|`, `&&`, `npx`). */
function examples(page: string): string[] {
  const README = readFileSync(new URL(`../${page}`, import.meta.url), 'utf8');
  // Fenced blocks, paired in order; only shell ones (no language, sh, bash, console) hold commands.
  const blocks: string[] = [];
  let open: { language: string; lines: string[] } | null = null;
  for (const line of README.split('\n')) {
    const fence = /^```(\S*)/.exec(line);
    if (fence && !open) open = { language: fence[1]!, lines: [] };
    else if (fence && open) {
      if (['', 'sh', 'bash', 'console'].includes(open.language)) blocks.push(open.lines.join('\n'));
      open = null;
    } else open?.lines.push(line);
  }
  const found: string[] = [];
  for (const block of blocks) {
    for (const line of block.split('\n')) {
      for (const m of line.matchAll(/(?:^|\$\s+|\|\s*|&&\s*|\(\s*|npx\s+)fraudctl\s+([^|#&;)<>]*)/g))
        found.push(m[1]!.trim());
    }
  }
  return [...new Set(found)];
}

/** Splits an example into words, quoted strings as one (their content does not matter here). */
function words(example: string): string[] {
  return example
    .replace(/"[^"]*"|'[^']*'|\$\([^)]*\)/g, 'VALUE')
    .split(/\s+/)
    .filter(Boolean);
}

const helpCache = new Map<string, Promise<string>>();
const helpOf = (path: string[]) => {
  const key = path.join(' ');
  if (!helpCache.has(key))
    helpCache.set(
      key,
      runCli([...path, '--help']).then((r) => r.stdout),
    );
  return helpCache.get(key)!;
};

/** The commands listed in a help text's "Commands:" section. */
function commandsIn(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1]?.split(/^\S/m)[0] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!);
}

it('the README and the guides show fraudctl examples (the checks below have something to check)', () => {
  expect(PAGES.length).toBeGreaterThan(8);
  expect(PAGES.flatMap(examples).length).toBeGreaterThan(40);
});

describe.each(PAGES.filter((page) => examples(page).length > 0))('%s', (page) => {
  const all = examples(page);

  it.each(all)('fraudctl %s: the command and its options exist', async (example) => {
    const tokens = words(example);
    const path: string[] = [];
    let help = await helpOf([]);
    while (tokens.length > 0 && commandsIn(help).includes(tokens[0]!)) {
      path.push(tokens.shift()!);
      help = await helpOf(path);
    }
    if (path.length === 0) expect(tokens[0], `not a fraudctl command: ${example}`).toMatch(/^-/);
    for (const token of tokens.filter((t) => t.startsWith('-') && t !== '-')) {
      const option = token.split('=')[0]!;
      expect(help, `fraudctl ${path.join(' ')} has no option ${option} (${page}: fraudctl ${example})`).toMatch(
        new RegExp(`(^|[\\s,])${option.replace(/[-]/g, '\\-')}([\\s,]|$)`, 'm'),
      );
    }
  });
});
