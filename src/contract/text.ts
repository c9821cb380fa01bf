/*
 * Text the service refuses: a NUL (U+0000) or an unpaired surrogate (\ud800 without its pair)
 * in any string of a request body, answered `422 field:INVALID_CHARACTERS`.
 *
 * Why refuse rather than store them: a reviewer must see exactly what was sent, and neither
 * survives the trip through the places an event goes. SQLite's text API is C strings, so the
 * sandbox's libsql read a comment back cut at its NUL ("refund approved\0 -- NOT: known
 * fraudster" came back "refund approved"), and so do the exports, logs and terminals a comment
 * reaches later; PostgreSQL refuses \u0000 in text and jsonb outright. An unpaired surrogate is
 * not a Unicode character at all: it has no UTF-8 form, so SQLite (and every client that is not
 * JavaScript) turns it into U+FFFD, and the answer to a PATCH would differ from the next GET.
 * Neither belongs in a name, an address or a reviewer's note, so the 422 costs no honest client
 * anything; other control characters are kept as sent (clients make them safe on display).
 *
 * No imports: the CLI can use this to refuse such text before sending it.
 */

// With the u flag a surrogate range matches only unpaired halves: a pair is one code point.
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSAFE = /[\u0000\ud800-\udfff]/u;

export function hasUnsafeText(text: string): boolean {
  return UNSAFE.test(text);
}

/**
 * `field:INVALID_CHARACTERS` for every string (at any depth) holding a NUL or an unpaired
 * surrogate. A loop with its own stack, not recursion: a body may nest thousands deep.
 */
export function unsafeTextCodes(value: unknown): string[] {
  const codes: string[] = [];
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [v, path] = pending.pop()!;
    if (typeof v === 'string') {
      if (hasUnsafeText(v)) codes.push(`${path || 'body'}:INVALID_CHARACTERS`);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) pending.push([v[i], `${path}[${i}]`]);
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--)
        pending.push([entries[i]![1], path ? `${path}.${entries[i]![0]}` : entries[i]![0]]);
    }
  }
  return codes;
}
