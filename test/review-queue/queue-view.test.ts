import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStyle } from '../../src/render/colours.js';
import { cutToWidth, displayWidth } from '../../src/render/display-width.js';
import { editLine } from '../../src/review-queue/comment-editor.js';
import { MAX_COMMENT_LENGTH } from '../../src/contract/limits.js';
import { KEYMAP } from '../../src/review-queue/keymap.js';
import { initialModel, type Model, type Msg } from '../../src/review-queue/queue-model.js';
import { renderSessionSummary } from '../../src/review-queue/queue-summary.js';
import { update } from '../../src/review-queue/queue-update.js';
import { view } from '../../src/review-queue/queue-view.js';
import {
  ACTIVE_EXCEPT_NEWLINE,
  CLEAR_SCREEN,
  CSI_8BIT,
  hostileString,
  OSC_TITLE,
  RLO,
  SGR,
} from '../render/hostile-text.js';

/*
 * The screen as text, without a terminal: what it shows, and that it fits whatever the
 * service sends.
 */

const plain = createStyle(0);
const coloured = createStyle(3);

function event(overrides: Record<string, unknown> = {}) {
  return {
    id: 'ord-1002',
    totalScore: 50,
    state: 'IN_REVIEW',
    eventDate: '2026-11-20T22:41:17Z',
    amount: 1649,
    amountInBaseCurrency: 1517.08,
    currency: 'USD',
    baseCurrency: 'EUR',
    userName: 'jdoe',
    userEmail: 'jane@example.com',
    userIp: '203.0.113.7',
    userCreated: '2026-11-17',
    shippingCountry: 'NL',
    billingCountry: 'BE',
    comments: 'called the customer',
    items: [
      {
        itemName: 'Mouse',
        itemQuantity: 2,
        itemPrice: 20,
        itemPriceInBaseCurrency: 18.4,
        itemCategory: 'accessories',
        itemCurrency: 'USD',
      },
      {
        itemName: 'Laptop 14"',
        itemQuantity: 1,
        itemPrice: 1609,
        itemPriceInBaseCurrency: 1480.28,
        itemCategory: 'electronics',
        itemCurrency: 'USD',
      },
    ],
    ...overrides,
  };
}

function assessment(overrides: Record<string, unknown> = {}) {
  return {
    eventId: 'ord-1002',
    actionType: 'REVIEW',
    totalRiskScore: 50,
    alerts: [
      {
        ruleId: 'country_mismatch',
        name: 'Countries differ',
        severity: 'MEDIUM',
        score: 20,
        description: 'billing country BE is not shipping country NL',
      },
      { ruleId: 'new_account', name: 'New account', severity: 'HIGH', score: 20, description: 'account is 3 days old' },
      {
        ruleId: 'high_amount',
        name: 'High amount',
        severity: 'MEDIUM',
        score: 30,
        description: 'amountInBaseCurrency 1517.08 is above 1000',
      },
    ],
    listMatches: [{ list: 'DENYLIST', field: 'userEmail', value: 'jane@example.com' }],
    ...overrides,
  };
}

/** A model showing one event (the third of five), claimed. */
function showing(summary: Record<string, unknown>, risk: unknown, size = { width: 80, height: 24 }): Model {
  const ids = ['a', 'b', String(summary.id ?? 'x'), 'd', 'e'];
  let model = initialModel(
    ids.map((id) => ({ id })),
    { claim: true, includeClaimed: false, includeDecided: false },
    size,
  );
  const send = (msg: Msg) => {
    model = update(model, msg)[0];
  };
  send({ type: 'start' });
  send({
    type: 'loaded',
    index: 0,
    summary: { id: 'a', state: 'APPROVED' },
    assessment: null,
    assessmentProblem: null,
  });
  send({
    type: 'loaded',
    index: 1,
    summary: { id: 'b', state: 'DECLINED' },
    assessment: null,
    assessmentProblem: null,
  });
  send({
    type: 'loaded',
    index: 2,
    summary: { ...summary, state: 'PENDING_REVIEW' },
    assessment: risk,
    assessmentProblem: null,
  });
  send({ type: 'claimed', id: ids[2]!, summary: summary as never, requestId: 'r' });
  return model;
}

