import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  commandLines,
  freshHome,
  runCommandLines,
  withoutComment,
  type CommandLine,
} from './support/doc-command-lines.js';
import { notOnWindows, ON_WINDOWS } from './support/prerequisites.js';
import { tempDir } from './support/sandbox.js';

/*
 * Every fraudctl command line of the README and the guides runs as written, in the page's order,
 * for a newcomer: a fresh HOME after the README's set-up, nothing configured, so on the embedded
 * sandbox. docs.test.ts checks that the commands and options exist; this one that they work
 * (the file they read is there, the profile they name is made first, the event was submitted).
 * What cannot run here says why in the page itself (test/support/doc-command-lines.ts).
 */

const GUIDES = readdirSync(new URL('../docs', import.meta.url))
  .filter((f) => f.endsWith('.md'))
  .sort();
const PAGES = ['README.md', ...GUIDES.map((f) => `docs/${f}`)];
const read = (page: string) => readFileSync(new URL(`../${page}`, import.meta.url), 'utf8');

/**
 * The fraudctl part of the README's set-up (`npx fraudctl submit examples/review.json`): every
 * page starts where the set-up leaves a newcomer, with ord-1002 submitted.
 */
function setUpLines(): CommandLine[] {
  const setUp = /## Set-up\n[\s\S]*?```sh\n(.*)\n/.exec(read('README.md'))?.[1] ?? '';
  const parts = withoutComment(setUp)
    .split('&&')
    .map((part) => part.trim());
  const commands = parts.filter((part) => /^npx fraudctl /.test(part));
  return commands.map((command) => ({ line: 0, command, skip: null, exit: 0 }));
}

const tmp = tempDir('fraudctl-docs-run-');
afterAll(() => tmp.remove());

describe('the runner', () => {
  it('reports a line that fails with its page line, command and output, and honours the markers', async () => {
    notOnWindows(ON_WINDOWS.sh);
    const page = [
      '```console',
      '$ fraudctl show ord-1002        # not submitted yet',
      'output, not a command: fraudctl show nope',
      '$ fraudctl submit examples/review.json && fraudctl show ord-1002',
      '```',
      '<!-- exit 4 "nope-1": not found, on purpose -->',
      '<!-- not run "--watch": watches until the event is decided -->',
      '```sh',
      'fraudctl show nope-1',
      'fraudctl show ord-1002 --watch',
      'npm test',
      '```',
      '<!-- not run "login": a marker for a line that is not there -->',
      '```sh',
      'fraudctl alerts ord-1002',
      '```',
    ].join('\n');
    const { lines, stale } = commandLines(page);
    expect(lines.map(({ line, skip, exit }) => [line, skip, exit])).toEqual([
      [2, null, 0],
      [4, null, 0],
      [9, null, 4],
      [10, 'watches until the event is decided', 0],
      [15, null, 0],
    ]);
    expect(stale).toEqual([
      'line 13: <!-- not run "login": a marker for a line that is not there --> (above the block at line 14) matches no fraudctl line',
    ]);
    const failures = await runCommandLines(lines, freshHome(`${tmp.dir}/runner`));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ line: 2, command: 'fraudctl show ord-1002' });
    expect(failures[0]!.message).toMatch(/^exit 4:\n[\s\S]*ord-1002/);
  });
});

// Each page in a home of its own, so pages run side by side: most of a line's time is waiting
// (start-up, the database), which two cores can overlap.
const pages = PAGES.map((page) => ({ page, ...commandLines(read(page)) }));
describe.concurrent.each(pages)('$page', ({ page, lines, stale }) => {
  const run = lines.filter((l) => l.skip === null);
  const skipped = lines.filter((l) => l.skip !== null);
  const reasons = [...new Set(skipped.map((l) => l.skip))];

  const notRun = `${skipped.length} not run (${reasons.join('; ') || 'none'})`;
  const title = `${page}: ${run.length} lines run in order, ${notRun}`;
  it(
    title,
    async (context) => {
      expect(stale, `${page}: markers for no line`).toEqual([]);
      notOnWindows(ON_WINDOWS.sh, context);
      if (run.length === 0) return;
      const setUp = setUpLines();
      expect(setUp.length, "the README's set-up has no npx fraudctl step").toBeGreaterThan(0);
      const home = freshHome(`${tmp.dir}/${page.replace(/\W/g, '-')}`);
      expect(await runCommandLines(setUp, home), "the README's set-up").toEqual([]);
      const failures = await runCommandLines(lines, home);
      const report = failures.map((f) => `${page}:${f.line}: ${f.command}\n  ${f.message.replaceAll('\n', '\n  ')}`);
      expect(report.join('\n\n'), `${page}: lines that did not run as written`).toBe('');
    },
    120_000,
  );
});
