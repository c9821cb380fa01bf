/*
 * How an API key may appear in anything fraudctl prints: at most its last four characters,
 * and those only when the key is long enough (12+) that four leave most of it hidden.
 */
export function redactKey(key: string | null | undefined): string {
  if (key === null || key === undefined || key === '') return '(none)';
  const chars = Array.from(key); // code points, so a surrogate pair is never cut in half
  return chars.length >= 12 ? `****${chars.slice(-4).join('')}` : '****';
}

/*
 * A key a server echoed back, in a text fraudctl prints (an error body, a code, the debug log):
 * replaced by "[redacted]". A key of MIN_SEARCHED_LENGTH characters or more is replaced wherever
 * it appears, glued to other text or not (`key%3D…`). A shorter one only where it stands as a
 * token of its own (no letter or digit on either side): searched everywhere, a one-letter key
 * "e" turned every message into "th[redacted] API k[redacted]y". Such a key is guessable in a
 * few hundred tries anyway, so the rare echo glued to a word is not worth every word it breaks;
 * it is not refused at login either, since the service sets no rule for its keys.
 */
export const MIN_SEARCHED_LENGTH = 8;

/** `text` with every appearance of `key` (as above) replaced by "[redacted]". */
export function redactKeyIn(text: string, key: string | null | undefined): string {
  if (!key) return text;
  if (key.length >= MIN_SEARCHED_LENGTH) return text.split(key).join('[redacted]');
  const escaped = key.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return text.replace(new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, 'g'), '[redacted]');
}
