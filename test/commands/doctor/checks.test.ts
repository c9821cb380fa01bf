import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configFileChecks } from '../../../src/commands/doctor/checks.js';
import { tempEnv } from '../../profiles/temp-env.js';

/*
 * doctor's config checks on each platform, in-process: the platform is a parameter, so the
 * Windows branch runs here too. On Windows Node reports 0666 for every writable file (the mode is
 * made up from the read-only attribute), which judged as a POSIX mode is a ✗ for every config
 * file; test/commands/doctor.test.ts runs the real process on whatever platform the suite runs on.
 */

function openConfig(): ReturnType<typeof tempEnv> {
  const t = tempEnv();
  mkdirSync(t.configDir, { recursive: true });
  writeFileSync(t.configPath, '{"profiles": {}}');
  // What Node shows on Windows for every writable directory and file.
  chmodSync(t.configDir, 0o777);
  chmodSync(t.configPath, 0o666);
  return t;
}

describe('doctor: the permissions of the config directory and file', () => {
  it('on Windows: neither is judged by its mode; each says it is not checked and why, without a made-up mode', () => {
    const t = openConfig();
    const checks = configFileChecks(t.env, 'win32');
    expect(checks).toEqual([
      {
        check: 'config-directory',
        title: 'config directory',
        status: 'skip',
        detail: `${t.configDir} (permissions not checked on Windows, where file modes do not apply: in the user's profile, the ACL it inherits keeps other users out)`,
      },
      {
        check: 'config-file',
        title: 'config file',
        status: 'skip',
        detail: `${t.configPath} (permissions not checked on Windows, where file modes do not apply: in the user's profile, the ACL it inherits keeps other users out)`,
      },
    ]);
  });

  it('elsewhere the same modes are a ✗ each, with the chmod that fixes it', () => {
    const t = openConfig();
    const checks = configFileChecks(t.env, 'linux');
    // The path in the hint is quoted for the shell in use (render/shell-command.ts).
    expect(checks.map((c) => [c.check, c.status, c.hint])).toEqual([
      ['config-directory', 'fail', expect.stringMatching(/^chmod 700 /)],
      ['config-file', 'fail', expect.stringMatching(/^chmod 600 /)],
    ]);
  });

  it('nothing configured yet is only noted, on Windows too', () => {
    const t = tempEnv();
    expect(configFileChecks(t.env, 'win32').map((c) => c.status)).toEqual(['info', 'info']);
  });
});
