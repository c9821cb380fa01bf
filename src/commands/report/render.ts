import { stringify, type Options } from 'csv-stringify/sync';
import type { Style } from '../../render/colours.js';
import { durationText } from '../../render/ages.js';
import { count } from '../../render/counts.js';
import { displayWidth, wrapToWidth } from '../../render/display-width.js';
import { createTable, joinBlocks, tableText } from '../../render/tables.js';
import { sym } from '../../render/symbols.js';
import { terminalSafe } from '../../render/terminal-text.js';
import type { AnalystFigures, Spread, TeamTally } from './team-tally.js';

/*
 * `fraudctl report` as a person reads it (tables fitted to the terminal; on a terminal only, bar
 * charts of the time from claim to decision and of decisions per hour), as one JSON object, or as CSV for a spreadsheet (one
 * row per analyst; RFC 4180 by csv-stringify, formulas escaped, as `show --csv`:
 * src/event-lists/event-list-csv.ts). Analyst names and reasons come from the logs: terminal-safe text.
 */

export interface OtherService {
  /** Its base URL; null: the embedded sandbox. */
  service: string | null;
  /** The profiles its lines name. */
  profiles: readonly string[];
  lines: number;
  decisions: number;
  /** The report run there (through the one profile its lines name), or null. */
  command: string | null;
}

export interface ReportFacts {
  files: readonly string[];
  /** The service this run reads (null: the embedded sandbox): the one the figures are of. */
  service: string | null;
  since: number | null;
  until: number | null;
  slaMs: number | null;
  lines: number;
  unreadable: number;
  /** With --include-unverified: the lines read that break the hash chain; null without it (then there are none). */
  unverified: { lines: number; byKind: Record<string, number>; note: string | null } | null;
  /** Distinct events decided, each read once (GET) now for overturned and age. */
  eventsDecided: number;
  eventsRead: number;
  /** Why the other decided events were not read. */
  notRead: readonly { why: string; count: number }[];
  /** Lines of other services than this run's: left out of the figures. */
  otherServices: readonly OtherService[];
  analysts: readonly AnalystFigures[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 1000));

/** `45s`, `12m 5s`, `3h 5m`, `2d 4h`: the one form of a duration (render/ages.ts), to the second: a report is a snapshot. */
const duration = (ms: number | null) => durationText(ms, 's');

const spreadJson = (s: Spread) => ({ count: s.count, medianSeconds: seconds(s.median), p90Seconds: seconds(s.p90) });

export function reportJson(facts: ReportFacts): unknown {
  return {
    files: facts.files,
    service: facts.service,
    since: iso(facts.since),
    until: iso(facts.until),
    slaSeconds: seconds(facts.slaMs),
    lines: { read: facts.lines, unreadable: facts.unreadable, unverified: facts.unverified?.lines ?? 0 },
    unverified:
      facts.unverified === null
        ? null
        : { lines: facts.unverified.lines, byKind: facts.unverified.byKind, note: facts.unverified.note },
    eventsDecided: facts.eventsDecided,
    eventsRead: facts.eventsRead,
    eventsNotRead: facts.notRead.map((r) => ({ count: r.count, why: r.why })),
    otherServices: facts.otherServices.map((o) => ({
      service: o.service,
      profiles: o.profiles,
      lines: o.lines,
      decisions: o.decisions,
    })),
    analysts: facts.analysts.map((a) => ({
      analyst: a.analyst,
      decisions: a.decisions,
      byKind: a.byKind,
      byReason: a.byReason,
      unknownOutcome: a.unknownOutcome,
      timeToDecision: spreadJson(a.timeToDecision),
      ageAtDecision: spreadJson(a.ageAtDecision),
      pastSla: a.pastSla,
      overturned: a.overturned,
      unchecked: a.unchecked,
      unverified: a.unverified,
    })),
  };
}

const CSV_OPTIONS: Options = { escape_formulas: true, quoted_string: true, record_delimiter: 'windows', eof: true };

/**
 * One row per analyst; a column per set-state target and per reason seen in any row; the last,
 * `unverified`, counts the decisions read from lines that break the chain (--include-unverified).
 */
