/*
 * How an API key may appear in anything fraudctl prints: at most its last four characters,
 * and those only when the key is long enough (12+) that four leave most of it hidden.
 */
export function redactKey(key: string | null | undefined): string {
  if (key === null || key === undefined || key === '') return '(none)';
  const chars = Array.from(key); // code points, so a surrogate pair is never cut in half
  return chars.length >= 12 ? `****${chars.slice(-4).join('')}` : '****';
}
