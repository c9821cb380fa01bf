import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CliError, UsageError } from '../../src/errors/cli-error.js';
import { configFilePath, readConfigFile, writeConfigFile, type ConfigFile } from '../../src/profiles/config-file.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';
import { manyProfiles, modeOf, tempEnv, thrown } from './temp-env.js';
import { notOnWindows, ON_WINDOWS, onWindows } from '../support/prerequisites.js';
import { shellCommand } from '../../src/render/shell-command.js';

let disk: SmallDisk | undefined;
afterAll(() => disk?.remove());

function writeRaw(path: string, content: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
}

const prod: ConfigFile = {
  activeProfile: 'prod',
  profiles: {
    prod: { baseUrl: 'https://fraud.example.com', apiKey: 'live-key-0123456789', timeoutSeconds: 12.5, retries: 0 },
  },
};

describe('where the config file lives', () => {
  it('is config.json in the fraudctl directory under XDG_CONFIG_HOME', () => {
    const t = tempEnv();
    expect(configFilePath(t.env)).toBe(join(t.root, 'fraudctl', 'config.json'));
  });

  it('falls back to ~/.config when XDG_CONFIG_HOME is unset or relative', () => {
    notOnWindows(ON_WINDOWS.homeDefaults);
    const t = tempEnv();
    expect(configFilePath({ HOME: t.root })).toBe(join(t.root, '.config', 'fraudctl', 'config.json'));
    expect(configFilePath({ HOME: t.root, XDG_CONFIG_HOME: 'relative/dir' })).toBe(
      join(t.root, '.config', 'fraudctl', 'config.json'),
    );
  });
});