export function reportCsv(facts: ReportFacts): string {
  const keysOf = (pick: (a: AnalystFigures) => Record<string, number>, skip: ReadonlySet<string> = new Set()) =>
    [...new Set(facts.analysts.flatMap((a) => Object.keys(pick(a))))].filter((k) => !skip.has(k)).sort();
  const fixed = ['approve', 'decline', 'escalate', 'fraud'];
  const targets = keysOf((a) => a.byKind, new Set(fixed));
  const reasons = keysOf((a) => a.byReason);
  const header = [
    'analyst',
    'decisions',
    ...fixed,
    ...targets,
    ...reasons.map((r) => `reason:${terminalSafe(r)}`),
    'unknown outcome',
    'time to decision median (s)',
    'time to decision p90 (s)',
    'age at decision median (s)',
    'past sla',
    'overturned',
    'unchecked',
    'unverified',
  ];
  const blank = (n: number | null) => n ?? '';
  const rows = facts.analysts.map((a) => [
    terminalSafe(a.analyst),
    a.decisions,
    ...fixed.map((k) => a.byKind[k] ?? 0),
    ...targets.map((k) => a.byKind[k] ?? 0),
    ...reasons.map((r) => a.byReason[r] ?? 0),
    a.unknownOutcome,
    blank(seconds(a.timeToDecision.median)),
    blank(seconds(a.timeToDecision.p90)),
    blank(seconds(a.ageAtDecision.median)),
    blank(a.pastSla),
    a.overturned,
    a.unchecked,
    a.unverified,
  ]);
  return stringify([header, ...rows], CSV_OPTIONS);
}

