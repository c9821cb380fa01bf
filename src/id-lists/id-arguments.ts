import { UsageError } from '../errors/cli-error.js';

/*
 * Event ids given as arguments, checked before anything is sent, by every command that takes
 * them (show, alerts, set-state, review): an empty one (or only blanks) names no event. It is
 * most often a shell variable that is not set (`fraudctl show "$ID"`), so it is a usage error
 * (exit 2), also among other ids, rather than a request the service refuses or an id skipped
 * unseen. (A blank line in a --from file is layout, not an id: id-list.ts skips it.)
 */

/** Throws a usage error when an id is empty; `ids` as the command got them. */
export function checkIdArguments(ids: readonly string[]): void {
  const at = ids.findIndex((id) => id.trim() === '');
  if (at === -1) return;
  const which = ids.length === 1 ? 'the event id is empty' : `event id ${at + 1} of ${ids.length} is empty`;
  throw new UsageError(`${which}: it names no event, so nothing was sent`, 'an empty argument is often a shell variable that is not set');
}
