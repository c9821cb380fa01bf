/*
 * How many terminal columns text takes, and text cut to a number of columns: for screens that
 * lay text out themselves (the review queue) rather than through cli-table3.
 *
 * The input is text already made terminal-safe (terminalSafe) and possibly coloured by our own
 * Style: the only escape sequences left are SGR (`ESC[…m`), which take no columns and are kept.
 * Widths follow wcwidth in spirit: combining marks, zero-width joiners and variation selectors
 * take none; East Asian wide and fullwidth characters and emoji take two; everything else one.
 * A terminal may disagree on a rare character; a cut line then ends one column early or late,
 * never on another line, because every line is also cleared to its end when drawn.
 */

// eslint-disable-next-line no-control-regex -- our own SGR sequences are what this skips
const SGR_AT = /\x1b\[[0-9;]*m/y;
const COMBINING = /^[\p{Mn}\p{Me}]$/u;

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x231a && code <= 0x231b) ||
    (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

/** Columns one code point takes. */
export function charWidth(ch: string): 0 | 1 | 2 {
  const code = ch.codePointAt(0) ?? 0;
  // Zero-width space and joiners, word joiner, variation selectors.
  if ((code >= 0x200b && code <= 0x200d) || code === 0x2060 || (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef)) return 0;
  if (code >= 0x300 && COMBINING.test(ch)) return 0;
  return isWide(code) ? 2 : 1;
}

/** Columns `text` takes; SGR sequences take none. */
export function displayWidth(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) === 0x1b) {
      SGR_AT.lastIndex = i;
      if (SGR_AT.test(text)) {
        i = SGR_AT.lastIndex;
        continue;
      }
    }
    const ch = String.fromCodePoint(text.codePointAt(i) ?? 0);
    width += charWidth(ch);
    i += ch.length;
  }
  return width;
}

/**
 * `text` cut to at most `width` columns, ending with `…` when something was cut. SGR sequences
 * are kept, and a colour left open by the cut is closed, so the next line starts plain.
 */
export function cutToWidth(text: string, width: number): string {
  const max = Math.max(0, Math.floor(width));
  // Pieces kept so far: a code point with its width, or an SGR sequence (width 0, sgr true).
  const kept: { text: string; width: number; sgr: boolean }[] = [];
  let used = 0;
  let coloured = false;
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) === 0x1b) {
      SGR_AT.lastIndex = i;
      if (SGR_AT.test(text)) {
        kept.push({ text: text.slice(i, SGR_AT.lastIndex), width: 0, sgr: true });
        coloured = true;
        i = SGR_AT.lastIndex;
        continue;
      }
    }
    const ch = String.fromCodePoint(text.codePointAt(i) ?? 0);
    const w = charWidth(ch);
    if (used + w > max || (used + w === max && w > 0 && hasVisibleAfter(text, i + ch.length))) {
      // Room for the marker: give back printable pieces (and the colours that went with them).
      while (used > max - 1 && kept.length > 0) used -= kept.pop()!.width;
      while (kept.length > 0 && kept[kept.length - 1]!.sgr) kept.pop();
      return `${kept.map((p) => p.text).join('')}${max > 0 ? '…' : ''}${coloured ? '\x1b[0m' : ''}`;
    }
    kept.push({ text: ch, width: w, sgr: false });
    used += w;
    i += ch.length;
  }
  return text;
}

/** Whether anything after index `from` takes a column (SGR does not). */
function hasVisibleAfter(text: string, from: number): boolean {
  for (let i = from; i < text.length; ) {
    if (text.charCodeAt(i) === 0x1b) {
      SGR_AT.lastIndex = i;
      if (SGR_AT.test(text)) {
        i = SGR_AT.lastIndex;
        continue;
      }
    }
    const ch = String.fromCodePoint(text.codePointAt(i) ?? 0);
    if (charWidth(ch) > 0) return true;
    i += ch.length;
  }
  return false;
}

/** `text` cut to `width` columns, then padded with spaces to exactly `width`. */
export function fitToWidth(text: string, width: number): string {
  const cut = cutToWidth(text, width);
  return cut + ' '.repeat(Math.max(0, width - displayWidth(cut)));
}
