import { commentLength, MAX_COMMENT_LENGTH } from '../contract/limits.js';
import type { Style } from '../render/colours.js';
import { cutToWidth, displayWidth, wrapToWidth } from '../render/display-width.js';
import { isFields, type Fields } from '../render/json-fields.js';
import { jsonForTerminal, terminalSafe } from '../render/terminal-text.js';
import { commentPlan, type CommentPlan } from './comment-editor.js';
import { helpLines, helpPageSize } from './help-screen.js';
import { head, keyBarRows, MAX_ID_SHOWN, positionOf } from './screen-layout.js';
import { stringField, type Current, type Model, type Mode } from './queue-model.js';
import { sym } from '../render/symbols.js';
import { ageMs, deadlineOf, durationText } from '../render/ages.js';

/*
 * view(model, width, height, style) → the whole screen as text: at most `height` lines, none
 * wider than `width` columns. Every string from the service goes through terminalSafe and is
 * cut to the room it has (display width, so wide characters count double); whatever the
 * service sends, the layout holds. The measures update() shares with it (the id's and key bar's
 * rows, the page of `v`, which the model holds) are in screen-layout.ts.
 */

const MONEY = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const LABEL = 10;
const SEVERITY_RANK: Readonly<Record<string, number>> = { HIGH: 0, MEDIUM: 1, LOW: 2 };

/** Any value from the service as safe text of at most `cols` columns; a dash when absent. */
export function safe(value: unknown, cols: number, style: Style): string {
  const room = Math.max(0, cols);
  if (value === null || value === undefined) return style.dim(sym.dash);
  if (typeof value === 'number' || typeof value === 'boolean') return cutToWidth(String(value), room);
  if (typeof value === 'string') return cutToWidth(terminalSafe(head(value, room + 1)), room);
  let json: string;
  try {
    json = jsonForTerminal(value, false);
  } catch {
    json = Object.prototype.toString.call(value);
  }
  return cutToWidth(terminalSafe(head(json, room + 1)), room);
}

function money(amount: unknown, currency: unknown, cols: number, style: Style): string {
  const number = typeof amount === 'number' ? MONEY.format(amount) : safe(amount, cols, style);
  if (currency === null || currency === undefined) return number;
  return `${number} ${safe(currency, Math.max(3, cols - displayWidth(number) - 1), style)}`;
}

function labelled(label: string, text: string, style: Style): string {
  return `${style.dim(label.padEnd(LABEL))}${text}`;
}

function actionOf(current: Current): unknown {
  return isFields(current.assessment) ? current.assessment.actionType : undefined;
}

function scoreOf(current: Current): unknown {
  if (isFields(current.assessment) && current.assessment.totalRiskScore !== undefined)
    return current.assessment.totalRiskScore;
  return current.summary.totalScore;
}

/** `(claimed by you)`, or shorter when the line needs the room. */
function claimLabel(current: Current, short: boolean): string {
  if (current.claim === 'held') return short ? ' (yours)' : ' (claimed by you)';
  if (current.claim === 'claiming') return ` (claiming${sym.ellipsis})`;
  return '';
}

/**
 * `3/5  ord-1002`: the position and the id, the id whole on as many lines as it needs (the
 * analyst must see which event they are deciding), continuation lines under the id.
 */
function idLines(model: Model, id: string, width: number, style: Style): string[] {
  const position = positionOf(model);
  const indent = displayWidth(position) + 2;
  const parts = wrapToWidth(terminalSafe(head(id, MAX_ID_SHOWN)), width - indent);
  return parts.map((part, i) =>
    i === 0 ? `${style.bold(position)}  ${style.bold(part)}` : `${' '.repeat(indent)}${style.bold(part)}`,
  );
}

/**
 * The top of an event's screen: position and id, then decision, score and state. They share the
 * first line when it has the room, the claim written short if that makes it fit; otherwise the
 * decision, score and state go to a line of their own. The id is never cut.
 */
