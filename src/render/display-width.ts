import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

/*
 * How many terminal columns text takes, and text cut to a number of columns: for output laid
 * out line by line rather than through cli-table3 (the review queue's screen, the list of many
 * events). One room for it, on string-width (East Asian wide characters and emoji take two
 * columns, combining marks and zero-width characters none, escape sequences none) and
 * cli-truncate (cuts with …, keeps and closes the colours of our own Style).
 *
 * The input is text already made terminal-safe (terminalSafe), possibly coloured by Style. A
 * terminal may disagree about a rare character; a cut line then ends one column early or late,
 * never on another line, because screens clear every line to its end when drawing it.
 */

/** Columns `text` takes; colour sequences take none. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/**
 * `text` cut to at most `width` columns, ending with `…` when something was cut. Colours are
 * kept, and one left open by the cut is closed. cli-truncate can end one column over when a
 * wide character sits at the cut, so it is asked again one narrower then.
 */
export function cutToWidth(text: string, width: number): string {
  const max = Math.max(0, Math.floor(width));
  if (max === 0) return '';
  if (stringWidth(text) <= max) return text;
  let shown = cliTruncate(text, max);
  for (let w = max - 1; w > 0 && stringWidth(shown) > max; w--) shown = cliTruncate(text, w);
  return shown;
}

/** `text` cut to `width` columns, then padded with spaces to exactly `width`. */
export function fitToWidth(text: string, width: number): string {
  const cut = cutToWidth(text, width);
  return cut + ' '.repeat(Math.max(0, width - displayWidth(cut)));
}

/**
 * `text` (safe, without colour) broken into lines of at most `width` columns, nothing left out,
 * between grapheme clusters (Intl.Segmenter), for what must be shown whole on a narrower
 * terminal (an id). No package breaks without word boundaries and without ANSI handling at
 * this size; wrap-ansi would, but only as a dependency of a dependency.
 */
export function breakToWidth(text: string, width: number): string[] {
  const max = Math.max(1, Math.floor(width));
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    const w = stringWidth(segment);
    if (used + w > max && line !== '') {
      lines.push(line);
      line = '';
      used = 0;
    }
    line += segment;
    used += w;
  }
  lines.push(line);
  return lines;
}