describe('readConfigFile', () => {
  it('gives no profiles when there is no file, and creates nothing', () => {
    const t = tempEnv();
    expect(readConfigFile(t.env)).toEqual({ profiles: {} });
    expect(existsSync(t.configDir)).toBe(false);
  });

  it('gives no profiles for an empty file', () => {
    const t = tempEnv();
    writeRaw(t.configPath, '\n');
    expect(readConfigFile(t.env)).toEqual({ profiles: {} });
  });

  it('reads what writeConfigFile wrote', () => {
    const t = tempEnv();
    writeConfigFile(t.env, prod);
    expect(readConfigFile(t.env)).toEqual(prod);
    const stored: ConfigFile = {
      profiles: {
        prod: {
          baseUrl: 'https://fraud.example.com',
          credentialStore: { service: 'fraudctl', account: 'prod@https://fraud.example.com' },
        },
      },
    };
    writeConfigFile(t.env, stored);
    expect(readConfigFile(t.env)).toEqual(stored);
  });

  it('accepts a file with only some of the fields, and a byte-order mark', () => {
    const t = tempEnv();
    writeRaw(t.configPath, '\uFEFF{"profiles": {"staging": {"timeoutSeconds": 5}}}');
    expect(readConfigFile(t.env)).toEqual({ profiles: { staging: { timeoutSeconds: 5 } } });
    writeRaw(t.configPath, '{"activeProfile": "sandbox"}');
    expect(readConfigFile(t.env)).toEqual({ activeProfile: 'sandbox', profiles: {} });
  });

  it('refuses a file that is not JSON, naming the file', () => {
    const t = tempEnv();
    writeRaw(t.configPath, '{"profiles": {');
    const error = thrown(() => readConfigFile(t.env));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`config file ${t.configPath} is not valid JSON`);
    expect(error.hint).toMatch(/editor/);
  });

  it('refuses a config file that is a directory, naming it', () => {
    const t = tempEnv();
    mkdirSync(t.configPath, { recursive: true });
    const error = thrown(() => readConfigFile(t.env));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(`config file ${t.configPath} is a directory, not a file`);
    expect(error.hint).toBe(
      `move it away (${shellCommand(['mv', t.configPath, `${t.configPath}.old`])}) and try again`,
    );
  });

  it.each([
    ['an array', [], 'must hold a JSON object'],
    [
      'an unknown top-level key',
      { activeprofile: 'prod' },
      'unknown key "activeprofile" (known: activeProfile, profiles)',
    ],
    ['an activeProfile that is not a name', { activeProfile: 'my prod' }, 'activeProfile must be a profile name'],
    ['profiles as an array', { profiles: [] }, 'profiles must be an object'],
    [
      'a profile name with a space',
      { profiles: { 'my prod': {} } },
      'profile name "my prod" must be 1 to 64 letters, digits, _ or -',
    ],
    [
      'a profile name of 65 characters',
      { profiles: { ['p'.repeat(65)]: {} } },
      `profile name "${'p'.repeat(65)}" must be`,
    ],
    ['a profile that is a string', { profiles: { prod: 'https://x' } }, 'profiles.prod must be an object'],
    [
      'a typo in a profile key',
      { profiles: { prod: { timeout: 30 } } },
      'profiles.prod has an unknown key "timeout" (known: baseUrl, apiKey, credentialStore, timeoutSeconds, retries, insecureHttp, analyst, reasons, requireReason)',
    ],
    [
      'a base URL in the sandbox profile',
      { profiles: { sandbox: { baseUrl: 'https://x.example' } } },
      'profiles.sandbox cannot have a baseUrl',
    ],
    [
      'a base URL that is not http(s)',
      { profiles: { prod: { baseUrl: 'ftp://fraud.example.com' } } },
      'profiles.prod.baseUrl must be an absolute http:// or https:// URL',
    ],
    [
      'a relative base URL',
      { profiles: { prod: { baseUrl: 'fraud.example.com' } } },
      'profiles.prod.baseUrl must be an absolute',
    ],
    [
      'a base URL with credentials',
      { profiles: { prod: { baseUrl: 'https://me:pw@fraud.example.com' } } },
      'profiles.prod.baseUrl must not contain a user name or password',
    ],
    ['a base URL that is a number', { profiles: { prod: { baseUrl: 42 } } }, 'profiles.prod.baseUrl must be a string'],
    [
      'a key that is a number',
      { profiles: { prod: { apiKey: 1234 } } },
      'profiles.prod.apiKey must be a non-empty string',
    ],
    ['an empty key', { profiles: { prod: { apiKey: '' } } }, 'profiles.prod.apiKey must be a non-empty string'],
    [
      'a negative timeout',
      { profiles: { prod: { timeoutSeconds: -1 } } },
      'profiles.prod.timeoutSeconds must be a positive number',
    ],
    [
      'a zero timeout',
      { profiles: { prod: { timeoutSeconds: 0 } } },
      'profiles.prod.timeoutSeconds must be a positive number',
    ],
    [
      'a timeout in a string',
      { profiles: { prod: { timeoutSeconds: '30' } } },
      'profiles.prod.timeoutSeconds must be a positive number',
    ],
    [
      'a timeout over a day',
      { profiles: { prod: { timeoutSeconds: 86_401 } } },
      'profiles.prod.timeoutSeconds must be a positive number of seconds, at most 86400',
    ],
    [
      'too many retries',
      { profiles: { prod: { retries: 11 } } },
      'profiles.prod.retries must be a whole number from 0 to 10',
    ],
    ['fractional retries', { profiles: { prod: { retries: 1.5 } } }, 'profiles.prod.retries must be a whole number'],
    [
      'a credential store entry that is a string',
      { profiles: { prod: { credentialStore: 'prod' } } },
      'profiles.prod.credentialStore must be {"service": "fraudctl", "account": "…"}',
    ],
    [
      'a credential store entry of another service',
      { profiles: { prod: { credentialStore: { service: 'gh:github.com', account: 'me' } } } },
      'profiles.prod.credentialStore must be {"service": "fraudctl"',
    ],
    [
      'a credential store entry with a blank account',
      { profiles: { prod: { credentialStore: { service: 'fraudctl', account: 'a b' } } } },
      'profiles.prod.credentialStore.account must be a string of 1 to 2100 printable characters',
    ],
    [
      'a key both in the file and in the credential store',
      {
        profiles: {
          prod: {
            apiKey: 'live-key-0123456789',
            credentialStore: { service: 'fraudctl', account: 'prod@https://fraud.example.com' },
          },
        },
      },
      'profiles.prod has both apiKey and credentialStore, and a key is kept in one place only: remove one of them',
    ],
  ])('refuses a file with %s, naming the file and the field', (_name, content, message) => {
    const t = tempEnv();
    writeRaw(t.configPath, content);
    const error = thrown(() => readConfigFile(t.env));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(`config file ${t.configPath}: ${message}`);
    expect(error.message).not.toContain('\n');
  });

  it('does not repeat a malformed key in its message', () => {
    const t = tempEnv();
    writeRaw(t.configPath, { profiles: { prod: { apiKey: 'secret part\nsecond-line' } } });
    const error = thrown(() => readConfigFile(t.env));
    expect(error.message).toMatch(/profiles\.prod\.apiKey/);
    expect(error.message).not.toContain('secret');
  });

  it('treats "constructor" and "__proto__" as ordinary profile names', () => {
    const t = tempEnv();
    writeRaw(t.configPath, '{"profiles": {"__proto__": {"timeoutSeconds": 7}, "constructor": {"retries": 1}}}');
    const file = readConfigFile(t.env);
    expect(Object.keys(file.profiles).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.hasOwn(file.profiles, '__proto__')).toBe(true);
    expect(file.profiles['__proto__']).toEqual({ timeoutSeconds: 7 });
    expect(({} as Record<string, unknown>).timeoutSeconds).toBeUndefined();
    writeConfigFile(t.env, file);
    expect(JSON.parse(readFileSync(t.configPath, 'utf8'))).toEqual(
      JSON.parse('{"profiles": {"__proto__": {"timeoutSeconds": 7}, "constructor": {"retries": 1}}}'),
    );
  });
});

