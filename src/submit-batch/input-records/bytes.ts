/*
 * Bytes of JSON without a parser: whitespace, and where a value ends (ValueEnd), from a scan that
 * follows only strings and brackets. Invariant: linear in the bytes given, whatever the nesting,
 * and holding nothing of them.
 */

export const NL = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
export const TAB = 0x09;
export const OPEN_BRACKET = 0x5b;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACKET = 0x5d;
export const CLOSE_BRACE = 0x7d;
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
/** JSON's whitespace (and nothing else: no-break spaces and the like are text). */
export const isWs = (b: number) => b === SPACE || b === NL || b === CR || b === TAB;

/** The index of the first non-whitespace byte in [from, to), or -1. */
export function skipWs(chunk: Buffer, from: number, to: number): number {
  for (let i = from; i < to; i++) if (!isWs(chunk[i]!)) return i;
  return -1;
}

/**
 * Where a JSON value ends, from a scan of its bytes that follows only strings (and their
 * escapes) and brackets: enough to find the end of a value already known too large, which is
 * never parsed. Started at the value's first byte, or inside a string or number at the top
 * (`inside`). Its syntax is not checked: whatever follows it is, by the grammar again.
 */
export class ValueEnd {
  private depth = 0;
  private inString: boolean;
  private escaped = false;
  /** In a number or literal at the top: it ends at the first byte that cannot be part of it. */
  private inAtom: boolean;

  constructor(inside: 'value' | 'string' | 'atom' = 'value') {
    this.inString = inside === 'string';
    this.inAtom = inside === 'atom';
  }

  /** The index just past the value's end in buf[from, to), or -1 when it goes on. */
  scan(buf: Buffer, from: number, to: number): number {
    // Where the next backslash is (to: none before `to`), looked up again only once passed.
    let backslash = -1;
    for (let i = from; i < to; i++) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        // Straight to the string's next quote or backslash (indexOf: memchr, not a byte at a time).
        if (backslash < i) backslash = indexIn(buf, BACKSLASH, i, to);
        const quote = indexIn(buf, QUOTE, i, backslash);
        if (quote < backslash) {
          i = quote;
          this.inString = false;
          if (this.depth === 0) return i + 1;
          continue;
        }
        if (backslash >= to) return -1;
        i = backslash;
        this.escaped = true;
        continue;
      }
      const b = buf[i]!;
      if (this.inAtom) {
        if (isWs(b) || b === COMMA || b === CLOSE_BRACKET || b === CLOSE_BRACE) return i;
      } else if (b === QUOTE) this.inString = true;
      else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
      else if ((b === CLOSE_BRACE || b === CLOSE_BRACKET) && --this.depth === 0) return i + 1;
    }
    return -1;
  }
}

/** The index of `byte` in buf[from, to), or `to`. */
function indexIn(buf: Buffer, byte: number, from: number, to: number): number {
  const at = buf.subarray(0, to).indexOf(byte, from);
  return at < 0 ? to : at;
}
