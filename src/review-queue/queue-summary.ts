import type { Style } from '../render/colours.js';
import { cutToWidth, displayWidth, wrapToWidth } from '../render/display-width.js';
import { count } from '../render/counts.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import { GROUP_ORDER, type Group, type Model } from './queue-model.js';
import { detailsOf, groupsOf, withOutcomeReplaced } from './queue-outcomes.js';
import { shellCommand } from '../render/shell-command.js';
import { durationText } from '../render/ages.js';

/*
 * The end-of-session record, printed on stdout after the screen is gone: a count and the ids of
 * every group (each id once: the groups are derived from the one outcome of each id,
 * queue-outcomes.ts), split by why where the group alone does not say (the state an
 * event was in, the service's answer to an id it refused), then anything that needs a person's
 * attention (claims that could not be given back, a log that could not be written) and the
 * command that takes the events claimed by others.
 */

export const GROUP_LABELS: Readonly<Record<Group, string>> = {
  approved: 'approved',
  declined: 'declined',
  escalated: 'escalated',
  fraudConfirmed: 'fraud confirmed',
  commented: 'commented',
  givenBack: 'given back',
  leftUndecided: 'left undecided',
  skipped: 'skipped',
  notFound: 'not found',
  invalidId: 'invalid id',
  refused: 'refused',
  otherState: 'in state',
  claimedElsewhere: 'claimed by others',
  notSent: 'not sent (failed)',
  notReached: 'not reached',
  unreadable: 'unreadable lines',
  stillClaimed: 'STILL CLAIMED',
};

/** How the label names the detail: `in state ON_HOLD`, `invalid id (422 eventId:INVALID_FORMAT)`. */
function labelWith(group: Group, detail: string | undefined): string {
  if (detail === undefined) return GROUP_LABELS[group];
  const safeDetail = terminalSafe(truncate(detail, 80));
  return group === 'otherState' ? `${GROUP_LABELS[group]} ${safeDetail}` : `${GROUP_LABELS[group]} (${safeDetail})`;
}

/** An id as the summary lists it: made safe, and quoted when it holds a space (or is empty), so the list stays readable. */
function shownId(raw: string): string {
  // An id is at most 128 characters in the contract; one from a list that is longer is cut here.
  const id = terminalSafe(truncate(raw, 140));
  return id === '' || /\s/.test(id) ? JSON.stringify(id) : id;
}

/**
 * Ids wrapped to the width after a head of `indent` columns, never cut: when the first id does not
 * fit after the head, they all start on the next line, less indented.
 */
function idLines(ids: readonly string[], indent: number, width: number): string[] {
  const shown = ids.map(shownId);
  const at = indent + Math.max(0, ...shown.map((id) => id.length)) <= width ? indent : 4;
  const lines: string[] = at === indent ? [] : [''];
  let line = '';
  for (const id of shown) {
    if (line && at + line.length + 2 + id.length > width) {
      lines.push(line);
      line = '';
    }
    line += line ? `  ${id}` : id;
  }
  if (line) lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : `${' '.repeat(at)}${l}`));
}

export interface SummaryOptions {
  /** The --log file, if any. */
  logPath: string | null;
  /** Options of this run a command in a hint must repeat to reach the same service (`--profile x`). */
  serviceFlags: readonly string[];
  /** `--sla` (ms), or null; and the time the summary is made, against which an event is overdue. */
  sla?: number | null;
  now?: number;
  /** `--all-ids`: the ids not reached listed too; by default their count, and the id they start from. */
  allIds?: boolean;
}

/** Prose at `indent`, wrapped at words to the width (a terminal would break it mid-word). */
function prose(text: string, indent: number, width: number): string[] {
  return wrapToWidth(text, width - indent).map((line) => `${' '.repeat(indent)}${line}`);
}

const DECIDED: ReadonlySet<Group> = new Set(['approved', 'declined', 'escalated', 'fraudConfirmed']);
/** Still awaiting review as far as the session knows; an event decided elsewhere, not found or refused is neither decided nor left. */
const LEFT: ReadonlySet<Group> = new Set([
  'commented',
  'givenBack',
  'leftUndecided',
  'skipped',
  'claimedElsewhere',
  'notSent',
  'notReached',
  'stillClaimed',
]);

/**
 * With --sla, among the events whose date is known (read by --sort, or on the way to their
 * screen): how many this session decided past their deadline (judged when the decision was
 * answered), and how many are left past it at the end of the session (given back, passed over,
 * not reached). Null without --sla.
 */
export function overdueCounts(model: Model, sla: number | null, now: number): { decided: number; left: number } | null {
  if (sla === null) return null;
  const counts = { decided: 0, left: 0 };
  for (const [id, at] of model.eventDates) {
    const group = model.outcomes.get(id)?.group ?? 'notReached';
    if (DECIDED.has(group)) {
      if ((model.decidedAt.get(id) ?? now) - at > sla) counts.decided++;
    } else if (LEFT.has(group) && now - at > sla) counts.left++;
  }
  return counts;
}

