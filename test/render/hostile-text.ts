/* eslint-disable no-control-regex -- these tests look for terminal control characters on purpose */
import fc from 'fast-check';

/*
 * What a hostile or broken service could put in a string, and how to tell that none of it
 * reached the terminal. Shared by the render tests.
 */

export const CLEAR_SCREEN = '\x1b[2J\x1b[H';
export const OSC_TITLE = '\x1b]0;pwned\x07';
export const CSI_8BIT = '\u009b31m';
export const RLO = '\u202e';

/** Characters a terminal could act on (or that reorder text), except the line feed between lines. */
export const ACTIVE_EXCEPT_NEWLINE =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udfff]/u;

/** The same, and a line feed too: nothing that may appear inside one table cell. */
export const ACTIVE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udfff]/u;

/** The SGR sequences our own Style writes at colour level 1 and up. */
export const SGR = /\x1b\[[0-9;]*m/g;

/** One unit of a hostile string: a control, a bidi mark, half a surrogate pair, or any code point. */
const hostileUnit = fc.oneof(
  fc.constantFrom(
    '\x1b',
    '\x9b',
    '\x9d',
    '\x07',
    '\r',
    '\n',
    '\t',
    '\x00',
    '\x7f',
    '\u202e',
    '\u2066',
    '\u061c',
    '\u2028',
    '\ud800',
    '\udc00',
    '[',
    '\\',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);

export const hostileString = fc.string({ unit: hostileUnit, maxLength: 40 });

/** Any JSON value whose strings (keys too) may hold hostile text. */
export const hostileJson = fc.jsonValue({ maxDepth: 3, stringUnit: hostileUnit });
