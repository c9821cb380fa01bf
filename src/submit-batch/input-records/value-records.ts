import { TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { CliError, ExitCode } from '../../errors/cli-error.js';
import type { ChunkReader } from './chunk-reader.js';
import { NL, OPEN_BRACE, OPEN_BRACKET, ValueEnd, skipWs } from './bytes.js';
import { LineCursor } from './line-cursor.js';
import { GrammarError, syntax, tokenizerErrorAt, type Syntax } from './grammar.js';
import { Gathered, record, type InputRecord } from './records.js';
import { cutFor, tooLarge, topTooLarge, type Skipping, type Start } from './too-large.js';

/*
 * Any layout but JSON Lines (a JSON array, one value over many lines, values one after another as
 * `jq` prints them): a stream of JSON values, each a record, a top-level array's elements each a
 * record, with the line and column where each starts and its exact source text. The input is fed
 * to the tokenizer line by line, so that the line of every token is the current one.
 *
 * A broken value is a 'not JSON' record, and reading starts again at the next line that opens a
 * value at the column where the broken one began (jq puts every value at column 1, an indented
 * array every element at its indent); when no such line follows, the iteration throws after the
 * records before it. A value over the limit is skipped to its end by ValueEnd, unparsed
 * (too-large.ts), and the grammar starts again after it. Invariant: memory holds at most one
 * record's kept bytes and one flag per open level, whatever the size or nesting of the input.
 */

/** A value that broke. */
interface Broken {
  start: Start;
  /** Where it broke and what was found there. */
  detail: string;
  /** Whether it was an element of a top-level array. */
  list: number;
}

/** Values, each a record, read as the class below says; the input released at the end or an early stop. */
export async function* valueRecords(
  input: ChunkReader,
  name: string,
  maxRecordBytes: number,
  release: () => void,
  resumable: boolean,
): AsyncGenerator<InputRecord> {
  const scanner = new ValueScanner(name, maxRecordBytes, resumable);
  try {
    for (let chunk = await input.next(); chunk !== null; chunk = await input.next()) {
      scanner.write(chunk);
      for (const r of scanner.ready.splice(0)) {
        yield r;
        if (input.stopped) return;
      }
    }
    const failure = scanner.end();
    yield* scanner.ready.splice(0);
    if (failure) throw failure;
  } finally {
    release();
  }
}

/** The state of reading values: where the input is, the record open, and what is being skipped. */
class ValueScanner {
  /** Records complete, in input order, for the caller to take. */
  readonly ready: InputRecord[] = [];
  /** Past this many bytes a value is too large, and is skipped to its end unparsed. */
  private readonly cutAt: number;
  private readonly again: string;

  // Where the input is: the piece being fed, its line, the columns on it.
  private readonly at = new LineCursor();

  // The grammar, and where the tokens' offsets start in the input (they are relative to its start).
  private syntax: Syntax;
  private base = 0;
  // Where the buffer last given to the tokenizer starts in the input, and where it ends.
  private writtenAt = 0;
  private writtenEnd = 0;
  // True while the placeholder value written by a restart inside an array goes through onToken.
  private placeholder = false;

  // 1 while inside a top-level array (its elements are the records), else 0.
  private list = 0;
  // The record open: where it starts, where its bytes start in `segment`, its bytes so far.
  private open: Start | null = null;
  private from = 0;
  private readonly gathered = new Gathered();

  private broken: Broken | null = null;
  private skipping: Skipping | null = null;
  // While broken: the whitespace so far at the start of the line (which chunks can cut anywhere), -1 past it.
  private indent = -1;

  constructor(
    private readonly name: string,
    maxRecordBytes: number,
    resumable: boolean,
  ) {
    this.cutAt = cutFor(maxRecordBytes);
    this.again = resumable
      ? 'run the same command again with --resume (it skips what was done)'
      : 'run the same command again';
    this.syntax = this.newSyntax();
  }

  /** Reads a chunk of input, line by line; complete records go to `ready`. */
  write(chunk: Buffer): void {
    for (let i = 0; i < chunk.length;) {
      const nl = chunk.indexOf(NL, i);
      const end = nl < 0 ? chunk.length : nl + 1;
      this.at.next(chunk.subarray(i, end));
      this.feed();
      i = end;
    }
  }

  /** The end of the input: the last records to `ready`, and the error to throw after them when it broke off. */
  end(): CliError | null {
    const broken = this.broken;
    if (broken) {
      return new CliError(
        `${this.name}: not JSON ${broken.detail}, and no later line starts a value at column ${broken.start.column}: stopped there`,
        ExitCode.FAILURE,
        `fix the input there, then ${this.again}`,
      );
    }
    // Cut short inside a value (or the array): nothing can tell where the rest would be.
    if (this.skipping) this.open = { offset: 0, line: this.skipping.record.line, column: this.skipping.record.column };
    const whole = this.syntax.end();
    const open = this.open;
    const depth = this.syntax.grammar.depth;
    if (whole && open === null) return null;
    const where = open
      ? `a value that starts at line ${open.line} column ${open.column}`
      : depth > 0
        ? 'a JSON array'
        : 'a value';
    return new CliError(
      `${this.name} ends inside ${where}`,
      ExitCode.FAILURE,
      `the input may be cut short: complete it, then ${this.again}`,
    );
  }

  /** One line, or the piece of one in this chunk. */
  private feed(): void {
    let from0 = 0;
    if (this.skipping) {
      from0 = this.skipOn();
      if (from0 < 0) return;
    }
    const broken = this.broken;
    if (broken) {
      if (!this.resumesHere(broken)) {
        this.gathered.add(this.at.segment, 0, this.at.segment.length);
        return;
      }
      this.broken = null;
      const { text, truncated } = this.gathered.take(this.gathered.bytes);
      const trimmed = text.trimEnd();
      const r = record(
        broken.start.line,
        trimmed,
        Buffer.byteLength(trimmed),
        truncated,
        'not JSON',
        broken.start.column,
      );
      r.detail = broken.detail;
      this.ready.push(r);
      this.restart(this.at.segmentAt, broken.list);
    }
    try {
      // A skipped value ended in this piece: the rest of it, from where the grammar started again.
      this.writeSyntax(from0 > 0 ? this.at.segment.subarray(from0) : this.at.segment, this.at.segmentAt + from0);
      if (this.open) {
        this.gathered.add(this.at.segment, this.from, this.at.segment.length);
        this.from = 0;
        if (this.gathered.bytes > this.cutAt) this.skipOpenRecord();
      }
    } catch (e) {
      this.breakAt(e);
    }
  }

  private newSyntax(): Syntax {
    return syntax((token, depth) => this.onToken(token, depth), true);
  }

  /** Gives `buf` (at `at` in the input) to the tokenizer. */
  private writeSyntax(buf: Buffer, at: number): void {
    this.writtenAt = at;
    this.writtenEnd = at + buf.length;
    this.syntax.tokenizer.write(buf);
  }

  /** A token of the grammar at `depth` (before it opens or closes a level). */
  private onToken({ token, value, offset: relative, partial }: ParsedTokenInfo, depth: number): void {
    const offset = this.base + relative;
    const { list } = this;
    if (partial) {
      // A string or number at the top still open at the end of a write: too large once it has run past the cut.
      if (
        depth === list &&
        this.writtenEnd - offset > this.cutAt &&
        (token === TokenType.STRING || token === TokenType.NUMBER)
      )
        this.skipTopValue(offset, token, value);
      return;
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (depth === 0 && token === TokenType.LEFT_BRACKET) this.list = 1;
      else if (depth === list) {
        this.open = this.at.startAt(offset);
        this.from = offset - this.at.segmentAt;
      }
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) {
      if (depth === 1 && list === 1) this.list = 0;
      else if (depth - 1 === list) this.finish(offset + 1);
    } else if (depth === list && !this.placeholder && token !== TokenType.COLON && token !== TokenType.COMMA) {
      const text = JSON.stringify(value);
      const start = this.at.startAt(offset);
      const bytes = Buffer.byteLength(text);
      this.ready.push(
        bytes > this.cutAt
          ? topTooLarge(start, token, value, bytes, this.cutAt)
          : record(start.line, text, bytes, false, undefined, start.column),
      );
    }
  }

  /** The open record ends just before `end`. */
  private finish(end: number): void {
    const start = this.open!;
    const { gathered } = this;
    gathered.add(this.at.segment, this.from, end - this.at.segmentAt);
    const bytes = gathered.bytes;
    if (bytes > this.cutAt) {
      // Ended in the piece of input where it passed the cut: kept as if it had been skipped, so
      // the record is the same however the input came in chunks.
      this.ready.push(tooLarge(start, gathered.keptBytes(), bytes, this.cutAt));
      gathered.take(0);
    } else {
      const { text, truncated } = gathered.take(bytes);
      this.ready.push(record(start.line, text, bytes, truncated, undefined, start.column));
    }
    this.open = null;
  }

  /**
   * A new grammar from `offset` on, inside the array again when the value before was an element:
   * after a broken value at an element's start, after a skipped one (`afterValue`) at what follows
   * it, so a placeholder element stands for it (its token is not a record).
   */
  private restart(offset: number, inList: number, afterValue = false): void {
    this.syntax = this.newSyntax();
    this.list = 0;
    const lead = inList ? (afterValue ? '[true' : '[') : '';
    this.base = offset - lead.length;
    if (lead) {
      this.placeholder = afterValue;
      this.syntax.tokenizer.write(lead);
      this.placeholder = false;
    }
  }

  /** The open record has run past the cut: from now on its end is looked for, unparsed. */
  private skipOpenRecord(): void {
    const kept = this.gathered.keptBytes();
    const end = new ValueEnd();
    // The record from its first byte: the scan's state where the tokenizer stopped.
    end.scan(kept, 0, kept.length);
    this.skipping = { record: tooLarge(this.open!, kept, this.gathered.bytes, this.cutAt), end, list: this.list };
    this.gathered.take(0);
    this.open = null;
  }

  /** A string or number at the top past the cut (never an event): its end is looked for, unparsed. */
  private skipTopValue(offset: number, token: TokenType, value: unknown): void {
    const start = this.at.startAt(offset);
    const end = new ValueEnd(token === TokenType.STRING ? 'string' : 'atom');
    this.skipping = {
      record: topTooLarge(start, token, value, this.writtenEnd - offset, this.cutAt),
      end,
      list: this.list,
    };
  }

  /** Looks for the skipped value's end in this piece of a line; past it, the grammar starts again. Its index, or -1. */
  private skipOn(): number {
    const s = this.skipping!;
    const end = s.end.scan(this.at.segment, 0, this.at.segment.length);
    if (end < 0) {
      s.record.bytes += this.at.segment.length;
      return -1;
    }
    s.record.bytes += end;
    this.ready.push(s.record);
    this.skipping = null;
    this.restart(this.at.segmentAt + end, s.list, true);
    return end;
  }

  /** The grammar refused this piece: the value open (or starting where it broke) is broken. */
  private breakAt(e: unknown): void {
    const { offset, what } = this.describeError(e);
    const start = this.open ?? this.at.startAt(offset);
    if (!this.open) {
      this.from = Math.max(0, offset - this.at.segmentAt);
      this.gathered.take(0);
    }
    this.gathered.add(this.at.segment, this.from, this.at.segment.length);
    this.broken = {
      start,
      detail: `at line ${this.at.line} column ${this.at.columnOf(offset)}: ${what}`,
      list: this.list,
    };
    this.open = null;
  }

  /** Where and why the tokenizer or the grammar stopped, in words. */
  private describeError(e: unknown): { offset: number; what: string } {
    const at = tokenizerErrorAt(e);
    if (at !== null) {
      const offset = this.writtenAt + at;
      return {
        offset,
        what: `unexpected ${JSON.stringify(String.fromCharCode(this.at.segment[offset - this.at.segmentAt] ?? 0x20))}`,
      };
    }
    const token = e instanceof GrammarError ? e.token : this.syntax.last();
    return {
      offset: token ? this.base + token.offset : this.at.segmentAt,
      what: token ? `unexpected ${JSON.stringify(token.value)}` : (e as Error).message,
    };
  }

  /** True when this piece of a line opens a value at the broken value's column: reading starts again here. */
  private resumesHere(b: Broken): boolean {
    if (this.at.atLineStart()) this.indent = 0;
    if (this.indent < 0) return false;
    const { segment } = this.at;
    const first = skipWs(segment, 0, segment.length);
    if (first < 0) {
      this.indent += segment.length;
      return false;
    }
    const found =
      this.indent + first === b.start.column - 1 && (segment[first] === OPEN_BRACE || segment[first] === OPEN_BRACKET);
    this.indent = -1;
    return found;
  }
}