describe('readConfigFile: the warning about permissions', () => {
  it('warns of a config directory others can change and a file others can read, once each', () => {
    const t = tempEnv();
    writeConfigFile(t.env, { profiles: { p: { timeoutSeconds: 7 } } });
    chmodSync(t.configDir, 0o777);
    chmodSync(t.configPath, 0o666);
    const warnings: string[] = [];
    readConfigFile(t.env, { warn: (w) => warnings.push(w), platform: 'linux' });
    // The path in the chmod is quoted for the shell in use (render/shell-command.ts); the modes are
    // what this platform makes of 0777 and 0666 (on Windows only the read-only bit is kept).
    expect(warnings).toEqual([
      expect.stringMatching(
        /^config directory .* can be changed by (any user|other users of its group) \(mode 0\d{3}\), who could replace the config and send the API key elsewhere: chmod 700 /,
      ),
      expect.stringMatching(
        /^config file .* can be read by other users \(mode 0\d{3}\) and may hold API keys: chmod 600 /,
      ),
    ]);
    expect(warnings[0]).toContain(t.configDir);
    expect(warnings[1]).toContain(t.configPath);
  });

  it('not on Windows, where Node reports 0666 for every writable file and modes say nothing of who may read it', () => {
    const t = tempEnv();
    writeConfigFile(t.env, { profiles: { p: { timeoutSeconds: 7 } } });
    chmodSync(t.configDir, 0o777);
    chmodSync(t.configPath, 0o666);
    const warnings: string[] = [];
    expect(readConfigFile(t.env, { warn: (w) => warnings.push(w), platform: 'win32' }).profiles.p).toEqual({
      timeoutSeconds: 7,
    });
    expect(warnings).toEqual([]);
  });
});

