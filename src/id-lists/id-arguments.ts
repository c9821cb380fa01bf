import { UsageError } from '../errors/cli-error.js';
import { EVENT_ID_PATTERN } from '../contract/limits.js';

/*
 * Event ids given as arguments, checked before anything is sent, by every command that takes
 * them (show, alerts, set-state, review): an empty one (or only blanks) names no event. It is
 * most often a shell variable that is not set (`fraudctl show "$ID"`), so it is a usage error
 * (exit 2), also among other ids, rather than a request the service refuses or an id skipped
 * unseen. (A blank line in a --from file is layout, not an id: id-list.ts skips it.)
 *
 * Ids pasted from a ticket or a chat come as one string ("ord-1, ord-2; ord-3", `["ord-1",
 * "ord-2"]`): they are split where an id cannot go on (contract.md: ids are [A-Za-z0-9._:-]),
 * at the blanks and the marks that list or quote ids. Other characters no id holds (`/`, `=`,
 * letters beyond ASCII) stay in the id, which the service then calls malformed: they are more
 * likely a mistyped id than a separator, and splitting there would look up ids nobody meant.
 */

/** Runs of what separates ids in a pasted list: blanks, commas, semicolons, bars, quotes, brackets. */
const SEPARATORS = /[\s,;|"'`()[\]]+/;

/** A string that can be an event id as the contract writes them. */
export const isEventId = (text: string): boolean => EVENT_ID.test(text);
const EVENT_ID = new RegExp(EVENT_ID_PATTERN);

/**
 * The ids in `text`, split at separators (none for blank text or separators alone). With
 * `comments` (a line of a file), a `#` that starts a word starts a comment: the rest is not ids.
 */
export function splitIds(text: string, comments = false): string[] {
  const ids: string[] = [];
  for (const word of text.split(SEPARATORS)) {
    if (comments && word.startsWith('#')) break;
    if (word !== '') ids.push(word);
  }
  return ids;
}

/** Throws a usage error when an argument names no id; `ids` as the command got them. */
export function checkIdArguments(ids: readonly string[]): void {
  const at = ids.findIndex((id) => splitIds(id).length === 0);
  if (at === -1) return;
  const which = ids.length === 1 ? 'the event id is empty' : `event id ${at + 1} of ${ids.length} is empty`;
  throw new UsageError(
    `${which}: it names no event, so nothing was sent`,
    'an empty argument is often a shell variable that is not set',
  );
}

/** The ids of the arguments, a pasted list split into its ids; a usage error when an argument names none. */
export function idArguments(args: readonly string[]): string[] {
  checkIdArguments(args);
  return args.flatMap((arg) => splitIds(arg));
}
