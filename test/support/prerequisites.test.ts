import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { missing } from './prerequisites.js';

/*
 * A test that needs a program from outside npm is skipped where it cannot run, naming the program
 * and its package, and the run's end lists it; FRAUDCTL_REQUIRE_ALL_TESTS=1 makes the same run
 * fail. Checked on a vitest of its own over a fixture, with a PATH holding only node (no tmux).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

function runFixture(
  env: Record<string, string>,
  fixture = 'needs-tmux',
): Promise<{ code: number | null; output: string }> {
  // A PATH with node and nothing else: node's own directory may hold tmux too (/usr/bin).
  const bin = mkdtempSync(join(tmpdir(), 'fraudctl-only-node-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [VITEST, 'run', '--config', 'test/support/fixtures/vitest.fixture.config.ts', fixture],
      {
        cwd: ROOT,
        env: { PATH: bin, NO_COLOR: '1', ...env },
      },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(bin, { recursive: true, force: true });
      resolve({ code, output });
    });
  });
}

describe('prerequisites', () => {
  it('names a program that is not there, and the package that brings it', () => {
    expect(missing('tmux', 'zsh')).toSatisfy(
      (why: string | null) => why === null || /^needs (tmux|zsh) \(Debian package (tmux|zsh)\): /.test(why),
    );
  });

  it(
    'without tmux: the test is skipped, the run passes, and its end says what was skipped and why',
    { timeout: 60_000 },
    async () => {
      const run = await runFixture({});
      expect(run.code, run.output).toBe(0);
      expect(run.output).toMatch(/1 passed \| 1 skipped/);
      expect(run.output).toContain('Skipped because a program could not run here');
      expect(run.output).toContain('1 test: needs tmux (Debian package tmux): not found on PATH');
    },
  );

  it('with FRAUDCTL_REQUIRE_ALL_TESTS=1 the same run fails, naming tmux', { timeout: 60_000 }, async () => {
    const run = await runFixture({ FRAUDCTL_REQUIRE_ALL_TESTS: '1' });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(/1 failed \| 1 passed/);
    expect(run.output).toContain('needs tmux (Debian package tmux): not found on PATH (FRAUDCTL_REQUIRE_ALL_TESTS=1');
  });

  it(
    'on Windows, a test that needs what Windows has not is skipped by name with the reason, not failed even with FRAUDCTL_REQUIRE_ALL_TESTS=1',
    { timeout: 60_000 },
    async () => {
      const run = await runFixture({ FRAUDCTL_REQUIRE_ALL_TESTS: '1' }, 'windows-skips');
      expect(run.code, run.output).toBe(0);
      expect(run.output).toMatch(/1 passed \| 2 skipped/);
      expect(run.output).toContain('Skipped on Windows, by name');
      expect(run.output).toContain(
        'windows-skips.fixture.ts > sends Ctrl-C to a child: not on Windows: sends a signal to a child',
      );
      expect(run.output).toContain(
        'windows-skips.fixture.ts > uses a terminal: not on Windows: needs tmux, a POSIX program (Debian package tmux)',
      );
    },
  );

  it(
    'a skip that gives no reason is listed as such (the Windows job fails on that line)',
    { timeout: 60_000 },
    async () => {
      const run = await runFixture({}, 'unexplained-skip');
      expect(run.output).toContain(
        'Skipped without a reason given (1):\n  test/support/fixtures/unexplained-skip.fixture.ts > is skipped for no stated reason',
      );
    },
  );
});
