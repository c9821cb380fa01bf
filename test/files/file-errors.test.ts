import { describe, expect, it } from 'vitest';
import { fileErrorCause, fileErrorHint } from '../../src/files/file-errors.js';

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
    expect(fileErrorHint(error, 'results')).toBe('close the program that has it open (an editor, a spreadsheet), then try again');
  });

  it('a code without words stays the bare code', () => {
    expect(fileErrorCause({ code: 'EXDEV' })).toBe('EXDEV');
  });
});
