import { emptyGroups, type Group, type Model } from './queue-model.js';

/*
 * What became of each id of the queue: one outcome an id (model.outcomes), from which the
 * summary's groups and their details are derived (groupsOf, detailsOf), so an id cannot be in
 * two groups. When an id could end in two (commented, then approved; given back, then the
 * give-back failed), it keeps the one that says more (GROUP_RANK). Within a group, ids are in
 * the order they were settled there.
 */

/** Which outcome an id keeps when it could have two: the higher rank. */
const GROUP_RANK: Readonly<Record<Group, number>> = {
  stillClaimed: 5,
  approved: 4,
  declined: 4,
  escalated: 4,
  fraudConfirmed: 4,
  notSent: 3,
  commented: 2,
  givenBack: 1,
  leftUndecided: 1,
  skipped: 1,
  notFound: 0,
  invalidId: 0,
  refused: 0,
  otherState: 0,
  claimedElsewhere: 0,
  unreadable: 0,
  notReached: 0,
};

/** `outcomes` with `id` (re)settled last: moved to the end, so each group lists its ids in the order they came. */
function settled(model: Model, id: string, group: Group, detail: string | undefined): Model {
  const outcomes = new Map(model.outcomes);
  outcomes.delete(id);
  outcomes.set(id, detail === undefined ? { group } : { group, detail });
  return { ...model, outcomes };
}

/** Puts `id` in `group` (with why, for the summary), unless its outcome already says more. */
export function withOutcome(model: Model, group: Group, id: string, detail?: string): Model {
  const was = model.outcomes.get(id);
  if (was !== undefined && GROUP_RANK[was.group] >= GROUP_RANK[group]) return model;
  return settled(model, id, group, detail);
}

/** Puts `id` in `group` whatever it was in (a state read again after the queue passed it over). */
export function withOutcomeReplaced(model: Model, group: Group, id: string, detail?: string): Model {
  return settled(model, id, group, detail);
}

/** The session ends: every id of the queue with no outcome was not reached. */
export function withNotReached(model: Model): Model {
  const outcomes = new Map(model.outcomes);
  for (const { id } of model.entries) if (!outcomes.has(id)) outcomes.set(id, { group: 'notReached' });
  return { ...model, outcomes };
}

/** The summary's groups: every id under its outcome's group, and the lines that held no id under `unreadable`. */
export function groupsOf(model: Model): Record<Group, string[]> {
  const groups = emptyGroups();
  for (const [id, { group }] of model.outcomes) groups[group].push(id);
  groups.unreadable.push(...model.unreadable);
  return groups;
}

/** Why an id is in its group, for the ids whose group alone does not say. */
export function detailsOf(model: Model): Map<string, string> {
  const details = new Map<string, string>();
  for (const [id, { detail }] of model.outcomes) if (detail !== undefined) details.set(id, detail);
  return details;
}
