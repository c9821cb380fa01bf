import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/process/cli-context.js';
import { TOPIC_TEXTS } from '../../src/help-topics/topics.js';
import { buildProgram } from '../../src/program.js';
import { VERSION } from '../../src/process/version.js';
import { manPage, markdownPages } from '../../scripts/reference/render-reference.js';
import { describeNeeding } from '../support/prerequisites.js';

/*
 * The committed reference (docs/reference/*.md) and man page (man/fraudctl.1) are what the
 * command tree makes of them now: a changed option, default, example or topic fails here until
 * `npm run docs` writes them anew (vitest's file snapshots, updated with -u).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** `vitest -u` (npm run docs): the files are written, not compared. */
const updating = () =>
  (expect.getState().snapshotState as unknown as { _updateSnapshot: string })._updateSnapshot === 'all';

/** What `fraudctl …path --help` prints, from the tree in this process, at 80 columns as off a terminal. */
async function helpOf(path: string[]): Promise<string> {
  let text = '';
  const sink = { write: (s: string) => ((text += s), true), isTTY: false } as unknown as CliContext['stdout'];
  const context: CliContext = {
    stdin: process.stdin,
    stdout: sink,
    stderr: sink,
    env: {},
    debug: false,
    waitForShutdown: () => new Promise(() => {}),
    onStdoutClosed: () => () => {},
  };
  const argv = [...path, '--help'];
  await buildProgram(context, argv)
    .parseAsync(argv, { from: 'user' })
    .catch(() => {});
  return text;
}

const program = buildProgram({ env: {} } as CliContext);

describe('the generated reference', async () => {
  const pages = await markdownPages(program, helpOf, TOPIC_TEXTS);

  it.each(pages.map((p) => [p.file, p]))('%s is as the command tree makes it (npm run docs)', async (file, page) => {
    if (!updating()) expect(existsSync(`${ROOT}/${file}`), `${file} is missing: run npm run docs`).toBe(true);
    await expect(page.text).toMatchFileSnapshot(`${ROOT}/${file}`);
  });

  it('has no page for a command that is gone', () => {
    const made = new Set(pages.map((p) => p.file));
    const committed = readdirSync(`${ROOT}/docs/reference`).map((f) => `docs/reference/${f}`);
    expect(committed.filter((f) => !made.has(f))).toEqual([]);
  });

  it('man/fraudctl.1 is as the command tree makes it (npm run docs)', async () => {
    if (!updating())
      expect(existsSync(`${ROOT}/man/fraudctl.1`), 'man/fraudctl.1 is missing: run npm run docs').toBe(true);
    await expect(await manPage(program, helpOf, TOPIC_TEXTS, VERSION)).toMatchFileSnapshot(`${ROOT}/man/fraudctl.1`);
  });
});

describeNeeding(['man'], 'man fraudctl', () => {
  it('renders the page without a warning: every command and topic in it', () => {
    const result = spawnSync('man', ['--warnings', '-l', `${ROOT}/man/fraudctl.1`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat', LANG: 'C.UTF-8' },
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    for (const heading of ['NAME', 'SYNOPSIS', 'COMMANDS', 'ENVIRONMENT', 'EXIT STATUS', 'FILES'])
      expect(result.stdout).toMatch(new RegExp(`^${heading}$`, 'm'));
    expect(result.stdout).toContain('fraudctl set-state');
    expect(result.stdout).toContain('FRAUDCTL_KEYRING_TIMEOUT');
  });
});
