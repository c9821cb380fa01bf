import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };

/*
 * package.json's `engines` is what npm checks before installing: it must admit no Node that lacks
 * what dist/ calls at start (process.getBuiltinModule: added in 20.16 and 22.3, absent from 21.x),
 * and every Node CI tests on.
 */

describe('engines', () => {
  it.each(['20.15.1', '21.7.3', '22.0.0', '22.2.0'])(
    'refuses Node %s, which has no process.getBuiltinModule',
    (version) => {
      expect(semver.satisfies(version, pkg.engines.node)).toBe(false);
    },
  );

  const tested = readFileSync(new URL('../.ci/node-versions', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'));
  it.each([...tested, process.versions.node])('admits Node %s, which CI tests on', (version) => {
    expect(semver.satisfies(version, pkg.engines.node)).toBe(true);
  });

  it('the running Node has what dist/ calls', () => {
    expect(typeof process.getBuiltinModule).toBe('function');
  });
});

describe('the published package', () => {
  it('has no install-time script, so npm i -g of its tarball warns about none (dist/ is in the tarball)', () => {
    const scripts = pkg.scripts as Record<string, string>;
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts[hook], hook).toBeUndefined();
    expect(pkg.files).toContain('dist');
  });

  it('installs its man page (an array: npm links only that form) and the page is in the package', () => {
    expect(pkg.man).toEqual(['./man/fraudctl.1']);
    expect(pkg.files).toContain('man');
    expect(readFileSync(new URL(`../${pkg.man[0]}`, import.meta.url), 'utf8')).toMatch(/^\.TH FRAUDCTL 1 /m);
  });

  it('pins light-my-request where the lock file has it, so a global install (which ignores overrides) does not pull cookie@2, which refuses Node 20', () => {
    expect(pkg.dependencies['light-my-request']).toBe(pkg.overrides['light-my-request']);
  });
});

describe('bin/fraudctl.js in a checkout not yet built', () => {
  it('says how to build it, in one line and a hint, exit 1, instead of a stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fraudctl-unbuilt-'));
    mkdirSync(join(dir, 'bin'));
    copyFileSync(new URL('../bin/fraudctl.js', import.meta.url), join(dir, 'bin', 'fraudctl.js'));
    const result = spawnSync(process.execPath, [join(dir, 'bin', 'fraudctl.js'), '--version'], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(1);
    // The checkout as a path of this platform (C:\…\ on Windows, not /C:/…/), and Node's message recognised there too.
    expect(result.stderr).toBe(
      `error: fraudctl is not built (no dist/ in ${dir}${sep})\nrun npm run build in ${dir}${sep}, then run fraudctl again\n`,
    );
  });
});