function header(model: Model, id: string, width: number, style: Style, current: Current | null): string[] {
  const lines = idLines(model, id, width, style);
  if (!current) return lines;
  const action = actionOf(current);
  const decision = typeof action === 'string' ? style.action(action, safe(action, 12, style)) : safe(action, 12, style);
  // A state is at most 64 characters in the contract: shown whole.
  const facts = (short: boolean) =>
    `${decision}  ${style.dim('score')} ${safe(scoreOf(current), 8, style)}  ${style.bold(safe(current.seenState, 64, style))}${style.dim(claimLabel(current, short))}`;
  const last = lines.length - 1;
  for (const short of [false, true]) {
    const right = facts(short);
    if (displayWidth(lines[last]!) + 3 + displayWidth(right) <= width) {
      lines[last] = `${lines[last]!}   ${right}`;
      return lines;
    }
  }
  const indent = displayWidth(positionOf(model)) + 2;
  const right = displayWidth(facts(false)) + indent <= width ? facts(false) : facts(true);
  return [...lines, `${displayWidth(right) + indent <= width ? ' '.repeat(indent) : ''}${right}`];
}

/** Whole days from `created` (YYYY-MM-DD) to the event's date, or null. */
function accountAgeDays(summary: Fields): number | null {
  const created = stringField(summary, 'userCreated');
  const eventDate = stringField(summary, 'eventDate');
  if (!created || !eventDate) return null;
  const from = Date.parse(`${created.slice(0, 10)}T00:00:00Z`);
  const to = Date.parse(eventDate);
  if (Number.isNaN(from) || Number.isNaN(to)) return null;
  return Math.floor((to - from) / 86_400_000);
}

function items(summary: Fields): Fields[] {
  return Array.isArray(summary.items) ? summary.items.filter(isFields) : [];
}

function itemValue(item: Fields): number {
  const price =
    typeof item.itemPriceInBaseCurrency === 'number'
      ? item.itemPriceInBaseCurrency
      : typeof item.itemPrice === 'number'
        ? item.itemPrice
        : 0;
  const quantity = typeof item.itemQuantity === 'number' ? item.itemQuantity : 1;
  return price * quantity;
}

/**
 * A fact of a line: `keep` pieces (money, the country comparison, an email) are never cut and go
 * to the next line when the room runs out; the others (dates, names, free text) are written
 * `short` first, then cut to the room left, when that helps.
 */
interface Piece {
  text: string;
  short?: string;
  keep?: boolean;
}

/** Columns a free piece must have left to be cut into rather than moved to the next line. */
const MIN_CUT = 8;

/**
 * `label` and its pieces, on as many lines as the kept pieces need; continuation lines under the
 * first piece. A kept piece that does not fit first has the pieces before it on its line written
 * short, then goes to the next line.
 */
function flowLines(label: string, pieces: readonly Piece[], separator: string, width: number, style: Style): string[] {
  const room = Math.max(1, width - LABEL);
  const lines: string[] = [];
  let line: { piece: Piece; text: string }[] = [];
  const join = (items: readonly { text: string }[]) => items.map((item) => item.text).join(separator);
  for (const piece of pieces) {
    const fitting = [piece.text, ...(piece.short !== undefined ? [piece.short] : [])].find(
      (text) => displayWidth(join([...line, { text }])) <= room,
    );
    if (fitting !== undefined) {
      line.push({ piece, text: fitting });
      continue;
    }
    const text = piece.short ?? piece.text;
    if (piece.keep) {
      const shortened = line.map((item) => ({ piece: item.piece, text: item.piece.short ?? item.text }));
      if (displayWidth(join([...shortened, { text }])) <= room) {
        line = [...shortened, { piece, text }];
        continue;
      }
    } else {
      const left = room - (line.length === 0 ? 0 : displayWidth(join(line)) + displayWidth(separator));
      if (line.length === 0 || left >= MIN_CUT) {
        line.push({ piece, text: cutToWidth(text, left) });
        continue;
      }
    }
    if (line.length > 0) lines.push(join(line));
    line = [{ piece, text: piece.keep ? text : cutToWidth(text, room) }];
  }
  lines.push(join(line));
  return lines.map((l, i) => (i === 0 ? labelled(label, l, style) : `${' '.repeat(LABEL)}${l}`));
}

