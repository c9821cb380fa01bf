/*
 * Limits of the contract that the CLI checks before sending and the sandbox enforces. No
 * imports: the CLI's batch reader, set-state and the review queue use them without loading the
 * schemas (TypeBox).
 */

/** The largest request body the service accepts (contract.md: 1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The longest comment the service takes (contract.md: 4,000 characters), counted in Unicode
 * code points as JSON Schema's `maxLength` counts them (an emoji is one, not two UTF-16 units).
 * The sandbox's schemas (POST /event, PATCH …/state), set-state and the review comment line
 * all use this one number.
 */
export const MAX_COMMENT_LENGTH = 4000;

/** The length of a comment as the limit counts it: code points. */
export function commentLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** What is wrong with a comment the service would refuse for its length, in words; null when it fits. */
export function commentTooLong(text: string): string | null {
  const length = commentLength(text);
  if (length <= MAX_COMMENT_LENGTH) return null;
  return `the comment is ${length.toLocaleString('en-US')} characters long; the service takes at most ${MAX_COMMENT_LENGTH.toLocaleString('en-US')}`;
}

/** An event id (contract.md): 1 to 128 of these characters. Here, with no imports, for the readers of ids too. */
export const EVENT_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';
