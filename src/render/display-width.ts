import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { sym } from './symbols.js';

/*
 * How many terminal columns text takes, and text cut to a number of columns: for output laid
 * out line by line rather than through cli-table3 (the review queue's screen, the list of many
 * events). One room for it, on string-width (East Asian wide characters and emoji take two
 * columns, combining marks and zero-width characters none, escape sequences none) and
 * cli-truncate (cuts with …, keeps and closes the colours of our own Style), and wrap-ansi for
 * what must be shown whole rather than cut (an event id on the review screen, the `?` screen, an
 * item id in a narrow table).
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
  const cut = { truncationCharacter: sym.ellipsis };
  let shown = cliTruncate(text, max, cut);
  for (let w = max - 1; w > 0 && stringWidth(shown) > max; w--) shown = cliTruncate(text, w, cut);
  return shown;
}

/** `text` cut to `width` columns, then padded with spaces to exactly `width`. */
export function fitToWidth(text: string, width: number): string {
  const cut = cutToWidth(text, width);
  return cut + ' '.repeat(Math.max(0, width - displayWidth(cut)));
}

/**
 * `text` (safe, without colour) broken into lines of at most `width` columns, nothing left out,
 * anywhere in it (not only at spaces), for what must be shown whole on a narrower terminal (an id).
 */
export function breakToWidth(text: string, width: number): string[] {
  return wrapAnsi(text, Math.max(1, Math.floor(width)), { hard: true, wordWrap: false, trim: false }).split('\n');
}

/**
 * `text` over as many lines as it needs, none wider than `width` columns: broken at spaces, and a
 * word longer than a line broken inside it (never cut). Colours are kept.
 */
export function wrapToWidth(text: string, width: number): string[] {
  return wrapAnsi(text, Math.max(1, Math.floor(width)), { hard: true }).split('\n');
}
