import { Tokenizer, TokenType, type ParsedTokenInfo } from '@streamparser/json';

/*
 * JSON's syntax for a stream of values one after another: @streamparser/json's Tokenizer (bytes
 * → tokens with their byte offsets) and, here, the grammar over its tokens. The library's
 * TokenParser is not used for the grammar: it builds values (or, told to keep none, searches its
 * whole stack at every value to see whether one may be dropped), so its time grows with the
 * square of the nesting (a value 100,000 levels deep took seconds); this one holds one flag per
 * open level and checks a token in constant time. Invariant: it accepts exactly what the
 * TokenParser accepts with `separator: ''` (values one after another, whitespace between), holds
 * no value, and is linear in the input whatever its nesting.
 */

/** A token the grammar does not allow where it stands (the token, with its offset). */
export class GrammarError extends Error {
  constructor(readonly token: ParsedTokenInfo) {
    super(`unexpected ${TokenType[token.token]} ${JSON.stringify(token.value)}`);
  }
}

/** What the grammar takes next. */
const enum Expect {
  Value,
  /** Just after `[`: a value, or `]`. */
  ValueOrClose,
  Key,
  /** Just after `{`: a key, or `}`. */
  KeyOrClose,
  Colon,
  CommaOrClose,
}

const PRIMITIVES = new Set([TokenType.STRING, TokenType.NUMBER, TokenType.TRUE, TokenType.FALSE, TokenType.NULL]);

/** The grammar of values one after another: which token may come next, and how deep it stands. */
export class Grammar {
  /** One entry per open level: true for an array, false for an object. */
  private readonly arrays: boolean[] = [];
  private expect = Expect.Value;

  /** Levels open (0 between values at the top). */
  get depth(): number {
    return this.arrays.length;
  }

  /** Takes a token; false when it may not stand here (then the grammar is left as it was). */
  accept(token: TokenType): boolean {
    switch (this.expect) {
      case Expect.Value:
      case Expect.ValueOrClose:
        if (PRIMITIVES.has(token)) return this.afterValue();
        if (token === TokenType.LEFT_BRACE) return this.open(false);
        if (token === TokenType.LEFT_BRACKET) return this.open(true);
        return token === TokenType.RIGHT_BRACKET && this.expect === Expect.ValueOrClose && this.close();
      case Expect.Key:
      case Expect.KeyOrClose:
        if (token === TokenType.STRING) return this.next(Expect.Colon);
        return token === TokenType.RIGHT_BRACE && this.expect === Expect.KeyOrClose && this.close();
      case Expect.Colon:
        return token === TokenType.COLON && this.next(Expect.Value);
      case Expect.CommaOrClose: {
        const inArray = this.arrays[this.arrays.length - 1]!;
        if (token === TokenType.COMMA) return this.next(inArray ? Expect.Value : Expect.Key);
        return token === (inArray ? TokenType.RIGHT_BRACKET : TokenType.RIGHT_BRACE) && this.close();
      }
    }
  }

  /** True when every value given is whole (nothing open, no key waiting for its value). */
  complete(): boolean {
    return this.arrays.length === 0 && this.expect === Expect.Value;
  }

  private next(expect: Expect): true {
    this.expect = expect;
    return true;
  }

  private open(array: boolean): true {
    this.arrays.push(array);
    return this.next(array ? Expect.ValueOrClose : Expect.KeyOrClose);
  }

  private close(): true {
    this.arrays.pop();
    return this.afterValue();
  }

  private afterValue(): true {
    return this.next(this.arrays.length > 0 ? Expect.CommaOrClose : Expect.Value);
  }
}

/** A tokenizer whose whole tokens are checked by a grammar. */
export interface Syntax {
  tokenizer: Tokenizer;
  grammar: Grammar;
  /** The last whole token the grammar took or refused. */
  last(): ParsedTokenInfo | undefined;
  /** Ends the input: true when it ended between values (no token cut short, nothing left open). */
  end(): boolean;
}

/**
 * A tokenizer whose whole tokens go through the grammar (a token it refuses throws a
 * GrammarError from the tokenizer's write) and then to `onToken`, with the depth at which the
 * token stands (before it opens or closes a level). Partial tokens (a string or number still open
 * at the end of a write, with `partialTokens`) tell how long a value has run on; they go to
 * `onToken` only, never to the grammar.
 */
export function syntax(onToken: (token: ParsedTokenInfo, depth: number) => void, partialTokens = false): Syntax {
  const tokenizer = new Tokenizer({ emitPartialTokens: partialTokens });
  const grammar = new Grammar();
  let last: ParsedTokenInfo | undefined;
  tokenizer.onToken = (token) => {
    const depth = grammar.depth;
    if (!token.partial) {
      last = token;
      if (!grammar.accept(token.token)) throw new GrammarError(token);
    }
    onToken(token, depth);
  };
  return {
    tokenizer,
    grammar,
    last: () => last,
    end: () => {
      try {
        tokenizer.end();
      } catch {
        return false;
      }
      return grammar.complete();
    },
  };
}

/**
 * The byte (relative to the start of the last write) where the tokenizer found a byte that is no
 * JSON, or null. A TokenizerError carries this only in its message (no field holds it, as of
 * @streamparser/json 0.0.26), so it is read from there; a message in another shape gives null
 * and the caller falls back to the last token.
 */
export function tokenizerErrorAt(error: unknown): number | null {
  const at = /chunk position "(\d+)"/.exec(error instanceof Error ? error.message : '');
  return at ? Number(at[1]) : null;
}
