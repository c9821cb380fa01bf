import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../src/profiles/config-file.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { manyProfiles } from '../profiles/temp-env.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';

/*
 * A file fraudctl is to write and cannot, said the one way every writer says it
 * (src/files/file-errors.ts fileWriteFailure): one line naming what the file is to the command
 * (the results file, the rejects file, the log, the config file) and its path, then the cause in
 * words and what to do — with the exit code each writer had. Each writer said it its own way: "cannot
 * create out.jsonl: no such directory", "cannot create out.jsonl.lock, the lock that keeps other
 * runs from writing…", "cannot open the log file x.log: EROFS", "cannot write config file…".
 */

const cli = useSandboxInProcess();
const EVENT = resolve(import.meta.dirname, '../../examples/review.json');

describe('a file to write in a directory that does not exist', () => {
  it('submit --out: the results file, "no such directory", the option to give; exit 2, nothing made', async () => {
    const out = join(cli.dir, 'no-such-dir', 'out.jsonl');
    const result = await cli.run(['submit', EVENT, '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the results file ${out}: no such directory\ngive --out a file in a directory that exists\n`,
    );
    expect(existsSync(join(cli.dir, 'no-such-dir'))).toBe(false);
  });

  it('submit --rejects: the rejects file named the same way', async () => {
    const rejects = join(cli.dir, 'no-such-dir', 'rejects.jsonl');
    const result = await cli.run(['submit', EVENT, '--rejects', rejects]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the rejects file ${rejects}: no such directory\n` +
        'give --rejects a file in a directory that exists\n',
    );
  });
});

describe.skipIf(!smallDisk.available)(`a file to write on a read-only disk${smallDisk.skipReason}`, () => {
  let disk: SmallDisk | undefined;
  afterEach(() => {
    disk?.remove();
    disk = undefined;
  });
  const readOnlyDisk = (prepare: (dir: string) => void = () => {}): string => {
    disk = smallDisk.mount(256 * 1024);
    prepare(disk.path);
    disk.readOnly();
    return disk.path;
  };
  const readOnly = (dir: string) => `use a directory on a writable disk; df -h ${dir} names the read-only one`;

  it('submit --out: the results file and EROFS in one line (its lock named), exit 2 as before', async () => {
    const dir = readOnlyDisk();
    const out = join(dir, 'out.jsonl');
    const result = await cli.run(['submit', EVENT, '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the results file ${out}: cannot create its lock ${out}.lock: ` +
        `its file system is mounted read-only (EROFS)\n${readOnly(dir)}\n`,
    );
  });

  it('set-state --log: the log and EROFS, nothing sent, exit 2 as before', async () => {
    const dir = readOnlyDisk();
    const log = join(dir, 'team.log');
    const result = await cli.run(['set-state', 'ord-write-failures', '--state', 'declined', '--log', log]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the log ${log}: its file system is mounted read-only (EROFS)\n${readOnly(dir)}\n`,
    );
  });

  it('config set: the config file and EROFS, nothing changed, exit 1 as before', async () => {
    const dir = readOnlyDisk((path) => {
      mkdirSync(join(path, 'fraudctl'), { mode: 0o700 });
      writeConfigFile({ XDG_CONFIG_HOME: path }, manyProfiles(2, 'old'));
    });
    const path = join(dir, 'fraudctl', 'config.json');
    const result = await cli.run(['config', 'set', 'timeout', '12', '--profile', 'profile-1'], {
      env: { FRAUDCTL_API_KEY: '', FRAUDCTL_BASE_URL: '', XDG_CONFIG_HOME: dir },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: cannot write the config file ${path}: cannot create its lock ${path}.lock: ` +
        'its file system is mounted read-only (EROFS); nothing was changed\n' +
        'set XDG_CONFIG_HOME to a directory on a writable disk\n',
    );
  });
});

describe('a file to write that is a directory', () => {
  it('set-state --log DIR: the log named, "it is a directory", exit 2', async () => {
    notOnWindows(ON_WINDOWS.directoryWrite);
    const log = join(cli.dir, 'a-dir.log');
    mkdirSync(log, { recursive: true });
    writeFileSync(join(log, 'inside'), '');
    const result = await cli.run(['set-state', 'ord-write-failures', '--state', 'declined', '--log', log]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the log ${log}: it is a directory\ngive --log a file, not a directory\n`,
    );
  });
});