/** `2 × Laptop 14"  1,649.00 USD  electronics`: quantity and price whole; the category, then the name, give way. */
function itemLine(item: Fields, currency: unknown, width: number, style: Style): string {
  const room = Math.max(1, width - LABEL);
  const quantity =
    typeof item.itemQuantity === 'number' ? String(item.itemQuantity) : safe(item.itemQuantity, 12, style);
  const price = money(item.itemPrice, item.itemCurrency ?? currency, 40, style);
  const free = room - displayWidth(`${quantity} ${sym.times} `) - 2 - displayWidth(price);
  const name = cutToWidth(safe(item.itemName ?? item.itemId, 60, style), Math.max(1, free));
  const wholeCategory =
    item.itemCategory === undefined || item.itemCategory === null ? '' : safe(item.itemCategory, 20, style);
  const categoryRoom = free - displayWidth(name) - 2;
  const category =
    displayWidth(wholeCategory) <= categoryRoom
      ? wholeCategory
      : categoryRoom >= MIN_CUT
        ? cutToWidth(wholeCategory, categoryRoom)
        : '';
  return `${' '.repeat(LABEL)}${quantity} ${sym.times} ${name}  ${price}${category ? `  ${style.dim(category)}` : ''}`;
}

/**
 * `age 2d 3h`, and with --sla `3h 59m left` or `overdue by 1d 20h` (in the decline colour), as of
 * `now`; measured without a time (whether the screen fits), the longest they are for ages under
 * 100 days, so that the time passing never makes a screen that fitted too small.
 */
function agePieces(current: Current, sla: number | null, style: Style, now: number | null): Piece[] {
  const age = now === null ? 99 * 86_400_000 + 23 * 3_600_000 : ageMs(current.summary.eventDate, now);
  if (age === null) return [];
  const pieces: Piece[] = [{ text: `${style.dim('age')} ${durationText(age)}`, keep: true }];
  if (sla === null) return pieces;
  const deadline = now === null ? { overdue: true, by: age } : deadlineOf(age, sla);
  pieces.push({
    text: deadline.overdue
      ? style.decline(`overdue by ${durationText(deadline.by)}`)
      : `${durationText(deadline.by)} left`,
    keep: true,
  });
  return pieces;
}

/** The event's facts, most useful first: a line each when the width allows, more when a fact must stay whole. */
function factLines(
  current: Current,
  width: number,
  style: Style,
  maxItems: number,
  sla: number | null,
  now: number | null,
): string[] {
  const s = current.summary;
  const room = Math.max(0, width - LABEL);
  const lines: string[] = [];
  const dot = `  ${style.dim(sym.dot)} `;
  const amount: Piece[] = [{ text: money(s.amount, s.currency, room, style), keep: true }];
  if (s.amountInBaseCurrency !== undefined || s.baseCurrency !== undefined)
    amount.push({
      text: `${money(s.amountInBaseCurrency, s.baseCurrency, room, style)} ${style.dim('base')}`,
      keep: true,
    });
  // The date gives way to its day (`2026-11-20`) before the age and the time left move to a line of their own.
  if (s.eventDate !== undefined)
    amount.push(
      {
        text: safe(s.eventDate, 24, style),
        short: safe(typeof s.eventDate === 'string' ? s.eventDate.slice(0, 10) : s.eventDate, 24, style),
      },
      ...agePieces(current, sla, style, now),
    );
  lines.push(...flowLines('amount', amount, dot, width, style));
  // The name gives way; the email and the IP are whole, on the next line if they must.
  const user: Piece[] = [
    { text: safe(s.userName, 24, style) },
    { text: safe(s.userEmail, room, style), keep: true },
    { text: safe(s.userIp, 45, style), keep: true },
  ];
  lines.push(...flowLines('user', user, dot, width, style));
  const age = accountAgeDays(s);
  const created = safe(s.userCreated, 12, style);
  const ageText: Piece =
    age === null
      ? { text: created }
      : {
          text: `${age} day${age === 1 ? '' : 's'} old ${style.dim(`(created ${created})`)}`,
          short: `${age} day${age === 1 ? '' : 's'} old`,
        };
  const ship = s.shippingCountry;
  const bill = s.billingCountry;
  const differ =
    typeof ship === 'string' && typeof bill === 'string' && ship !== bill ? `  ${style.decline('differ')}` : '';
  const countries: Piece = {
    text: `${style.dim('ship')} ${safe(ship, 8, style)} ${style.dim('bill')} ${safe(bill, 8, style)}${differ}`,
    keep: true,
  };
  lines.push(...flowLines('account', [ageText, countries], '   ', width, style));
  const list = items(s);
  const count = list.reduce((n, item) => n + (typeof item.itemQuantity === 'number' ? item.itemQuantity : 1), 0);
  lines.push(
    labelled(
      'items',
      list.length === 0 ? style.dim('none') : `${count} in ${list.length} line${list.length === 1 ? '' : 's'}`,
      style,
    ),
  );
  const top = [...list].sort((a, b) => itemValue(b) - itemValue(a)).slice(0, maxItems);
  for (const item of top) lines.push(itemLine(item, s.currency, width, style));
  if (list.length > top.length) lines.push(`${' '.repeat(LABEL)}${style.dim(`+${list.length - top.length} more (v)`)}`);
  return lines;
}