/** The set-state decisions of a row by target: `PENDING_REVIEW 2`. */
function setStateCell(byKind: Record<string, number>): string {
  const parts = Object.entries(byKind)
    .filter(([k]) => k.startsWith('set-state:'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${terminalSafe(k.slice('set-state:'.length))} ${count(n)}`);
  return parts.length === 0 ? '0' : parts.join('\n');
}

/**
 * A table whose columns after the first keep their words whole on a narrow terminal: each column's
 * floor is its longest word (head or cell) or, for `whole` columns, its widest cell; the heads and
 * the first column (names) wrap at spaces to fit.
 */
function fittedTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  style: Style,
  whole: ReadonlySet<number>,
): string {
  const table = createTable(head, style, ['left', ...head.slice(1).map(() => 'right' as const)]);
  for (const row of rows) table.push([...row]);
  const longestWord = (text: string) => Math.max(0, ...text.split(/\s+/).map(displayWidth));
  const floors = head.map((h, i) => {
    if (i === 0) return undefined;
    const cells = rows.map((r) => r[i]!);
    const widthOf = (c: string) => (whole.has(i) ? Math.max(...c.split('\n').map(displayWidth)) : longestWord(c));
    const widest = Math.max(longestWord(h), ...cells.map(widthOf));
    return widest + 2;
  });
  return tableText(table, style, { floors });
}

/**
 * The figures as two tables (the decisions by kind; then the times, the unknown outcomes and what
 * was overturned), each fitting an 80-column terminal with every word whole; then the reasons
 * and (on a terminal) the bar charts, then what the figures are of, what they leave out and what
 * they include.
 */
export function reportText(
  facts: ReportFacts,
  tally: TeamTally,
  style: Style,
  otherServiceLine: (o: OtherService) => string,
): string {
  const window =
    facts.since === null && facts.until === null
      ? ''
      : ` ${facts.since === null ? '' : `from ${iso(facts.since)} `}${facts.until === null ? '' : `until ${iso(facts.until)}`}`.trimEnd();
  const files = facts.files.length === 1 ? terminalSafe(facts.files[0]!) : `${facts.files.length} logs`;
  const trailer = [
    ...facts.otherServices.map(otherServiceLine),
    ...(facts.unverified?.note ? [facts.unverified.note] : []),
  ];
  const service = facts.service === null ? 'the embedded sandbox' : terminalSafe(facts.service);
  if (facts.analysts.length === 0) return [`no decisions in ${files}${window} at ${service}`, ...trailer].join('\n');
  const kinds = ['analyst', 'decisions', 'approve', 'decline', 'escalate', 'fraud', 'set-state'];
  const kindRows = facts.analysts.map((a) => [
    terminalSafe(a.analyst),
    count(a.decisions),
    ...['approve', 'decline', 'escalate', 'fraud'].map((k) => count(a.byKind[k] ?? 0)),
    setStateCell(a.byKind),
  ]);
  const sla = facts.slaMs === null ? [] : [`past SLA ${duration(facts.slaMs)}`];
  const times = ['analyst', 'unknown outcome', 'to decision median', 'p90', 'age median', ...sla, 'overturned'];
  const timeRows = facts.analysts.map((a) => [
    terminalSafe(a.analyst),
    count(a.unknownOutcome),
    duration(a.timeToDecision.median),
    duration(a.timeToDecision.p90),
    duration(a.ageAtDecision.median),
    ...(a.pastSla === null ? [] : [count(a.pastSla)]),
    a.unchecked > 0 ? `${count(a.overturned)} (${count(a.unchecked)} unread)` : count(a.overturned),
  ]);
  // Durations stay on one line (`12m 5s`); the overturned cell may wrap at its space.
  const wholeTimes = new Set([2, 3, 4]);
  const reasons = createTable(['analyst', 'reason', 'decisions'], style, ['left', 'left', 'right']);
  for (const a of facts.analysts) {
    for (const [reason, n] of Object.entries(a.byReason).sort(([x, p], [y, q]) => q - p || x.localeCompare(y)))
      reasons.push([terminalSafe(a.analyst), terminalSafe(reason), count(n)]);
  }
  const total = facts.analysts.reduce((sum, a) => sum + a.decisions, 0);
  const notes = [
    `${count(total)} decisions in ${files}${window} ${sym.dot} overturned: the state now ` +
      `(${count(facts.eventsRead)} events read) differs from the one the decision set`,
    ...trailer,
  ];
  const charts = style.columns === null ? [] : [claimChart(tally.claimTimes(), style), hourChart(tally.hours, style)];
  // The notes wrap at spaces on a terminal, as the tables' cells do.
  const wrapped = notes.flatMap((note) => (style.columns === null ? [note] : wrapToWidth(note, style.columns)));
  return joinBlocks([
    fittedTable(kinds, kindRows, style, new Set([6])),
    fittedTable(times, timeRows, style, wholeTimes),
    tableText(reasons, style),
    ...charts,
    wrapped.join('\n'),
  ]);
}

/**
 * Labelled counts as horizontal bars, the longest as wide as the terminal allows (at most 50),
 * each bar of `sym.barDone` (`█`, `#` where the terminal has no such marks) and its count; a
 * zero has no bar and no count. The labels are padded to the widest.
 */
function barLines(rows: readonly (readonly [string, number])[], style: Style): string[] {
  const most = Math.max(1, ...rows.map(([, n]) => n));
  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  const width = Math.max(10, Math.min(50, (style.columns ?? 80) - labelWidth - 2 - count(most).length - 1));
  return rows.map(([label, n]) =>
    `${label.padEnd(labelWidth)}  ${sym.barDone.repeat(Math.round((n / most) * width))}${n > 0 ? ` ${count(n)}` : ''}`.trimEnd(),
  );
}

/** Decisions per hour (UTC) as bars; empty hours between the first and last shown. */
/** `counts`: decisions by hour since the epoch. */
export function hourChart(counts: ReadonlyMap<number, number>, style: Style): string {
  if (counts.size === 0) return '';
  const hour = 3_600_000;
  const hours = [...counts.keys()];
  const first = Math.min(...hours);
  const last = Math.max(...hours);
  // A long span (days of logs) would be a screen of empty hours: only the hours with decisions then.
  const shown =
    last - first < 48 ? Array.from({ length: last - first + 1 }, (_, i) => first + i) : hours.sort((a, b) => a - b);
  const label = (h: number) => new Date(h * hour).toISOString().slice(0, 13).replace('T', ' ') + ':00';
  return [
    style.heading('decisions per hour (UTC)'),
    ...barLines(
      shown.map((h) => [label(h), counts.get(h) ?? 0] as const),
      style,
    ),
  ].join('\n');
}

const MINUTE = 60_000;
/** The buckets of time from claim to decision: where each starts (ms), up to the next one's start. */
const CLAIM_BUCKETS: readonly number[] = [0, MINUTE, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE];

/**
 * Time from claim to decision (the review queue's decisions: those with a claim before them) as
 * a histogram of a few fixed buckets, every bucket shown (an empty one says as much as a full
 * one); nothing when no decision had a claim (set-state only).
 */
export function claimChart(times: readonly number[], style: Style): string {
  if (times.length === 0) return '';
  const counts = CLAIM_BUCKETS.map(() => 0);
  // A time below zero (two hosts' clocks apart) is counted in the first bucket.
  for (const t of times)
    counts[
      Math.max(
        0,
        CLAIM_BUCKETS.findLastIndex((start) => t >= start),
      )
    ]! += 1;
  const words = (ms: number) => durationText(ms);
  const labels = CLAIM_BUCKETS.map((start, i) => {
    const end = CLAIM_BUCKETS[i + 1];
    if (i === 0) return `under ${words(end!)}`;
    return end === undefined ? `${words(start)} or more` : `${words(start)}${sym.dash}${words(end)}`;
  });
  return [
    style.heading('time from claim to decision'),
    ...barLines(
      labels.map((label, i) => [label, counts[i]!] as const),
      style,
    ),
  ].join('\n');
}
