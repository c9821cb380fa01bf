import { TokenParser, Tokenizer, type ParsedTokenInfo } from '@streamparser/json';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Grammar, GrammarError, syntax } from '../../../src/submit-batch/input-records/grammar.js';

/** The tokens of `text`, as far as the tokenizer takes it (the grammar is what is compared). */
function tokensOf(text: string): ParsedTokenInfo[] {
  const tokens: ParsedTokenInfo[] = [];
  const tokenizer = new Tokenizer();
  tokenizer.onToken = (token) => tokens.push(token);
  try {
    tokenizer.write(text);
    tokenizer.end();
  } catch {
    // What came before stands.
  }
  return tokens;
}

/** How far the library's TokenParser (as the reader used it) takes the tokens: the first refused, and whether it ends whole. */
function libraryVerdict(tokens: ParsedTokenInfo[]): { refused: number; whole: boolean } {
  const parser = new TokenParser({ paths: ['$.\u0000none'], keepStack: false, separator: '' });
  parser.onValue = () => {};
  for (let i = 0; i < tokens.length; i++) {
    try {
      parser.write(tokens[i]!);
    } catch {
      return { refused: i, whole: false };
    }
  }
  try {
    parser.end();
    return { refused: -1, whole: true };
  } catch {
    return { refused: -1, whole: false };
  }
}

function ourVerdict(tokens: ParsedTokenInfo[]): { refused: number; whole: boolean } {
  const grammar = new Grammar();
  for (let i = 0; i < tokens.length; i++) if (!grammar.accept(tokens[i]!.token)) return { refused: i, whole: false };
  return { refused: -1, whole: grammar.complete() };
}

describe('the grammar of values one after another', () => {
  it('refuses the same token as @streamparser/json TokenParser, and ends whole when it does, for any tokens', () => {
    const fragment = fc.constantFrom('{', '}', '[', ']', ':', ',', '"k"', '1', 'true', 'null', ' ', '\n');
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 40 }), (parts) => {
        const tokens = tokensOf(parts.join(' '));
        expect(ourVerdict(tokens)).toEqual(libraryVerdict(tokens));
      }),
      { numRuns: 5000, seed: 26 },
    );
  });

  it.each([
    ['values one after another', '{"a":[1,{}]} [] "s" 1 ', -1, true],
    ['an empty object and array', '{} []', -1, true],
    ['a comma before a closing bracket', '[1,]', 3, false],
    ['a comma before a closing brace', '{"a":1,}', 5, false],
    ['a key without its value', '{"a"}', 2, false],
    ['a bracket closing a brace', '{"a":1]', 4, false],
    ['a value left open', '{"a":[1', -1, false],
    ['a closing bracket at the top', ']', 0, false],
  ])('%s', (_what, text, refused, whole) => {
    const tokens = tokensOf(text);
    expect(ourVerdict(tokens)).toEqual({ refused, whole });
    expect(libraryVerdict(tokens)).toEqual({ refused, whole });
  });

  it('a refused token is thrown as a GrammarError carrying the token and its offset', () => {
    const checked = syntax(() => {});
    let error: unknown;
    try {
      checked.tokenizer.write('{"a":1 ]');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GrammarError);
    expect((error as GrammarError).token).toMatchObject({ value: ']', offset: 7 });
  });
});