function alertsOf(current: Current): Fields[] {
  if (!isFields(current.assessment) || !Array.isArray(current.assessment.alerts)) return [];
  const rank = (a: Fields) => (typeof a.severity === 'string' ? (SEVERITY_RANK[a.severity] ?? 3) : 3);
  const score = (a: Fields) => (typeof a.score === 'number' ? a.score : -Infinity);
  return current.assessment.alerts.filter(isFields).sort((a, b) => rank(a) - rank(b) || score(b) - score(a));
}

function alertLines(current: Current, width: number, style: Style, rows: number): string[] {
  if (rows <= 0) return [];
  if (current.assessmentProblem)
    return [style.decline(cutToWidth(`alerts unavailable: ${current.assessmentProblem}`, width))];
  const alerts = alertsOf(current);
  if (alerts.length === 0) return [style.dim('no alerts')];
  const lines = [`${style.heading(`Alerts (${alerts.length})`)}`];
  const shown = alerts.length <= rows - 1 ? alerts : alerts.slice(0, Math.max(0, rows - 2));
  const ruleWidth = Math.min(24, Math.max(0, ...shown.map((a) => displayWidth(safe(a.ruleId, 24, style)))));
  for (const alert of shown) {
    const severity = typeof alert.severity === 'string' ? alert.severity : '';
    const ruleText = safe(alert.ruleId, 24, style);
    const rule = ruleText + ' '.repeat(Math.max(0, ruleWidth - displayWidth(ruleText)));
    const left = `  ${style.severity(severity, safe(alert.severity, 6, style).padEnd(6))} ${safe(alert.score, 4, style).padStart(4)}  ${rule}`;
    const room = Math.max(0, width - displayWidth(left) - 2);
    lines.push(`${left}  ${style.dim(safe(alert.description, room, style))}`);
  }
  if (shown.length < alerts.length) lines.push(style.dim(`  +${alerts.length - shown.length} more (v)`));
  return lines;
}

function listLine(current: Current, width: number, style: Style): string {
  const matches =
    isFields(current.assessment) && Array.isArray(current.assessment.listMatches) ? current.assessment.listMatches : [];
  if (matches.length === 0) return labelled('lists', style.dim('no list matched'), style);
  const text = matches
    .map((m) => {
      if (!isFields(m)) return safe(m, 30, style);
      const list =
        m.list === 'DENYLIST'
          ? style.decline(safe(m.list, 10, style))
          : m.list === 'ALLOWLIST'
            ? style.approve(safe(m.list, 10, style))
            : safe(m.list, 10, style);
      return `${list} ${safe(m.field, 14, style)}=${safe(m.value, 30, style)}`;
    })
    .join('  ');
  return labelled('lists', cutToWidth(text, Math.max(0, width - LABEL)), style);
}

