import type { Style } from '../render/colours.js';
import { cutToWidth, displayWidth } from '../render/display-width.js';
import { isFields, type Fields } from '../render/records.js';
import { jsonForTerminal, terminalSafe } from '../render/terminal-text.js';
import { helpLines, keyBar, keyContext } from './keymap.js';
import { stringField, type Current, type Model, type Mode } from './queue-model.js';
import { viewPageSize } from './queue-update.js';

/*
 * view(model, width, height, style) → the whole screen as text: at most `height` lines, none
 * wider than `width` columns. Every string from the service goes through terminalSafe and is
 * cut to the room it has (display width, so wide characters count double); whatever the
 * service sends, the layout holds.
 */

const MONEY = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const LABEL = 10;
const SEVERITY_RANK: Readonly<Record<string, number>> = { HIGH: 0, MEDIUM: 1, LOW: 2 };

/** The first `n` code points of `value`: enough for `n` columns, without sanitising 100 KB to show 80. */
function head(value: string, n: number): string {
  if (value.length <= n) return value;
  let end = 0;
  for (let count = 0; count < n && end < value.length; count++) {
    const code = value.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff && end + 1 < value.length ? 2 : 1;
  }
  // One more, so the cut that follows still sees that there was more.
  return value.slice(0, end + 1);
}

/** Any value from the service as safe text of at most `cols` columns; a dash when absent. */
export function safe(value: unknown, cols: number, style: Style): string {
  const room = Math.max(0, cols);
  if (value === null || value === undefined) return style.dim('–');
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
  if (isFields(current.assessment) && current.assessment.totalRiskScore !== undefined) return current.assessment.totalRiskScore;
  return current.summary.totalScore;
}

function claimLabel(current: Current): string {
  if (current.claim === 'held') return ' (claimed by you)';
  if (current.claim === 'claiming') return ' (claiming…)';
  return '';
}

function header(model: Model, id: string, width: number, style: Style, current: Current | null): string {
  const position = `${Math.min(model.index + 1, model.entries.length)}/${model.entries.length}`;
  let right = '';
  if (current) {
    const action = actionOf(current);
    const decision = typeof action === 'string' ? style.action(action, safe(action, 12, style)) : safe(action, 12, style);
    right = `${decision}  ${style.dim('score')} ${safe(scoreOf(current), 6, style)}  ${style.bold(safe(current.seenState, 24, style))}${style.dim(claimLabel(current))}`;
  }
  const idRoom = Math.max(8, width - displayWidth(position) - displayWidth(right) - 6);
  return cutToWidth(`${style.bold(position)}  ${style.bold(safe(id, idRoom, style))}${right ? `   ${right}` : ''}`, width);
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
  const price = typeof item.itemPriceInBaseCurrency === 'number' ? item.itemPriceInBaseCurrency : typeof item.itemPrice === 'number' ? item.itemPrice : 0;
  const quantity = typeof item.itemQuantity === 'number' ? item.itemQuantity : 1;
  return price * quantity;
}

