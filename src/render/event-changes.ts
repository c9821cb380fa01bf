import stringWidth from 'string-width';
import type { Style } from './colours.js';
import { cutToWidth } from './display-width.js';
import { jsonForTerminal, terminalSafe } from './terminal-text.js';
import { sym } from './symbols.js';

/*
 * `show ID --watch`: what it watches of an event (state, decision, comments), and the
 * timestamped line it prints when one of them changes:
 *
 *   2026-11-20T22:45:01Z  state PENDING_REVIEW → IN_REVIEW · comments "called the customer"
 *
 * Values from the service pass terminalSafe; on a terminal the line is cut to its width.
 */

/** The fields a watch compares, as the service sent them (any JSON value, or undefined when absent). */
export interface Watched {
  state: unknown;
  decision: unknown;
  comments: unknown;
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return sym.dash;
  if (typeof value === 'string') return terminalSafe(value);
  try {
    return jsonForTerminal(value, false);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

const quoted = (value: unknown) => (typeof value === 'string' ? `"${terminalSafe(value)}"` : shown(value));
const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** `2026-11-20T22:45:01Z`: UTC to the second, as the service writes event dates. */
export function timestamp(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** True when state, decision or comments differ (by value). */
export function changed(before: Watched, after: Watched): boolean {
  return (
    !same(before.state, after.state) || !same(before.decision, after.decision) || !same(before.comments, after.comments)
  );
}

/** Where the watch starts: `<time>  state PENDING_REVIEW · decision REVIEW · comments –`. `decision` undefined: not watched (--json). */
export function renderWatchStart(at: Date, now: Watched, style: Style, columns: number | null): string {
  const parts = [`${style.dim('state')} ${style.bold(shown(now.state))}`];
  if (now.decision !== undefined)
    parts.push(
      `${style.dim('decision')} ${typeof now.decision === 'string' ? style.action(now.decision, shown(now.decision)) : shown(now.decision)}`,
    );
  parts.push(`${style.dim('comments')} ${quoted(now.comments)}`);
  return fit(`${style.dim(timestamp(at))}  ${parts.join(` ${sym.dot} `)}`, columns);
}

/** What changed: `<time>  state A → B · decision X → Y · comments "new"`. */
export function renderWatchChange(
  at: Date,
  before: Watched,
  after: Watched,
  style: Style,
  columns: number | null,
): string {
  const parts: string[] = [];
  if (!same(before.state, after.state))
    parts.push(`${style.dim('state')} ${shown(before.state)} ${sym.arrow} ${style.bold(shown(after.state))}`);
  if (!same(before.decision, after.decision))
    parts.push(
      `${style.dim('decision')} ${shown(before.decision)} ${sym.arrow} ${typeof after.decision === 'string' ? style.action(after.decision, shown(after.decision)) : shown(after.decision)}`,
    );
  if (!same(before.comments, after.comments))
    parts.push(
      after.comments === null || after.comments === undefined
        ? `${style.dim('comments')} removed`
        : `${style.dim('comments')} ${quoted(after.comments)}`,
    );
  return fit(`${style.dim(timestamp(at))}  ${parts.join(` ${sym.dot} `)}`, columns);
}

function fit(line: string, columns: number | null): string {
  return columns === null || stringWidth(line) <= columns ? line : cutToWidth(line, columns);
}