/** The most rows one line of a notice takes. */
const NOTICE_ROWS = 3;

function noticeLines(current: Current | null, width: number, style: Style): string[] {
  if (!current?.notice) return [];
  const colour =
    current.notice.tone === 'error' ? style.decline : current.notice.tone === 'warn' ? style.review : style.dim;
  // Notice text is ours, or a message of the API client, already made safe; sanitised again all the
  // same. Wrapped at words, so that what changed is read whole; a line of the service's text (a
  // comment of 4,000 characters) is cut after a few rows, the comments line shows it too.
  return current.notice.lines.flatMap((line) => {
    const text = terminalSafe(head(line, NOTICE_ROWS * width + 1));
    const indent = /^ */.exec(text)![0];
    const rows = wrapToWidth(text.slice(indent.length), width - indent.length).map((row) => `${indent}${row}`);
    const last = () => cutToWidth(rows.slice(NOTICE_ROWS - 1).join(' '), width);
    const shown = rows.length > NOTICE_ROWS ? [...rows.slice(0, NOTICE_ROWS - 1), last()] : rows;
    return shown.map((row) => colour(row));
  });
}

function noteLines(model: Model, width: number, style: Style, max: number): string[] {
  if (model.notes.length === 0 || max <= 0) return [];
  const shown = model.notes.slice(-max);
  // The id whole (it is the user's own, from the list), then why, in the room left.
  const lines = shown.map((n) => {
    const head = `passed over ${terminalSafe(n.id)}: `;
    return style.dim(`${head}${safe(n.text, width - displayWidth(head), style)}`);
  });
  if (model.notes.length > shown.length)
    lines[0] = style.dim(`passed over ${model.notes.length} events (see the summary at the end)`);
  return lines;
}

/** The key bar, wrapped to the width. */
function keyBarLines(mode: Mode, width: number, style: Style): string[] {
  return keyBarRows(mode, width).map((row) =>
    row.map(({ key, label }) => `${style.bold(key)} ${style.dim(label)}`).join('  '),
  );
}

