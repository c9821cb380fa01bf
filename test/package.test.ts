import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };

/*
 * package.json's `engines` is what npm checks before installing: it must admit no Node that lacks
 * what dist/ calls at start (process.getBuiltinModule: added in 20.16 and 22.3, absent from 21.x),
 * and every Node CI tests on.
 */

describe('engines', () => {
  it.each(['20.15.1', '21.7.3', '22.0.0', '22.2.0'])('refuses Node %s, which has no process.getBuiltinModule', (version) => {
    expect(semver.satisfies(version, pkg.engines.node)).toBe(false);
  });

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