describe('writeConfigFile', () => {
  it('creates the directory with mode 0700 and the file with mode 0600', () => {
    notOnWindows(ON_WINDOWS.modes);
    const t = tempEnv();
    writeConfigFile(t.env, prod);
    expect(modeOf(t.configDir)).toBe(0o700);
    expect(modeOf(t.configPath)).toBe(0o600);
  });

  it('leaves the file at 0600 when a 0644 one was there before', () => {
    notOnWindows(ON_WINDOWS.modes);
    const t = tempEnv();
    writeRaw(t.configPath, { profiles: {} });
    chmodSync(t.configPath, 0o644);
    writeConfigFile(t.env, prod);
    expect(modeOf(t.configPath)).toBe(0o600);
    expect(readConfigFile(t.env)).toEqual(prod);
  });

  it('does not change the mode of a directory that already existed', () => {
    notOnWindows(ON_WINDOWS.modes);
    const t = tempEnv();
    mkdirSync(t.configDir, { mode: 0o755 });
    chmodSync(t.configDir, 0o755);
    writeConfigFile(t.env, prod);
    expect(modeOf(t.configDir)).toBe(0o755);
    expect(modeOf(t.configPath)).toBe(0o600);
  });

  it('leaves no temp files behind, however many times it writes', () => {
    const t = tempEnv();
    for (let i = 1; i <= 5; i++) writeConfigFile(t.env, { profiles: { prod: { retries: i } } });
    expect(readdirSync(t.configDir)).toEqual(['config.json']);
    expect(readConfigFile(t.env).profiles.prod).toEqual({ retries: 5 });
  });

  it('writes readable JSON, keys in a fixed order', () => {
    const t = tempEnv();
    writeConfigFile(t.env, {
      profiles: { p: { retries: 1, timeoutSeconds: 2, apiKey: 'k-1234567890ab', baseUrl: 'https://x.example' } },
      activeProfile: 'p',
    });
    expect(readFileSync(t.configPath, 'utf8')).toBe(
      '{\n  "activeProfile": "p",\n  "profiles": {\n    "p": {\n      "baseUrl": "https://x.example",\n      "apiKey": "k-1234567890ab",\n      "timeoutSeconds": 2,\n      "retries": 1\n    }\n  }\n}\n',
    );
  });

  it('refuses to write a configuration it would refuse to read, leaving the old file as it was', () => {
    const t = tempEnv();
    writeConfigFile(t.env, prod);
    const before = readFileSync(t.configPath, 'utf8');
    const error = thrown(() => writeConfigFile(t.env, { profiles: { prod: { timeoutSeconds: 0 } } }));
    expect(error).toBeInstanceOf(UsageError);
    expect(readFileSync(t.configPath, 'utf8')).toBe(before);
  });

  it('a config.json that is a directory: refused before anything is written, no temp file', () => {
    const t = tempEnv();
    mkdirSync(t.configPath, { recursive: true });
    const error = thrown(() => writeConfigFile(t.env, prod));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(`config file ${t.configPath} is a directory, not a file: nothing was written`);
    expect(readdirSync(t.configDir)).toEqual(['config.json']);
  });

  it.skipIf(!smallDisk.available)(
    `on a disk with room for 4 KB of a 13 KB file: fails naming the file and the cause, the old file byte for byte as it was, no temp file${smallDisk.skipReason}`,
    () => {
      disk = smallDisk.mount(128 * 1024);
      const t = {
        env: { XDG_CONFIG_HOME: disk.path, HOME: disk.path },
        configDir: join(disk.path, 'fraudctl'),
        configPath: join(disk.path, 'fraudctl', 'config.json'),
      };
      writeConfigFile(t.env, manyProfiles(80, 'old'));
      const before = readFileSync(t.configPath);
      expect(before.length).toBeGreaterThan(12_000);
      disk.fill(4096);
      const error = thrown(() => writeConfigFile(t.env, manyProfiles(80, 'new')));
      expect(error).toBeInstanceOf(CliError);
      expect(error.exitCode).toBe(1);
      expect(error.message).toBe(
        `cannot write the config file ${t.configPath}: no space left on its disk (ENOSPC); nothing was changed`,
      );
      expect(error.hint).toBe(`free some space and try again; df -h ${t.configDir} shows how full the disk is`);
      expect(readFileSync(t.configPath).equals(before)).toBe(true);
      expect(readdirSync(t.configDir)).toEqual(['config.json']);
    },
  );

  it('follows a symlinked config.json: the link stays, its target gets the new content at 0600', () => {
    notOnWindows(ON_WINDOWS.symlink);
    const t = tempEnv();
    const dotfiles = join(t.root, 'dotfiles');
    mkdirSync(dotfiles);
    mkdirSync(t.configDir);
    writeFileSync(join(dotfiles, 'fraudctl.json'), '{}');
    chmodSync(join(dotfiles, 'fraudctl.json'), 0o644);
    symlinkSync(join(dotfiles, 'fraudctl.json'), t.configPath);
    writeConfigFile(t.env, prod);
    expect(lstatSync(t.configPath).isSymbolicLink()).toBe(true);
    expect(realpathSync(t.configPath)).toBe(realpathSync(join(dotfiles, 'fraudctl.json')));
    expect(modeOf(join(dotfiles, 'fraudctl.json'))).toBe(0o600);
    expect(readConfigFile(t.env)).toEqual(prod);
    expect(readdirSync(dotfiles)).toEqual(['fraudctl.json']);
  });
});

/*
 * A symlinked config.json is written through to a regular file of this user, and never
 * renamed over anything else: a link to a device, a FIFO or a directory, a dangling link, a link
 * or target of another user, and a config.json that is itself not a file are refused, each left
 * exactly as it was. (The device is one this test makes, never the machine's /dev/null.)
 */