/** `i` clamped to the text and moved off the middle of a surrogate pair. */
function codePointStart(text: string, i: number): number {
  const at = Math.min(text.length, Math.max(0, i));
  const code = text.charCodeAt(at);
  return at > 0 && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

/** From this many characters on, the comment line shows how many it has of the limit. */
export const COMMENT_COUNTER_FROM = MAX_COMMENT_LENGTH - 400;

/** The comment's length against the service's limit: nothing until near it, then a count, then a message at it. */
function commentCounter(length: number, style: Style): string[] {
  const limit = MAX_COMMENT_LENGTH.toLocaleString('en-US');
  if (length >= MAX_COMMENT_LENGTH)
    return [style.decline(`${limit} of ${limit} characters: the limit, no more is taken`)];
  if (length >= COMMENT_COUNTER_FROM) return [style.review(`${length.toLocaleString('en-US')} of ${limit} characters`)];
  return [];
}

/**
 * `replaces its comment: "fraud ring" · Tab: keep it`: what Enter does to the comment the event
 * has, and the key that changes it; with nothing typed, that it stays (the state alone, or the
 * reason after it).
 */
function keepLine(existing: string, plan: CommentPlan, reason: string | null, width: number, style: Style): string {
  if (plan.empty) {
    const head = reason !== null ? 'keeps its comment, the reason after it: ' : 'keeps its comment: ';
    return `${style.review(head)}"${safe(existing, Math.max(4, width - displayWidth(head) - 2), style)}"`;
  }
  const key = plan.keeps ? 'Tab: replace it' : 'Tab: keep it, yours after it';
  const head = plan.keeps ? 'keeps its comment, yours after: ' : 'replaces its comment: ';
  // Two quotes, two spaces and `· ` around the comment, which is what gives way.
  const room = Math.max(4, width - displayWidth(head) - displayWidth(key) - 6);
  return `${style.review(head)}"${safe(existing, room, style)}"  ${style.dim(`${sym.dot} ${key}`)}`;
}

const ACTION_WORDS = {
  approve: 'approve',
  decline: 'decline',
  escalate: 'escalate',
  fraud: 'confirm fraud',
  comment: 'comment',
} as const;

function promptLines(model: Model, width: number, style: Style): string[] {
  const mode = model.mode;
  switch (mode.name) {
    case 'reason': {
      // `1 stolen-card  2 friendly-fraud …`, wrapped to the width, codes whole (a code is at most 40 characters).
      const rows: string[] = [];
      let row = '';
      let used = 2;
      for (const [i, code] of mode.codes.entries()) {
        const w = String(i + 1).length + 1 + code.length;
        if (row !== '' && used + 2 + w > width) {
          rows.push(row);
          row = '';
          used = 2;
        }
        used += (row === '' ? 0 : 2) + w;
        row = `${row}${row === '' ? '' : '  '}${style.bold(String(i + 1))} ${code}`;
      }
      if (row !== '') rows.push(row);
      const more =
        mode.more > 0
          ? [
              style.dim(
                `${mode.more} more code${mode.more === 1 ? '' : 's'} not offered here (9 keys): fraudctl set-state --reason CODE`,
              ),
            ]
          : [];
      const hint = mode.required
        ? style.review(`a reason is required ${sym.dot} Esc: back, nothing sent`)
        : style.dim(`Enter: no reason ${sym.dot} Esc: back, nothing sent`);
      return [
        hint,
        `${style.bold(`${ACTION_WORDS[mode.action]} ${sym.dot} reason:`)}`,
        ...rows.map((r) => `  ${r}`),
        ...more,
      ];
    }
    case 'comment': {
      const existing = model.current?.seenComments ?? null;
      const has = existing !== null && existing.trim() !== '';
      const plan = commentPlan(existing, mode.text, mode.reason, mode.keep);
      const withReason = has ? ' (empty: the reason, after its comment)' : ' (empty: the reason alone)';
      const empty = mode.reason !== null ? withReason : mode.action === 'comment' ? '' : ' (empty: the state alone)';
      const hint = style.dim(`Enter sends${empty} ${sym.dot} Esc: back, nothing sent`);
      const counter = commentCounter(commentLength(mode.text), style);
      const label = `${ACTION_WORDS[mode.action]} ${sym.dot} ${mode.reason !== null ? `[reason: ${mode.reason}] ` : ''}comment: `;
      const room = Math.max(4, width - displayWidth(label) - 1);
      // Only what can be in sight is made safe and measured (a comment may be 4,000 characters
      // long, and this runs at every key): no character takes less than one UTF-16 unit.
      const before = terminalSafe(mode.text.slice(codePointStart(mode.text, mode.cursor - 2 * room), mode.cursor));
      const after = terminalSafe(mode.text.slice(mode.cursor, codePointStart(mode.text, mode.cursor + 2 * room)));
      // Scrolled so the cursor stays in sight.
      let shownBefore = before;
      while (displayWidth(shownBefore) > room - 1)
        shownBefore = shownBefore.slice(Math.max(1, Math.floor(shownBefore.length / 8)));
      const rest = cutToWidth(after, Math.max(0, room - displayWidth(shownBefore) - 1));
      const cursorChar = rest === '' ? ' ' : (Array.from(rest)[0] ?? ' ');
      const tail = rest === '' ? '' : rest.slice(cursorChar.length);
      // The service keeps one comment: the one the event has is replaced, or kept with this one after it (Tab).
      const other = has ? [keepLine(existing, plan, mode.reason, width, style)] : [];
      return [
        ...counter,
        ...other,
        hint,
        `${style.bold(label)}${shownBefore}${style.level > 0 ? `\x1b[7m${cursorChar}\x1b[27m` : sym.cursor}${tail}`,
      ];
    }
    case 'overturn': {
      const verb = ACTION_WORDS[mode.action];
      const ask = `${verb[0]!.toUpperCase()}${verb.slice(1)} all the same, overturning it?`;
      const question = `${mode.state} was set by someone else since you opened it. ${ask}`;
      const keys = `y: yes, overturn their ${mode.state} ${sym.dot} any other key: no, nothing sent`;
      return [
        ...wrapToWidth(question, width).map((l) => style.decline(l)),
        ...wrapToWidth(keys, width).map((l) => style.dim(l)),
      ];
    }
    case 'sending': {
      const s = mode.sending;
      const target = s.steps[s.step] ?? 'the comment';
      const what =
        s.phase === 'waitClaim'
          ? 'waiting for the claim'
          : s.phase === 'reread'
            ? 'checking the state'
            : `sending ${target}`;
      return [style.dim(`${what}${sym.ellipsis}${model.quitting !== 'no' ? ' (then quitting)' : ''}`)];
    }
    case 'sendFailed': {
      const s = mode.sending;
      const target = s.steps[s.step] ?? 'the comment';
      return [
        style.decline(safe(`NOT SENT: ${target} for this event`, width, style)),
        style.decline(safe(mode.message, width, style)),
        style.dim(
          safe('r retries (the state is read again first), s skips it (the decision stays unsent)', width, style),
        ),
      ];
    }
    default:
      return [];
  }
}

/** Rows of alerts the event screen must have: the heading and the first alert (and `+N more (v)`), or the line that says there are none. */
function minAlertRows(current: Current): number {
  if (current.assessmentProblem) return 1;
  const count = alertsOf(current).length;
  return count === 0 ? 1 : count === 1 ? 2 : 3;
}

/** Narrower than this, the event's facts and alerts are cut beyond use: the screen says so instead. */
export const MIN_EVENT_WIDTH = 40;

/** The parts of the event screen around its facts and alerts, as they are drawn now. */
function eventParts(model: Model, current: Current, width: number, style: Style) {
  return {
    top: [...header(model, current.id, width, style, current), style.dim(sym.rule.repeat(width))],
    bottom: [
      ...noticeLines(current, width, style),
      ...promptLines(model, width, style),
      ...keyBarLines(model.mode, width, style),
    ],
    notes: noteLines(model, width, style, 2),
  };
}

/** Rows the event screen needs at this width to show the id, score and state, the facts, the first alert, and every key. */
function rowsNeeded(model: Model, current: Current, width: number, style: Style): number {
  const { top, bottom, notes } = eventParts(model, current, width, style);
  return (
    top.length +
    factLines(current, width, style, 0, model.options.sla ?? null, null).length +
    minAlertRows(current) +
    2 +
    notes.length +
    bottom.length
  );
}

/**
 * Whether the event screen fits: when the keys, the score and the alerts cannot all be shown,
 * the screen says how big it must be instead, and update() takes no decision keys (a key that
 * cannot be seen is not a choice). Also what it must be: the size, at this width when that is
 * wide enough.
 */
export function eventScreenFit(
  model: Model,
  current: Current,
  width: number,
  height: number,
  style: Style,
): { fits: boolean; width: number; height: number } {
  const w = Math.max(width, MIN_EVENT_WIDTH);
  const rows = rowsNeeded(model, current, w, style);
  return { fits: width >= MIN_EVENT_WIDTH && height >= rows, width: w, height: rows };
}

/** The screen in place of the event's when the window is too small for it: what it needs, and q. */
function tooSmallScreen(
  model: Model,
  current: Current,
  need: { width: number; height: number },
  width: number,
  height: number,
  style: Style,
): string[] {
  const words = `The window is too small for the event and its keys: make it at least ${need.width}${sym.times}${need.height}. No decision is taken until then.`;
  const notTaken =
    model.keysNotTaken > 0
      ? wrapToWidth(`${model.keysNotTaken} key${model.keysNotTaken === 1 ? '' : 's'} not taken`, width).map((l) =>
          style.dim(l),
        )
      : [];
  const lines = [
    ...idLines(model, current.id, width, style),
    ...wrapToWidth(words, width).map((l) => style.review(l)),
    ...notTaken,
  ];
  return [...lines.slice(0, Math.max(1, height - 1)), `${style.bold('q')} ${style.dim('quit')}`];
}

function eventScreen(
  model: Model,
  current: Current,
  width: number,
  height: number,
  style: Style,
  now: number,
): string[] {
  const fit = eventScreenFit(model, current, width, height, style);
  if (!fit.fits) return tooSmallScreen(model, current, fit, width, height, style);
  const { top, bottom, notes } = eventParts(model, current, width, style);
  const comments = labelled('comments', safe(current.seenComments, width - LABEL, style), style);
  const lists = listLine(current, width, style);
  // Rows for the facts (at most 3 items), then what is left for alerts.
  let maxItems = 3;
  const sla = model.options.sla ?? null;
  let facts = factLines(current, width, style, maxItems, sla, now);
  const fixed = () => top.length + facts.length + 2 + notes.length + bottom.length;
  while (maxItems > 0 && height - fixed() < 3) facts = factLines(current, width, style, --maxItems, sla, now);
  const alerts = alertLines(current, width, style, height - fixed());
  return [...top, ...facts, ...alerts, lists, comments, ...notes, ...bottom];
}

function viewScreen(
  model: Model,
  mode: Extract<Mode, { name: 'view' }>,
  current: Current,
  width: number,
  height: number,
  style: Style,
): string[] {
  const page = mode.page;
  const lines = mode.lines ?? [style.dim(`loading the tables${sym.ellipsis}`)];
  const start = Math.min(mode.scroll, Math.max(0, lines.length - page));
  const shown = lines.slice(start, start + page);
  const top = idLines(model, current.id, width, style);
  // `everything` and where in the tables, after the id when there is room.
  const more = `  ${style.dim('everything')}${lines.length > page ? style.dim(`  lines ${start + 1}${sym.dash}${start + shown.length} of ${lines.length}`) : ''}`;
  const last = top.length - 1;
  if (displayWidth(top[last]!) + displayWidth(more) <= width) top[last] = `${top[last]!}${more}`;
  return [...top, ...shown, ...keyBarLines(mode, width, style)];
}

/** The `?` screen: the help for the width, scrolled when it is longer than the screen. */
function helpScreen(mode: Extract<Mode, { name: 'help' }>, width: number, height: number, style: Style): string[] {
  const lines = helpLines(width);
  const page = helpPageSize(height);
  const start = Math.min(mode.scroll, Math.max(0, lines.length - page));
  const shown = lines.slice(start, start + page);
  if (lines.length <= page)
    return [style.heading('fraudctl review: keys'), ...shown, style.dim('Press any key to go back.')];
  return [
    `${style.heading('fraudctl review: keys')}${style.dim(`  lines ${start + 1}${sym.dash}${start + shown.length} of ${lines.length}`)}`,
    ...shown,
    style.dim(`j ${sym.down} space: down ${sym.dot} k ${sym.up} b: up ${sym.dot} any other key: back`),
  ];
}

/** The whole screen at the time `now` (an event's age): at most `height` lines of at most `width` columns, joined by `\n`. */
export function view(model: Model, width: number, height: number, style: Style, now: number = Date.now()): string {
  const w = Math.max(20, width);
  const h = Math.max(4, height);
  const mode = model.mode;
  let lines: string[];
  const current = model.current;
  if (mode.name === 'help') {
    lines = helpScreen(mode, w, h, style);
  } else if (mode.name === 'view' && current) {
    lines = viewScreen(model, mode, current, w, h, style);
  } else if (current) {
    lines = eventScreen(model, current, w, h, style, now);
  } else if (mode.name === 'done') {
    lines = [style.dim(`finishing: giving back claimed events${sym.ellipsis}`)];
  } else {
    const entry = model.entries[model.index];
    const id = entry ? entry.id : '';
    const status =
      mode.name === 'loadFailed'
        ? [style.decline(safe(`could not load this event: ${mode.message}`, w, style))]
        : [style.dim(`loading${sym.ellipsis}`)];
    lines = [
      ...header(model, id, w, style, null),
      style.dim(sym.rule.repeat(w)),
      ...status,
      ...noteLines(model, w, style, 3),
      ...keyBarLines(mode, w, style),
    ];
  }
  if (lines.length > h) lines = [...lines.slice(0, h - 1), lines[lines.length - 1]!];
  return lines.map((line) => cutToWidth(line, w)).join('\n');
}
