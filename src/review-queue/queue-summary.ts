import type { Style } from '../render/colours.js';
import { cutToWidth } from '../render/display-width.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import { GROUP_ORDER, type Group, type Model } from './queue-model.js';

/*
 * The end-of-session record, printed on stdout after the screen is gone: a count and the ids of
 * every group, then anything that needs a person's attention (claims that could not be given
 * back, a log that could not be written).
 */

export const GROUP_LABELS: Readonly<Record<Group, string>> = {
  approved: 'approved',
  declined: 'declined',
  escalated: 'escalated',
  fraudConfirmed: 'fraud confirmed',
  commented: 'commented',
  skipped: 'skipped',
  notFound: 'not found',
  alreadyHandled: 'already handled',
  claimedElsewhere: 'claimed by others',
  notSent: 'not sent (failed)',
  notReached: 'not reached',
  unreadable: 'unreadable lines',
  stillClaimed: 'STILL CLAIMED',
};

/** Ids wrapped to the width, each made safe and cut (an id is at most 128 characters in the contract). */
function idLines(ids: readonly string[], indent: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const raw of ids) {
    const id = terminalSafe(truncate(raw, 140));
    if (line && indent + line.length + 2 + id.length > width) {
      lines.push(line);
      line = '';
    }
    line += line ? `  ${id}` : id;
  }
  if (line) lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : `${' '.repeat(indent)}${l}`));
}

export function renderSessionSummary(model: Model, style: Style, width: number, logPath: string | null): string {
  const w = Math.max(40, width);
  const lines: string[] = [];
  const ended = model.fatal ? 'stopped' : model.quitting === 'interrupt' ? 'interrupted' : model.quitting === 'quit' ? 'quit' : 'queue done';
  lines.push(style.bold(`Review session (${ended}): ${model.entries.length} event${model.entries.length === 1 ? '' : 's'} in the queue`));
  const labelWidth = Math.max(...GROUP_ORDER.map((g) => GROUP_LABELS[g].length)) + 2;
  for (const group of GROUP_ORDER) {
    const ids = model.groups[group];
    if (ids.length === 0) continue;
    const head = `  ${GROUP_LABELS[group].padEnd(labelWidth)}${String(ids.length).padStart(4)}  `;
    const [first = '', ...rest] = idLines(ids, head.length, w);
    const text = `${head}${first}`;
    lines.push(group === 'stillClaimed' ? style.decline(text) : text, ...rest);
  }
  if (model.groups.stillClaimed.length > 0) {
    lines.push(style.decline('  These events are still IN_REVIEW under this session: give them back with'));
    lines.push(style.decline('  fraudctl set-state ID --state PENDING_REVIEW'));
  }
  if (logPath) lines.push(`  log: ${terminalSafe(logPath)}${model.logProblem ? style.decline(` (incomplete: ${terminalSafe(model.logProblem)})`) : ''}`);
  return lines.map((l) => (l.length > 4 * w ? cutToWidth(l, w) : l)).join('\n');
}