export function renderSessionSummary(model: Model, style: Style, width: number, options: SummaryOptions): string {
  const w = Math.max(40, width);
  const lines: string[] = [];
  const ended = model.fatal
    ? 'stopped'
    : model.quitting === 'interrupt'
      ? 'interrupted'
      : model.quitting === 'quit'
        ? 'quit'
        : 'queue done';
  const events = `${count(model.entries.length)} event${model.entries.length === 1 ? '' : 's'}`;
  lines.push(...prose(style.bold(`Review session (${ended}): ${events} in the queue`), 0, w));
  // One row per group, or per group and detail (the ids in the order they came).
  const groups = groupsOf(model);
  const details = detailsOf(model);
  const rows: { group: Group; label: string; ids: string[] }[] = [];
  for (const group of GROUP_ORDER) {
    const byLabel = new Map<string, string[]>();
    for (const id of groups[group]) {
      const label = labelWith(group, details.get(id));
      byLabel.set(label, [...(byLabel.get(label) ?? []), id]);
    }
    for (const [label, ids] of byLabel) rows.push({ group, label, ids });
  }
  // A label too long for the width (a long state name) takes lines of its own, and does not widen the others.
  const fits = (label: string) => 2 + label.length + 2 + 6 + 2 + 12 <= w;
  const labelWidth = Math.max(18, ...rows.filter((r) => fits(r.label)).map((r) => r.label.length)) + 2;
  const countWidth = Math.max(4, ...rows.map((r) => count(r.ids.length).length));
  for (const { group, label, ids } of rows) {
    const colour = (text: string) => (group === 'stillClaimed' ? style.decline(text) : text);
    const own = !fits(label);
    if (own) lines.push(...prose(label, 2, w).map(colour));
    const head = `  ${(own ? '' : label).padEnd(labelWidth)}${count(ids.length).padStart(countWidth)}  `;
    // What was not reached can be most of a long queue: counted, so that the decisions above stay in sight.
    if (group === 'notReached' && !options.allIds && ids.length > 1) {
      lines.push(...prose(`${head.trimStart()}from ${shownId(ids[0]!)} on (--all-ids lists them)`, 2, w));
      continue;
    }
    const [first = '', ...rest] = idLines(ids, head.length, w);
    lines.push(colour(`${head}${first}`.trimEnd()), ...rest);
  }
  const overdue = overdueCounts(model, options.sla ?? null, options.now ?? Date.now());
  if (overdue) {
    const total = overdue.decided + overdue.left;
    const text = `  ${`overdue (SLA ${durationText(options.sla!)})`.padEnd(labelWidth)}${String(total).padStart(4)}  ${overdue.decided} decided, ${overdue.left} left`;
    lines.push(overdue.left > 0 ? style.decline(text) : text);
  }
  const claimed = groups.claimedElsewhere;
  if (claimed.length > 0) {
    const command = shellCommand(['fraudctl', 'review', ...options.serviceFlags, '--include-claimed', ...claimed]);
    // A command stays on one line whatever the width: broken over two, it could not be pasted.
    const why = 'To take them over (when the session that claimed them ended without giving them back):';
    lines.push(...prose(why, 2, w), `  ${terminalSafe(command)}`);
  }
  if (groups.stillClaimed.length > 0) {
    // --include-claimed: set-state asks before it changes an event held IN_REVIEW, and these are this session's own.
    const giveBack = shellCommand([
      'fraudctl',
      'set-state',
      ...options.serviceFlags,
      ...groups.stillClaimed,
      '--state',
      'PENDING_REVIEW',
      '--include-claimed',
    ]);
    const still = prose('These events are still IN_REVIEW under this session: give them back with', 2, w);
    lines.push(...still.map((l) => style.decline(l)));
    lines.push(style.decline(`  ${terminalSafe(giveBack)}`));
  }
  const { logPath } = options;
  // The session ended at the log's first failure, sending nothing it could not log; only claims given back after it may be missing.
  if (logPath) {
    const problem = model.logProblem
      ? style.decline(
          ` (the session ended here: ${terminalSafe(model.logProblem)}; ` +
            'claims given back after that may be missing from it)',
        )
      : '';
    lines.push(...prose(`log: ${terminalSafe(logPath)}${problem}`, 2, w));
  }
  return lines.map((l) => (displayWidth(l) > 4 * w ? cutToWidth(l, w) : l)).join('\n');
}

/** The most ids claimed by others the summary reads again (in parallel, a few at a time). */
export const MAX_RECHECKED = 100;

/**
 * The summary as of now, not as of when the queue passed these events over: an id listed as
 * claimed by others whose state (read again just before the summary, `now`) is no longer
 * IN_REVIEW was decided or given back since, and is listed by its state instead, out of the
 * --include-claimed hint. Ids not read again (a failed read, past MAX_RECHECKED) stay as they were.
 */
export function withClaimsRechecked(model: Model, now: ReadonlyMap<string, string>): Model {
  const moved = groupsOf(model).claimedElsewhere.filter((id) => now.has(id) && now.get(id) !== 'IN_REVIEW');
  return moved.reduce(
    (next, id) => withOutcomeReplaced(next, 'otherState', id, `${now.get(id)!} (changed since it was passed over)`),
    model,
  );
}
