import { NL } from './bytes.js';
import type { Start } from './too-large.js';

/*
 * Where the reader of values is: the piece of input being fed (a line, or the part of one a chunk
 * holds), its offset in the input, its line number, and the column of a byte on it. Invariant:
 * columns are counted in characters (UTF-8 lead bytes), each byte once, from a cursor that only
 * moves forward.
 */
export class LineCursor {
  /** 1-based number of the line being fed. */
  line = 1;
  /** The piece of input being fed. */
  segment: Buffer = Buffer.alloc(0);
  /** Its offset in the input. */
  segmentAt = 0;
  // The column cursor: characters from the line's start up to byte offset `columnAt`.
  private columnAt = 0;
  private columnChars = 0;

  /**
   * On to the next piece. Done with the last one only now, so that a number ended by the end of
   * input still has it.
   */
  next(segment: Buffer): void {
    const last = this.segment;
    if (last.length > 0) {
      if (last[last.length - 1] === NL) {
        this.line++;
        this.columnAt = this.segmentAt + last.length;
        this.columnChars = 0;
      } else {
        this.columnOf(this.segmentAt + last.length);
      }
      this.segmentAt += last.length;
    }
    this.segment = segment;
  }

  /** True when no character of this line came before the piece being fed. */
  atLineStart(): boolean {
    return this.columnAt === this.segmentAt && this.columnChars === 0;
  }

  /** The column (1-based, in characters) of a byte offset on the line being fed. */
  columnOf(offset: number): number {
    // Behind the cursor: a token begun in an earlier piece of the line (chunks can be that
    // small), counted back in bytes, exact for numbers and literals (ASCII) and most strings.
    if (offset < this.columnAt) return Math.max(1, this.columnChars + 1 - (this.columnAt - offset));
    const { segment, segmentAt } = this;
    for (let i = Math.max(0, this.columnAt - segmentAt), end = offset - segmentAt; i < end; i++)
      if ((segment[i]! & 0xc0) !== 0x80) this.columnChars++;
    this.columnAt = offset;
    return this.columnChars + 1;
  }

  /** A record starting at a byte offset on the line being fed. */
  startAt(offset: number): Start {
    return { offset, line: this.line, column: this.columnOf(offset) };
  }
}
