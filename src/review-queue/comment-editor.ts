import { commentLength, MAX_COMMENT_LENGTH } from '../contract/limits.js';
import { commentToSend } from '../state-changes/change-rules.js';
import { withReason } from '../state-changes/reasons.js';
import type { Key } from './queue-model.js';

/*
 * The comment line: a small line editor, pure (text + cursor in, text + cursor out).
 *
 * Why not @inquirer/prompts' `input`, as set-state uses: it owns the output stream and its own
 * readline while it runs, draws below the cursor and redraws on its own, so it cannot sit on
 * one line of a screen this loop draws whole on every change; and it has no "go back" (Esc)
 * that leaves the prompt without an answer but without cancelling the program. A dozen keys
 * of editing is less code than keeping two renderers from fighting over the terminal.
 */

export interface LineState {
  text: string;
  /** Index into `text`, in UTF-16 units, always on a code point boundary. */
  cursor: number;
}

export type EditResult =
  { kind: 'edit'; line: LineState } | { kind: 'submit' } | { kind: 'cancel' } | { kind: 'ignored' };

/** Printable text as typed or pasted: no controls (a paste's newlines and tabs become spaces). */
function typed(text: string): string {
  // eslint-disable-next-line no-control-regex -- what a terminal sends for control keys is not text
  return text.replace(/[\r\n\t]/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

function previousBoundary(text: string, i: number): number {
  if (i <= 0) return 0;
  const code = text.charCodeAt(i - 1);
  return code >= 0xdc00 && code <= 0xdfff && i >= 2 ? i - 2 : i - 1;
}

function nextBoundary(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const code = text.charCodeAt(i);
  return code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
}

export function editLine(line: LineState, text: string | undefined, key: Key): EditResult {
  const { text: value, cursor } = line;
  const edit = (t: string, c: number): EditResult => ({ kind: 'edit', line: { text: t, cursor: c } });
  if (key.name === 'return' || key.name === 'enter') return { kind: 'submit' };
  if (key.name === 'escape') return { kind: 'cancel' };
  if (key.ctrl) {
    switch (key.name) {
      case 'a':
        return edit(value, 0);
      case 'e':
        return edit(value, value.length);
      case 'u':
        return edit('', 0);
      case 'w': {
        let start = cursor;
        while (start > 0 && value[start - 1] === ' ') start--;
        while (start > 0 && value[start - 1] !== ' ') start--;
        return edit(value.slice(0, start) + value.slice(cursor), start);
      }
      case 'h':
        break;
      default:
        return { kind: 'ignored' };
    }
  }
  switch (key.name) {
    case 'backspace':
    case 'h': {
      if (key.name === 'h' && !key.ctrl) break;
      const start = previousBoundary(value, cursor);
      return edit(value.slice(0, start) + value.slice(cursor), start);
    }
    case 'delete':
      return edit(value.slice(0, cursor) + value.slice(nextBoundary(value, cursor)), cursor);
    case 'left':
      return edit(value, previousBoundary(value, cursor));
    case 'right':
      return edit(value, nextBoundary(value, cursor));
    case 'home':
      return edit(value, 0);
    case 'end':
      return edit(value, value.length);
    case 'up':
    case 'down':
    case 'pageup':
    case 'pagedown':
    case 'tab':
      return { kind: 'ignored' };
  }
  if (key.meta || text === undefined) return { kind: 'ignored' };
  return insertText(line, text);
}

/**
 * Text put in at the cursor, as typed or pasted: one line (a paste's line breaks and tabs become
 * spaces, a CR LF one space), controls dropped, up to the service's limit.
 */
export function insertText(line: LineState, text: string): EditResult {
  const { text: value, cursor } = line;
  const insert = typed(text.replace(/\r\n/g, '\n'));
  if (insert === '') return { kind: 'ignored' };
  // The service's limit, counted as it counts (code points): what goes past it is not taken.
  const room = MAX_COMMENT_LENGTH - commentLength(value);
  if (room <= 0) return { kind: 'ignored' };
  const piece = Array.from(insert).slice(0, room).join('');
  return {
    kind: 'edit',
    line: { text: value.slice(0, cursor) + piece + value.slice(cursor), cursor: cursor + piece.length },
  };
}

/** What Enter on the comment line sends: the comment (null: none, the state alone), and whether the event's stays. */
export interface CommentPlan {
  comments: string | null;
  /** The event has a comment, and it stays (nothing sent for it, or the new text after it). */
  keeps: boolean;
  /** Nothing typed: the state alone, or the reason alone. */
  empty: boolean;
}

/**
 * What the comment line sends for `text` on an event whose comment is `existing`: the reason at
 * the head of what is typed (set-state's form), kept after the event's comment or replacing it as
 * `keep` says. With nothing typed the event's comment always stays: an empty comment never
 * erases a note, and a reason alone goes after it (`note | [reason: CODE]`).
 */
export function commentPlan(existing: string | null, text: string, reason: string | null, keep: boolean): CommentPlan {
  const typed = text.trim() === '' ? null : text.trim();
  const has = existing !== null && existing.trim() !== '';
  const added = withReason(reason, typed) ?? null;
  if (added === null) return { comments: null, keeps: has, empty: true };
  const keeps = has && (keep || typed === null);
  return { comments: commentToSend(existing, added, keeps), keeps, empty: typed === null };
}