function expectFits(screen: string, width: number, height: number): void {
  const lines = screen.split('\n');
  expect(lines.length).toBeLessThanOrEqual(height);
  for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
}

describe('the event screen', () => {
  it('shows position, id, decision, score, state and the facts an analyst decides on, in 80×24', () => {
    // Three hours after the event's date.
    const screen = view(showing(event(), assessment()), 80, 24, plain, Date.parse('2026-11-21T01:41:17Z'));
    expectFits(screen, 80, 24);
    const lines = screen.split('\n');
    expect(lines[0]).toMatch(/^3\/5 {2}ord-1002 {3}REVIEW {2}score 50 {2}IN_REVIEW \(claimed by you\)$/);
    expect(screen).toContain('amount    1,649.00 USD  · 1,517.08 EUR base  · 2026-11-20T22:41:17Z  · age 3h');
    expect(screen).toContain('user      jdoe  · jane@example.com  · 203.0.113.7');
    expect(screen).toMatch(/account {3}3 days old \(created 2026-11-17\) {3}ship NL bill BE {2}differ/);
    expect(screen).toContain('items     3 in 2 lines');
    // Top items by value first.
    expect(screen.indexOf('Laptop 14"')).toBeLessThan(screen.indexOf('Mouse'));
    // Alerts by severity, then score.
    const order = ['new_account', 'high_amount', 'country_mismatch'].map((r) => screen.indexOf(r));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(screen).toContain('lists     DENYLIST userEmail=jane@example.com');
    expect(screen).toContain('comments  called the customer');
    expect(screen).toContain('passed over b: DECLINED, no longer awaiting review');
    expect(lines.at(-1)).toContain('quit');
  });

  it('uses the width it has: a long description is cut at 80 and shown whole at 160', () => {
    const long = 'x'.repeat(120);
    const risk = assessment({ alerts: [{ ruleId: 'r', name: 'n', severity: 'LOW', score: 1, description: long }] });
    expect(view(showing(event(), risk), 80, 24, plain)).not.toContain(long);
    expect(view(showing(event(), risk), 160, 24, plain)).toContain(long);
  });

  it('colours the decision and severities, and NO_COLOR (level 0) has no escape at all', () => {
    const model = showing(event(), assessment());
    expect(view(model, 80, 24, coloured)).toMatch(SGR);
    expect(view(model, 80, 24, plain)).not.toContain('\x1b');
  });

  it('shows more alerts than fit as "+N more (v)"', () => {
    const alerts = Array.from({ length: 40 }, (_, i) => ({
      ruleId: `rule_${i}`,
      name: 'n',
      severity: 'LOW',
      score: i,
      description: 'd',
    }));
    const screen = view(showing(event(), assessment({ alerts })), 80, 24, plain);
    expectFits(screen, 80, 24);
    expect(screen).toMatch(/\+\d+ more \(v\)/);
  });

  it('keeps fitting on small and large terminals', () => {
    for (const [w, h] of [
      [40, 12],
      [40, 30],
      [60, 16],
      [80, 24],
      [132, 43],
      [250, 70],
    ] as const) {
      expectFits(view(showing(event(), assessment()), w, h, coloured), w, h);
    }
  });

  it('a window too small for the keys, the score and the alerts says so, and how big it must be; it shows no decision key', () => {
    for (const [w, h] of [
      [80, 12],
      [45, 14],
      [40, 10],
      [30, 40],
    ] as const) {
      const screen = view(showing(event(), assessment()), w, h, plain);
      expectFits(screen, w, h);
      expect(screen.replace(/\s+/g, ' ')).toMatch(
        /The window is too small for the event and its keys: make it at least \d+×\d+\. No decision is taken until then\./,
      );
      expect(screen).not.toMatch(/approve|decline/);
      expect(screen.split('\n').at(-1)).toBe('q quit');
      // The size it names is one that shows the event, with every key.
      const [, nw, nh] = /at least (\d+)×(\d+)/.exec(screen.replace(/\s+/g, ' '))!.map(Number);
      const big = view(showing(event(), assessment()), nw!, nh!, plain);
      expect(big).not.toContain('too small');
      for (const word of [
        'approve',
        'decline',
        'escalate',
        'fraud',
        'comment',
        'skip',
        'quit',
        'score',
        'Alerts (3)',
        'new_account',
      ])
        expect(big).toContain(word);
    }
  });

  it('the comment line shows the comment the event has, that it replaces, and Tab that keeps it', () => {
    let model = showing(event(), assessment());
    model = update(model, { type: 'key', text: 'a', key: { name: 'a' } })[0];
    model = update(model, { type: 'key', text: 'x', key: { name: 'x' } })[0];
    expect(view(model, 80, 24, plain)).toMatch(
      /replaces its comment: "called the customer" {2}· Tab: keep it, yours after it/,
    );
    model = update(model, { type: 'key', text: '\t', key: { name: 'tab' } })[0];
    expect(view(model, 80, 24, plain)).toMatch(
      /keeps its comment, yours after: "called the customer" {2}· Tab: replace it$/m,
    );
  });

  it('the comment line says what Enter sends: with nothing typed the comment stays, a reason goes after it', () => {
    const base = showing(event({ comments: 'DO NOT APPROVE: police case 7781' }), assessment());
    const reasons = { profile: 'team', codes: [{ code: 'stolen-card', states: null }], required: false };
    const withCodes: Model = { ...base, options: { ...base.options, reasons } };
    let model = update(withCodes, { type: 'key', text: 'd', key: { name: 'd' } })[0];
    model = update(model, { type: 'key', text: '1', key: { name: '1' } })[0];
    const screen = view(model, 80, 24, plain);
    expect(screen).toMatch(/^keeps its comment, the reason after it: "DO NOT APPROVE: police case 7781"$/m);
    expect(screen).toContain('Enter sends (empty: the reason, after its comment)');
    model = update(model, { type: 'key', text: 'x', key: { name: 'x' } })[0];
    expect(view(model, 80, 24, plain)).toMatch(
      /^replaces its comment: "DO NOT APPROVE: police .*" {2}· Tab: keep it, yours after it$/m,
    );
    // A decision with nothing typed sends the state alone: the comment stays, and the screen says so.
    const plainDecision = update(base, { type: 'key', text: 'a', key: { name: 'a' } })[0];
    expect(view(plainDecision, 80, 24, plain)).toMatch(/^keeps its comment: "DO NOT APPROVE: police case 7781"/m);
    // A comment only keeps it by default.
    const commentOnly = update(update(base, { type: 'key', text: 'c', key: { name: 'c' } })[0], {
      type: 'key',
      text: 'y',
      key: { name: 'y' },
    })[0];
    expect(view(commentOnly, 80, 24, plain)).toMatch(
      /^keeps its comment, yours after: "DO NOT APPROVE: .*" {2}· Tab: replace it$/m,
    );
  });

  it('after a conflict at 80 columns, the colleague’s decision is shown whole, and the question before overturning it', () => {
    let model = showing(event({ comments: null }), assessment());
    const send = (msg: Msg) => (model = update(model, msg)[0]);
    send({ type: 'key', text: 'a', key: { name: 'a' } });
    send({ type: 'key', text: '\r', key: { name: 'return' } });
    const theirs = event({ state: 'DECLINED', comments: 'DO NOT APPROVE: police case 7781, per the fraud team lead' });
    send({ type: 'reread', id: 'ord-1002', summary: theirs });
    const screen = view(model, 80, 24, plain);
    expect(screen).toMatch(/^ {2}state IN_REVIEW → DECLINED$/m);
    expect(screen).toMatch(/^ {2}comment \(none\) → "DO NOT APPROVE: police case 7781, per the fraud team lead"$/m);
    expect(screen).not.toContain('…');
    send({ type: 'key', text: 'a', key: { name: 'a' } });
    const asked = view(model, 80, 24, plain);
    expect(asked.replace(/\s+/g, ' ')).toContain(
      'DECLINED was set by someone else since you opened it. Approve all the same, overturning it? ' +
        'y: yes, overturn their DECLINED · any other key: no, nothing sent',
    );
    expectFits(asked, 80, 24);
  });

  it('the comment line keeps the cursor in sight for a long comment', () => {
    let model = showing(event(), assessment());
    model = update(model, { type: 'key', text: 'a', key: { name: 'a' } })[0];
    for (const ch of 'a fairly long comment that will not fit on one line of eighty columns at all, no')
      model = update(model, { type: 'key', text: ch, key: { name: ch } })[0];
    const screen = view(model, 80, 24, plain);
    expectFits(screen, 80, 24);
    expect(screen).toMatch(/no▏/);
  });
});