/** The event's facts, a line each, most useful first. */
function factLines(current: Current, width: number, style: Style, maxItems: number): string[] {
  const s = current.summary;
  const room = Math.max(0, width - LABEL);
  const lines: string[] = [];
  const amount = money(s.amount, s.currency, room, style);
  const base = s.amountInBaseCurrency !== undefined || s.baseCurrency !== undefined ? `  ${style.dim('·')} ${money(s.amountInBaseCurrency, s.baseCurrency, room, style)} ${style.dim('base')}` : '';
  const date = s.eventDate !== undefined ? `  ${style.dim('·')} ${safe(s.eventDate, 24, style)}` : '';
  lines.push(labelled('amount', `${amount}${base}${date}`, style));
  const third = Math.max(12, Math.floor((room - 6) / 3));
  const user = [s.userName, s.userEmail, s.userIp].map((v) => safe(v, third, style)).join(`  ${style.dim('·')} `);
  lines.push(labelled('user', user, style));
  const age = accountAgeDays(s);
  const ageText = age === null ? safe(s.userCreated, 12, style) : `${age} day${age === 1 ? '' : 's'} old ${style.dim(`(created ${safe(s.userCreated, 12, style)})`)}`;
  const ship = s.shippingCountry;
  const bill = s.billingCountry;
  const differ = typeof ship === 'string' && typeof bill === 'string' && ship !== bill ? `  ${style.decline('differ')}` : '';
  lines.push(labelled('account', `${ageText}   ${style.dim('ship')} ${safe(ship, 8, style)} ${style.dim('bill')} ${safe(bill, 8, style)}${differ}`, style));
  const list = items(s);
  const count = list.reduce((n, item) => n + (typeof item.itemQuantity === 'number' ? item.itemQuantity : 1), 0);
  lines.push(labelled('items', list.length === 0 ? style.dim('none') : `${count} in ${list.length} line${list.length === 1 ? '' : 's'}`, style));
  const top = [...list].sort((a, b) => itemValue(b) - itemValue(a)).slice(0, maxItems);
  for (const item of top) {
    const price = money(item.itemPrice, item.itemCurrency ?? s.currency, 24, style);
    const name = safe(item.itemName ?? item.itemId, Math.max(10, room - 40), style);
    lines.push(`${' '.repeat(LABEL)}${safe(item.itemQuantity, 5, style)} × ${name}  ${price}  ${style.dim(safe(item.itemCategory, 20, style))}`);
  }
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
  if (current.assessmentProblem) return [style.decline(cutToWidth(`alerts unavailable: ${current.assessmentProblem}`, width))];
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
  const matches = isFields(current.assessment) && Array.isArray(current.assessment.listMatches) ? current.assessment.listMatches : [];
  if (matches.length === 0) return labelled('lists', style.dim('no list matched'), style);
  const text = matches
    .map((m) => {
      if (!isFields(m)) return safe(m, 30, style);
      const list = m.list === 'DENYLIST' ? style.decline(safe(m.list, 10, style)) : m.list === 'ALLOWLIST' ? style.approve(safe(m.list, 10, style)) : safe(m.list, 10, style);
      return `${list} ${safe(m.field, 14, style)}=${safe(m.value, 30, style)}`;
    })
    .join('  ');
  return labelled('lists', cutToWidth(text, Math.max(0, width - LABEL)), style);
}

function noticeLines(current: Current | null, width: number, style: Style): string[] {
  if (!current?.notice) return [];
  const colour = current.notice.tone === 'error' ? style.decline : current.notice.tone === 'warn' ? style.review : style.dim;
  // Notice text is ours, or a message of the API client, already made safe; sanitised again all the same.
  return current.notice.lines.map((line) => colour(safe(line, width, style)));
}

function noteLines(model: Model, width: number, style: Style, max: number): string[] {
  if (model.notes.length === 0 || max <= 0) return [];
  const shown = model.notes.slice(-max);
  const lines = shown.map((n) => style.dim(`passed over ${safe(n, width - 12, style)}`));
  if (model.notes.length > shown.length) lines[0] = style.dim(`passed over ${model.notes.length} events (see the summary at the end)`);
  return lines;
}

/** The key bar, wrapped to the width: `a approve  d decline …`. */
function keyBarLines(mode: Mode, width: number, style: Style): string[] {
  const context = keyContext(mode);
  if (context === null) return [];
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const { key, label } of keyBar(context)) {
    const w = displayWidth(key) + 1 + displayWidth(label);
    if (used > 0 && used + 2 + w > width) {
      lines.push(line);
      line = '';
      used = 0;
    }
    line += `${used > 0 ? '  ' : ''}${style.bold(key)} ${style.dim(label)}`;
    used += (used > 0 ? 2 : 0) + w;
  }
  if (line) lines.push(line);
  return lines;
}

const ACTION_WORDS = { approve: 'approve', decline: 'decline', escalate: 'escalate', fraud: 'confirm fraud', comment: 'comment' } as const;

