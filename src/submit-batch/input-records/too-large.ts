import { Tokenizer, TokenType } from '@streamparser/json';
import type { ValueEnd } from './bytes.js';
import { KEEP_BYTES, record, wholeCharacters, type InputRecord } from './records.js';

/*
 * The record of a value over the limit (not JSON Lines): known too large once that many of its
 * bytes have gone by, it is never parsed (the tokenizer would hold a long string whole), and its
 * record keeps only its first bytes, and the `id` read from them. Invariant: the record is the
 * same however the input was cut into chunks (what --resume compares).
 */

/** Where a record starts. */
export interface Start {
  offset: number;
  line: number;
  column: number;
}

/** A value too large, being skipped: its record (bytes counted on), the scan that finds its end, whether it was an element of a top-level array. */
export interface Skipping {
  record: InputRecord;
  end: ValueEnd;
  list: number;
}

/** Past this many bytes a value is too large: the limit, and at most half of KEEP_BYTES, so that all of a record up to the cut (and a chunk more) is kept. */
export function cutFor(maxRecordBytes: number): number {
  return Math.min(maxRecordBytes, KEEP_BYTES / 2);
}

/** A record too large: its first `cutAt` bytes as its text, and the id read from them. */
export function tooLarge(start: Start, kept: Buffer, bytes: number, cutAt: number): InputRecord {
  const head = kept.subarray(0, cutAt);
  const r = record(start.line, wholeCharacters(head).toString('utf8'), bytes, true, 'too large', start.column);
  const id = idIn(head);
  if (id !== undefined) r.id = id;
  return r;
}

/**
 * A string or number at the top too large (never an event): the first characters of a string
 * as its text. `bytes` is what it took in the input when it was skipped, its length as JSON
 * when it ended within one piece of input (the two differ only by escapes).
 */
export function topTooLarge(start: Start, token: TokenType, value: unknown, bytes: number, cutAt: number): InputRecord {
  const text =
    token === TokenType.STRING ? JSON.stringify((value as string).slice(0, Math.floor(cutAt / 8))).slice(0, -1) : '';
  return record(start.line, text, bytes, true, 'too large', start.column);
}

/** The string `id` of an object from its first bytes (cut anywhere), as JSON.parse would read it; undefined when none is there. */
function idIn(head: Buffer): string | undefined {
  let depth = 0;
  let keyNext = false;
  let key: string | undefined;
  let valueOf: string | undefined;
  let id: string | undefined;
  const tokenizer = new Tokenizer();
  tokenizer.onToken = ({ token, value }) => {
    if (depth === 1) {
      if (token === TokenType.STRING && keyNext) {
        key = value as string;
        keyNext = false;
      } else if (token === TokenType.COLON) {
        valueOf = key;
      } else if (token === TokenType.COMMA) {
        keyNext = true;
      } else if (valueOf !== undefined) {
        // The last "id" counts, as in JSON.parse; one that is not a string is no id.
        if (valueOf === 'id') id = token === TokenType.STRING ? (value as string) : undefined;
        valueOf = undefined;
      }
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (depth++ === 0) keyNext = token === TokenType.LEFT_BRACE;
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
  };
  try {
    tokenizer.write(head);
  } catch {
    // Broken further on: what came before stands.
  }
  return id;
}
