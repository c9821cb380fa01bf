import { describe, expect, it } from 'vitest';
import { fileErrorCause, fileErrorHint, fileFailure, fileWriteFailure } from '../../src/files/file-errors.js';
import { diskFreeCommand } from '../../src/render/shell-command.js';
import { listFilesCommand } from '../../src/render/shell-command.js';

/*
 * The words for why a file could not be written. EBUSY is what Windows says when another program
 * holds the file open without sharing it (a results file open in a spreadsheet, a config file in
 * an editor that locks it): a bare code told the user nothing, and the hint sent them to look at
 * the directory's permissions.
 */

describe('file errors in words', () => {
  it('EBUSY: another program has the file open; close it and try again', () => {
    const error = Object.assign(new Error('EBUSY: resource busy or locked'), { code: 'EBUSY' });
    expect(fileErrorCause(error)).toBe('another program has it open (EBUSY)');
    expect(fileErrorHint(error, 'results')).toBe(
      'close the program that has it open (an editor, a spreadsheet), then try again',
    );
  });

  it('a code without words stays the bare code', () => {
    expect(fileErrorCause({ code: 'EXDEV' })).toBe('EXDEV');
  });
});

describe('fileFailure: one wording for every reader of a file', () => {
  it.each([
    ['a missing file', 'ENOENT', 'cannot read the log /data/a.log: no such file', 'give the --log files'],
    ['a directory', 'EISDIR', 'cannot read the log /data/a.log: it is a directory', 'give the --log files'],
    [
      'a file it may not read',
      'EACCES',
      'cannot read the log /data/a.log: permission denied (EACCES)',
      `check who owns it and its mode: ${listFilesCommand(['/data/a.log'])}`,
    ],
    [
      'an input/output error',
      'EIO',
      'cannot read the log /data/a.log: an input/output error from the disk (EIO)',
      `check the directory: ${listFilesCommand(['/data'])}`,
    ],
  ])('%s', (_what, code, message, hint) => {
    const said = fileFailure('/data/a.log', { code }, 'log', 'give the --log files');
    expect(said.message).toBe(message);
    expect(said.hint).toBe(hint);
  });

  it('without what to give, a missing file points at its directory; a path from outside is made safe', () => {
    const said = fileFailure('/data/\x1b[2Jids.txt', { code: 'ENOENT' }, 'file of events');
    expect(said.message).toBe('cannot read the file of events /data/\\x1b[2Jids.txt: no such file');
    expect(said.hint).toBe(`check the path: ${listFilesCommand(['/data'])}`);
  });
});

describe('fileWriteFailure: one wording for every writer of a file', () => {
  it.each([
    ['ENOENT', 'no such directory', 'give --out a file in a directory that exists'],
    ['EISDIR', 'it is a directory', 'give --out a file, not a directory'],
    ['EACCES', 'permission denied (EACCES)', `check who owns it and its mode: ${listFilesCommand(['/data'])}`],
    [
      'ENOSPC',
      'no space left on its disk (ENOSPC)',
      `free some space and try again; ${diskFreeCommand('/data')} shows how full the disk is`,
    ],
    [
      'EROFS',
      'its file system is mounted read-only (EROFS)',
      `use a directory on a writable disk; ${diskFreeCommand('/data')} names the read-only one`,
    ],
  ])('%s', (code, cause, hint) => {
    const said = fileWriteFailure('/data/out.jsonl', { code }, 'results file', { option: '--out' });
    expect(said).toEqual({ message: `cannot write the results file /data/out.jsonl: ${cause}`, hint });
  });

  it('names what failed when it was not the file (its lock), and a path from outside is made safe', () => {
    const said = fileWriteFailure('/data/\x1b[2Jc.json', { code: 'EROFS' }, 'config file', {
      doing: 'cannot create its lock /data/c.json.lock',
      movedBy: 'XDG_CONFIG_HOME',
    });
    expect(said.message).toBe(
      'cannot write the config file /data/\\x1b[2Jc.json: cannot create its lock /data/c.json.lock: ' +
        'its file system is mounted read-only (EROFS)',
    );
    expect(said.hint).toBe('set XDG_CONFIG_HOME to a directory on a writable disk');
  });
});