function promptLines(model: Model, width: number, style: Style): string[] {
  const mode = model.mode;
  switch (mode.name) {
    case 'comment': {
      const hint = style.dim(`Enter sends${mode.action === 'comment' ? '' : ' (empty: the state alone)'} · Esc: back, nothing sent`);
      const label = `${ACTION_WORDS[mode.action]} · comment: `;
      const room = Math.max(4, width - displayWidth(label) - 1);
      const before = terminalSafe(mode.text.slice(0, mode.cursor));
      const after = terminalSafe(mode.text.slice(mode.cursor));
      // Scrolled so the cursor stays in sight.
      let shownBefore = before;
      while (displayWidth(shownBefore) > room - 1) shownBefore = shownBefore.slice(Math.max(1, Math.floor(shownBefore.length / 8)));
      const rest = cutToWidth(after, Math.max(0, room - displayWidth(shownBefore) - 1));
      const cursorChar = rest === '' ? ' ' : (Array.from(rest)[0] ?? ' ');
      const tail = rest === '' ? '' : rest.slice(cursorChar.length);
      return [hint, `${style.bold(label)}${shownBefore}${style.level > 0 ? `\x1b[7m${cursorChar}\x1b[27m` : '▏'}${tail}`];
    }
    case 'sending': {
      const s = mode.sending;
      const target = s.steps[s.step] ?? 'the comment';
      const what = s.phase === 'waitClaim' ? 'waiting for the claim' : s.phase === 'reread' ? 'checking the state' : `sending ${target}`;
      return [style.dim(`${what}…${model.quitting !== 'no' ? ' (then quitting)' : ''}`)];
    }
    case 'sendFailed': {
      const s = mode.sending;
      const target = s.steps[s.step] ?? 'the comment';
      return [style.decline(safe(`NOT SENT: ${target} for this event`, width, style)), style.decline(safe(mode.message, width, style)), style.dim(safe('r retries (the state is read again first), s skips it (the decision stays unsent)', width, style))];
    }
    default:
      return [];
  }
}

function eventScreen(model: Model, current: Current, width: number, height: number, style: Style): string[] {
  const top = [header(model, current.id, width, style, current), style.dim('─'.repeat(width))];
  const bottom = [...noticeLines(current, width, style), ...promptLines(model, width, style), ...keyBarLines(model.mode, width, style)];
  const notes = noteLines(model, width, style, 2);
  const comments = labelled('comments', safe(current.seenComments, width - LABEL, style), style);
  const lists = listLine(current, width, style);
  // Rows for the facts (at most 3 items), then what is left for alerts.
  let maxItems = 3;
  let facts = factLines(current, width, style, maxItems);
  const fixed = () => top.length + facts.length + 2 + notes.length + bottom.length;
  while (maxItems > 0 && height - fixed() < 3) facts = factLines(current, width, style, --maxItems);
  const alerts = alertLines(current, width, style, height - fixed());
  return [...top, ...facts, ...alerts, lists, comments, ...notes, ...bottom];
}

function viewScreen(model: Model, mode: Extract<Mode, { name: 'view' }>, current: Current, width: number, height: number, style: Style): string[] {
  const page = viewPageSize(height);
  const lines = mode.lines ?? [style.dim('loading the tables…')];
  const start = Math.min(mode.scroll, Math.max(0, lines.length - page));
  const shown = lines.slice(start, start + page);
  const position = lines.length > page ? style.dim(`  lines ${start + 1}–${start + shown.length} of ${lines.length}`) : '';
  return [`${style.bold(`${model.index + 1}/${model.entries.length}`)}  ${style.bold(safe(current.id, width - 40, style))}  ${style.dim('everything')}${position}`, ...shown, ...keyBarLines(mode, width, style)];
}

/** The whole screen: at most `height` lines of at most `width` columns, joined by `\n`. */
export function view(model: Model, width: number, height: number, style: Style): string {
  const w = Math.max(20, width);
  const h = Math.max(4, height);
  const mode = model.mode;
  let lines: string[];
  const current = model.current;
  if (mode.name === 'help') {
    lines = [style.heading('fraudctl review: keys'), '', ...helpLines()];
  } else if (mode.name === 'view' && current) {
    lines = viewScreen(model, mode, current, w, h, style);
  } else if (current) {
    lines = eventScreen(model, current, w, h, style);
  } else if (mode.name === 'done') {
    lines = [style.dim('finishing: giving back claimed events…')];
  } else {
    const entry = model.entries[model.index];
    const id = entry ? entry.id : '';
    const status = mode.name === 'loadFailed' ? [style.decline(safe(`could not load this event: ${mode.message}`, w, style))] : [style.dim('loading…')];
    lines = [header(model, id, w, style, null), style.dim('─'.repeat(w)), ...status, ...noteLines(model, w, style, 3), ...keyBarLines(mode, w, style)];
  }
  if (lines.length > h) lines = [...lines.slice(0, h - 1), lines[lines.length - 1]!];
  return lines.map((line) => cutToWidth(line, w)).join('\n');
}