describe('writeConfigFile and what config.json is', () => {
  beforeEach(() => notOnWindows(`${ON_WINDOWS.symlink}; and FIFOs, devices and other users' files are POSIX`));
  // On Windows each is skipped by the line above, saying why.
  const isRoot = process.getuid?.() === 0 || onWindows;

  function linkTo(t: ReturnType<typeof tempEnv>, target: string): void {
    mkdirSync(t.configDir, { recursive: true });
    symlinkSync(target, t.configPath);
  }

  function refused(t: ReturnType<typeof tempEnv>, message: RegExp): Error & { exitCode?: number; hint?: string } {
    const error = thrown(() => writeConfigFile(t.env, prod));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(/nothing was written$/);
    expect(readdirSync(t.configDir)).toEqual(['config.json']); // no temp file left
    return error;
  }

  it('a link to a FIFO: refused, the FIFO left a FIFO, the link a link', () => {
    const t = tempEnv();
    const fifo = join(t.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    linkTo(t, fifo);
    const error = refused(
      t,
      new RegExp(`^config file ${t.configPath} is a link to ${fifo}, which is a named pipe \\(FIFO\\), not a file`),
    );
    expect(error.hint).toBe(`replace the link with a file of its own: rm ${t.configPath}`);
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(t.configPath).isSymbolicLink()).toBe(true);
    expect(readdirSync(t.root).sort()).toEqual(['fraudctl', 'pipe']);
  });

  it.skipIf(!isRoot)(
    'a link to a character device (one made here with mknod, like /dev/null): refused, the device left a device',
    () => {
      const t = tempEnv();
      const device = join(t.root, 'null');
      execFileSync('mknod', [device, 'c', '1', '3']);
      linkTo(t, device);
      refused(t, new RegExp(`is a link to ${device}, which is a character device, not a file`));
      expect(statSync(device).isCharacterDevice()).toBe(true);
    },
  );

  it('a link to a directory: refused, the directory left as it was', () => {
    const t = tempEnv();
    const dir = join(t.root, 'elsewhere');
    mkdirSync(dir);
    linkTo(t, dir);
    refused(t, /which is a directory, not a file/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a dangling link: refused, nothing created where it points, the hint makes it work', () => {
    const t = tempEnv();
    const target = join(t.root, 'dotfiles-not-there', 'fraudctl.json');
    linkTo(t, target);
    const error = refused(t, new RegExp(`^config file ${t.configPath} is a link to ${target}, which does not exist`));
    expect(error.hint).toBe(
      `create the file it points to (touch ${target}), or remove the link (rm ${t.configPath}), then try again`,
    );
    expect(existsSync(join(t.root, 'dotfiles-not-there'))).toBe(false);
    expect(readlinkSync(t.configPath)).toBe(target);
    // The hint's first way, where the directory exists: the file is written through the link.
    mkdirSync(join(t.root, 'dotfiles-not-there'));
    execFileSync('sh', ['-c', `touch ${target}`]);
    writeConfigFile(t.env, prod);
    expect(lstatSync(t.configPath).isSymbolicLink()).toBe(true);
    expect(readConfigFile(t.env)).toEqual(prod);
  });

  it('a relative link is followed from the config directory', () => {
    const t = tempEnv();
    writeRaw(join(t.root, 'mine.json'), '{}');
    linkTo(t, '../mine.json');
    writeConfigFile(t.env, prod);
    expect(readlinkSync(t.configPath)).toBe('../mine.json');
    expect(JSON.parse(readFileSync(join(t.root, 'mine.json'), 'utf8'))).toEqual(prod);
  });

  it.skipIf(!isRoot)('a link another user put there, or a target of another user: refused', () => {
    const t = tempEnv();
    const target = join(t.root, 'theirs.json');
    writeRaw(target, '{}');
    linkTo(t, target);
    lchownSync(t.configPath, 4242, 4242);
    refused(t, /is a symbolic link of another user \(uid 4242\)/);
    lchownSync(t.configPath, 0, 0);
    chownSync(target, 4242, 4242);
    refused(t, new RegExp(`is a link to ${target}, a file of another user \\(uid 4242\\)`));
    expect(readFileSync(target, 'utf8')).toBe('{}');
  });

  it('a config.json that is itself a FIFO: refused, not replaced', () => {
    const t = tempEnv();
    mkdirSync(t.configDir);
    execFileSync('mkfifo', [t.configPath]);
    const error = refused(t, new RegExp(`^config file ${t.configPath} is a named pipe \\(FIFO\\), not a file`));
    expect(error.hint).toBe(
      `move it away (${shellCommand(['mv', t.configPath, `${t.configPath}.old`])}) and try again`,
    );
    expect(statSync(t.configPath).isFIFO()).toBe(true);
  });
});
