import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../src/profiles/config-file.js';
import { TERMINAL_CONTROLS } from '../support/cli-against-sandbox.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { DEMO_KEY } from '../support/sandbox.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';
import { manyProfiles } from '../profiles/temp-env.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * The config file as fraudctl meets it on disk (as processes): corrupt,
 * truncated, of the wrong types, hostile — a clear message and exit 2, never a stack trace;
 * readable by others, or in a directory others can change — a warning, and the command still runs;
 * on a full or read-only disk, or a FIFO — the file and the real cause named, the old file kept.
 */

const cli = useSandboxInProcess();
const dir = () => join(cli.dir, 'config', 'fraudctl');
const bare = { FRAUDCTL_API_KEY: '', FRAUDCTL_BASE_URL: '' };

function writeConfig(text: string, mode = 0o600): void {
  mkdirSync(dir(), { recursive: true });
  writeFileSync(join(dir(), 'config.json'), text);
  chmodSync(join(dir(), 'config.json'), mode);
}

describe('a config file that cannot be used', () => {
  it.each([
    ['corrupt', '{"profiles": {"prod": {"baseUrl": "https://x.example.com",,}}}', /is not valid JSON/],
    ['truncated', '{"activeProfile": "prod", "profiles": {"prod": {"baseUrl": "https://fr', /is not valid JSON/],
    [
      'of the wrong types',
      '{"profiles": {"prod": {"timeoutSeconds": "ten", "retries": 2}}}',
      /profiles\.prod\.timeoutSeconds must be/,
    ],
    ['an array', '[1, 2]', /must hold a JSON object/],
    [
      'hostile in its names',
      '{"profiles": {"\\u001b]0;pwned\\u0007\\u009b2J\\u202e": {}}}',
      /profile name ".*\\u001b.*" /,
    ],
    ['binary', '\u0000\u0001\u009b\u001b[2J', /is not valid JSON/],
  ])('%s: one line and a hint, exit 2, no stack', async (_what, text, message) => {
    writeConfig(text);
    const result = await cli.run(['show', 'ord-1'], { env: bare });
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^error: config file .*config\.json/);
    expect(lines[0]).toMatch(message);
    expect(lines[1]).toMatch(/fix it in an editor/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toMatch(TERMINAL_CONTROLS);
    expect(result.stderr).not.toContain('\u0007');
  });
});

describe('a config file others can read', () => {
  it('gets a warning naming the mode and the fix, and the command still runs', async () => {
    notOnWindows(ON_WINDOWS.modes);
    writeConfig(
      JSON.stringify({ activeProfile: 'local', profiles: { local: { baseUrl: cli.sb.url, apiKey: DEMO_KEY } } }),
      0o644,
    );
    const result = await cli.run(['show', 'no-such-event-9'], { env: bare });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(
      /^warning: config file .*config\.json can be read by other users \(mode 0644\) and may hold API keys: chmod 600 .*config\.json$/m,
    );
    expect(result.stderr).not.toContain(DEMO_KEY);
    chmodSync(join(dir(), 'config.json'), 0o600);
    expect((await cli.run(['show', 'no-such-event-9'], { env: bare })).stderr).not.toContain('warning');
  });
});

describe('a config directory others can change', () => {
  it('gets one warning naming the mode and the chmod that fixes it, which works as written', async () => {
    notOnWindows(ON_WINDOWS.modes);
    writeConfig(
      JSON.stringify({ activeProfile: 'local', profiles: { local: { baseUrl: cli.sb.url, apiKey: DEMO_KEY } } }),
    );
    chmodSync(dir(), 0o777);
    const result = await cli.run(['show', 'no-such-event-9'], { env: bare });
    expect(result.code).toBe(4);
    const warnings = result.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toEqual([
      `warning: config directory ${dir()} can be changed by any user (mode 0777), who could replace the config and send the API key elsewhere: chmod 700 ${dir()}`,
    ]);
    execFileSync('sh', ['-c', warnings[0]!.slice(warnings[0]!.lastIndexOf(': ') + 2)]);
    expect((await cli.run(['show', 'no-such-event-9'], { env: bare })).stderr).not.toContain('warning');
  });
});

describe('a config.json that is a FIFO', () => {
  it('is refused at once, not waited on, exit 2', async () => {
    notOnWindows(ON_WINDOWS.fifo);
    mkdirSync(dir(), { recursive: true });
    const path = join(dir(), 'config.json');
    execFileSync('rm', ['-f', path]);
    execFileSync('mkfifo', [path]);
    try {
      const result = await cli.runProcess(['show', 'no-such-event-9'], { env: bare });
      expect(result.signal).toBeNull(); // not killed after waiting on the FIFO
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: config file ${path} is a named pipe (FIFO), not a file`);
    } finally {
      execFileSync('rm', ['-f', path]);
    }
  });
});

/*
 * On real small disks (tmpfs): a config of 80 profiles (13 KB) that the new
 * file cannot fit beside, as the fault probe found it — 4,096 bytes were written, then renamed
 * over the good file.
 */
describe.skipIf(!smallDisk.available)(`the config on a full or read-only disk${smallDisk.skipReason}`, () => {
  let disk: SmallDisk | undefined;
  afterEach(() => {
    disk?.remove();
    disk = undefined;
  });

  /** A disk holding an 80-profile config, then filled to leave two pages: one for the lock, one of the 13 KB the new file needs. */
  function nearlyFull(): { env: Record<string, string>; path: string; before: Buffer } {
    disk = smallDisk.mount(256 * 1024);
    const env = { XDG_CONFIG_HOME: disk.path };
    writeConfigFile(env, manyProfiles(80, 'old'));
    const path = join(disk.path, 'fraudctl', 'config.json');
    const before = readFileSync(path);
    expect(before.length).toBeGreaterThan(13_000);
    disk.fill(8192);
    return { env, path, before };
  }

  it('config set: exit 1, one line naming the file and "no space", the old file byte for byte, no temp file', async () => {
    const { env, path, before } = nearlyFull();
    const result = await cli.run(['config', 'set', 'timeout', '12', '--profile', 'profile-7'], {
      env: { ...bare, ...env },
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: cannot write the config file ${path}: no space left on its disk \\(ENOSPC\\); nothing was changed$`,
        'm',
      ),
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(join(disk!.path, 'fraudctl'))).toEqual(['config.json']);
  });

  it('login: the same, and the key it checked is not kept anywhere', async () => {
    const { env, path, before } = nearlyFull();
    const result = await cli.runProcess(['login', '--profile', 'another', '--base-url', cli.sb.url], {
      input: `${DEMO_KEY}\n`,
      env: { ...bare, ...env },
    });
    expect(result.code, result.stderr).not.toBe(0);
    expect(result.stderr).toContain(`cannot write the config file ${path}: no space left on its disk (ENOSPC)`);
    expect(result.stderr).not.toContain(DEMO_KEY);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('a read-only disk: the directory and EROFS named, not "ENOENT … mkdir"', async () => {
    disk = smallDisk.mount(64 * 1024);
    disk.readOnly();
    const result = await cli.run(['config', 'set', 'timeout', '12'], { env: { ...bare, XDG_CONFIG_HOME: disk.path } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: cannot create the config directory ${join(disk.path, 'fraudctl')}: its file system is mounted read-only (EROFS)\nset XDG_CONFIG_HOME to a directory on a writable disk\n`,
    );
  });
});