describe('a hostile event', () => {
  const big = (seed: string) => `${seed}${'W'.repeat(100 * 1024)}`;
  const nasty = `${CLEAR_SCREEN}${OSC_TITLE}${CSI_8BIT}${RLO}evil\u2066\u200f\r\n\t\x00名前`;
  const hostileSummary = () => {
    const fields = event();
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) out[k] = typeof v === 'string' ? big(nasty + k) : v;
    out.items = [
      { itemName: big(nasty), itemQuantity: 1, itemPrice: 1, itemCategory: big(nasty), itemCurrency: big(nasty) },
    ];
    out[big(nasty)] = big(nasty);
    return out;
  };
  const hostileAssessment = () =>
    assessment({
      actionType: big(nasty),
      alerts: Array.from({ length: 5 }, () => ({
        ruleId: big(nasty),
        name: big(nasty),
        severity: big(nasty),
        score: big(nasty),
        description: big(nasty),
      })),
      listMatches: [{ list: big(nasty), field: big(nasty), value: big(nasty) }],
    });

  it('cannot put a control on the terminal or break the layout (100 KB escapes and bidi in every field)', () => {
    for (const style of [plain, coloured]) {
      for (const [w, h] of [
        [80, 24],
        [40, 10],
        [200, 60],
      ] as const) {
        const screen = view(showing(hostileSummary(), hostileAssessment(), { width: w, height: h }), w, h, style);
        expectFits(screen, w, h);
        expect(screen.replace(SGR, '')).not.toMatch(ACTIVE_EXCEPT_NEWLINE);
        expect(screen.replace(SGR, '')).not.toContain('\x1b');
      }
    }
  });

  it('holds for any string the service could send (property)', () => {
    fc.assert(
      fc.property(
        hostileString,
        hostileString,
        fc.integer({ min: 20, max: 200 }),
        fc.integer({ min: 4, max: 60 }),
        (a, b, w, h) => {
          const summary = {
            ...event({ userName: a, userEmail: b, comments: a + b, shippingCountry: b }),
            id: a || 'x',
          };
          const risk = assessment({ alerts: [{ ruleId: a, name: b, severity: b, score: 1, description: a }] });
          const screen = view(showing(summary, risk, { width: w, height: h }), w, h, coloured);
          expectFits(screen, Math.max(20, w), Math.max(4, h));
          expect(screen.replace(SGR, '')).not.toMatch(ACTIVE_EXCEPT_NEWLINE);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the view of everything and the summary are made safe too', () => {
    let model = showing(hostileSummary(), hostileAssessment());
    model = update(model, { type: 'viewReady', id: model.current!.id, lines: [] })[0];
    const summary = renderSessionSummary(
      { ...model, outcomes: new Map([[big(nasty), { group: 'skipped' as const }]]) },
      plain,
      80,
      { logPath: null, serviceFlags: [] },
    );
    expect(summary).not.toMatch(ACTIVE_EXCEPT_NEWLINE);
  });
});

describe('the keymap drives the help screen', () => {
  it('? lists every key of the table, and fits 80×24', () => {
    let model = showing(event(), assessment());
    model = update(model, { type: 'key', text: '?', key: { name: undefined, sequence: '?' } })[0];
    const screen = view(model, 80, 24, plain);
    expectFits(screen, 80, 24);
    for (const binding of KEYMAP) expect(screen).toContain(binding.shown);
    for (const binding of KEYMAP.filter((b) => b.contexts.includes('event')))
      expect(screen).toContain(binding.help.slice(0, 40));
  });
});

describe('the comment editor', () => {
  const key = (name: string, extra = {}) => ({ name, ...extra });
  it('edits: insert, move, delete, kill line and word', () => {
    let line = { text: '', cursor: 0 };
    const apply = (text: string | undefined, k: object) => {
      const r = editLine(line, text, k);
      if (r.kind === 'edit') line = r.line;
      return r.kind;
    };
    for (const ch of 'hello world') apply(ch, key(ch));
    apply(undefined, key('left'));
    apply(undefined, key('backspace'));
    expect(line).toEqual({ text: 'hello word', cursor: 9 });
    apply(undefined, key('w', { ctrl: true }));
    expect(line).toEqual({ text: 'hello d', cursor: 6 });
    apply(undefined, key('u', { ctrl: true }));
    expect(line).toEqual({ text: '', cursor: 0 });
    // A paste with newlines and controls becomes one line of plain text.
    apply('a\nb\x1b[31m', { sequence: 'a\nb\x1b[31m' });
    expect(line.text).toBe('a b[31m');
    expect(apply('\r', key('return'))).toBe('submit');
    expect(apply('\x1b', key('escape'))).toBe('cancel');
  });

  it('stops at the service’s comment limit, counted as the service counts (an emoji is one character)', () => {
    const full = '😀'.repeat(MAX_COMMENT_LENGTH);
    expect(editLine({ text: full, cursor: full.length }, 'y', key('y')).kind).toBe('ignored');
    // One short of it: a paste takes as much as fits.
    const almost = '😀'.repeat(MAX_COMMENT_LENGTH - 1);
    const r = editLine({ text: almost, cursor: almost.length }, 'abc', { sequence: 'abc' });
    expect(r).toEqual({ kind: 'edit', line: { text: `${almost}a`, cursor: almost.length + 1 } });
  });
});

describe('display width', () => {
  it('counts wide characters as two, combining marks as none, and cuts with a marker, closing colours', () => {
    expect(displayWidth('名前')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\x1b[31mred\x1b[39m')).toBe(3);
    expect(cutToWidth('abcdef', 4)).toBe('abc…');
    expect(cutToWidth('abcd', 4)).toBe('abcd');
    expect(cutToWidth('名前名前', 5)).toBe('名前…');
    expect(cutToWidth('\x1b[31mabcdef\x1b[39m', 4)).toBe('\x1b[31mabc…\x1b[39m');
  });
});

describe('the event age and --sla', () => {
  const now = Date.parse('2026-11-22T22:41:17Z');
  const withSla = (sla: number | null) => {
    const model = showing(event(), assessment());
    return { ...model, options: { ...model.options, sla } };
  };

  it('without --sla the age alone; with it the time left, or overdue by how long; the date gives way to its day first', () => {
    expect(view(withSla(null), 80, 24, plain, now)).toMatch(/2026-11-20T22:41:17Z {2}· age 2d$/m);
    expect(view(withSla(null), 80, 24, plain, now)).not.toMatch(/left|overdue/);
    expect(view(withSla(3 * 86_400_000), 80, 24, plain, now)).toMatch(/· 2026-11-20 {2}· age 2d {2}· 1d left$/m);
    // Too long for the line even with the date short: on a line of its own, under the amount.
    expect(view(withSla(4 * 3_600_000), 80, 24, plain, now)).toMatch(/· age 2d\n {10}overdue by 1d 20h$/m);
    expect(view(withSla(4 * 3_600_000), 120, 24, plain, now)).toMatch(
      /2026-11-20T22:41:17Z {2}· age 2d {2}· overdue by 1d 20h$/m,
    );
  });

  it('overdue in the decline colour', () => {
    const model = withSla(4 * 3_600_000);
    expect(view(model, 80, 24, coloured, now)).toContain(coloured.decline('overdue by 1d 20h'));
  });
});
