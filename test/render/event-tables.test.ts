/* eslint-disable no-control-regex -- these tests look for terminal control characters on purpose */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStyle } from '../../src/render/colours.js';
import {
  CELL_MAX,
  renderDecision,
  renderEventSummary,
  renderKeyValues,
  renderRiskAssessment,
} from '../../src/render/event-tables.js';
import type { Decision, EventSummary, RiskAssessment } from '../../src/contract/index.js';
import { ACTIVE_EXCEPT_NEWLINE, CLEAR_SCREEN, CSI_8BIT, OSC_TITLE, RLO, SGR, hostileJson } from './hostile-text.js';

const plain = createStyle(0);
const coloured = createStyle(1);

/** An event summary with all 32 fields of the contract. */
function summaryFixture(): EventSummary {
  return {
    id: 'ord-20250301-0042',
    totalScore: 55,
    state: 'PENDING_REVIEW',
    eventDate: '2025-03-01T10:15:00Z',
    amount: 1520,
    amountInBaseCurrency: 1641.6,
    currency: 'EUR',
    baseCurrency: 'USD',
    userName: 'jdoe',
    userEmail: 'jane.doe@example.com',
    shippingCountry: 'DE',
    shippingFullName: 'Jane Doe',
    shippingCity: 'Berlin',
    shippingRegion: null,
    shippingZip: '10115',
    shippingStreet1: 'Invalidenstraße 1',
    shippingStreet2: null,
    shippingPhone: '+49 30 1234567',
    billingCountry: 'NL',
    billingCity: 'Amsterdam',
    billingRegion: 'Noord-Holland',
    billingZip: '1011 AB',
    billingStreet1: 'Damrak 1',
    billingStreet2: null,
    billingPhone: '+31 20 7654321',
    userIp: '203.0.113.7',
    allowlistMatch: false,
    denylistMatch: true,
    userCreated: '2025-02-28',
    userFullName: 'Jane Doe',
    comments: null,
    items: [
      {
        itemId: 'SKU-1',
        itemName: 'Trail shoes',
        itemQuantity: 2,
        itemPrice: 760,
        itemPriceInBaseCurrency: 820.8,
        itemCategory: 'shoes',
        itemSeller: 'Shoe Co',
        itemSellerCountry: 'DE',
        itemCurrency: 'EUR',
      },
      {
        itemId: null,
        itemName: 'Gift wrap',
        itemQuantity: 1,
        itemPrice: 0,
        itemPriceInBaseCurrency: 0,
        itemCategory: null,
        itemSeller: null,
        itemSellerCountry: null,
        itemCurrency: null,
      },
    ],
  };
}

function decisionFixture(): Decision {
  return {
    id: 'ord-20250301-0042',
    actionType: 'DECLINE',
    totalRiskScore: 85,
    state: 'DECLINED',
    ruleMatches: [
      { ruleId: 'high-amount', name: 'Order above 1,000', score: 30 },
      { ruleId: 'new-account', name: 'Account younger than a week', score: 55 },
    ],
    listMatches: [{ list: 'DENYLIST', field: 'userEmail', value: 'jane.doe@example.com' }],
  };
}

function assessmentFixture(): RiskAssessment {
  return {
    eventId: 'ord-20250301-0042',
    actionType: 'REVIEW',
    totalRiskScore: 55,
    alerts: [
      {
        ruleId: 'country-mismatch',
        name: 'Billing and shipping countries differ',
        severity: 'LOW',
        score: 10,
        description: 'DE vs NL',
      },
      { ruleId: 'new-account', name: 'New account', severity: 'HIGH', score: 35, description: 'created yesterday' },
      { ruleId: 'velocity', name: 'Orders per hour', severity: 'MEDIUM', score: 10, description: '4 orders in 1h' },
    ],
    listMatches: [],
  };
}

/** The line of a two-column table that starts with `label`. */
function row(output: string, label: string): string {
  const line = output.split('\n').find((l) => l.startsWith(`│ ${label} `));
  if (line === undefined) throw new Error(`no row ${label} in\n${output}`);
  return line;
}

const hostileName = `${CLEAR_SCREEN}${OSC_TITLE}${CSI_8BIT}${RLO}gnp.exe\x00\rEVIL`;
const hugeName = 'A'.repeat(100_000);

function expectInert(output: string): void {
  expect(output).not.toMatch(ACTIVE_EXCEPT_NEWLINE);
  expect(output).not.toContain('\x1b');
}

describe('renderEventSummary', () => {
  const out = renderEventSummary(summaryFixture(), plain);

  it('shows the fields in their sections, in order', () => {
    const headings = ['Decision', 'Amount', 'User', 'Shipping', 'Billing'].map((h) => out.indexOf(`│ ${h} `));
    expect(headings.every((at) => at >= 0)).toBe(true);
    expect([...headings].sort((a, b) => a - b)).toEqual(headings);
    expect(row(out, 'state')).toContain('PENDING_REVIEW');
    expect(row(out, 'IP')).toContain('203.0.113.7');
    expect(out).toContain('Amsterdam');
  });

  it('shows amounts with two decimals and their currency', () => {
    expect(row(out, 'amount')).toContain('1,520.00 EUR');
    expect(row(out, 'in base currency')).toContain('1,641.60 USD');
  });

  it('shows a dash for null', () => {
    expect(row(out, 'comments')).toMatch(/│ comments +│ – +│/);
    expect(out.match(/│ street 2 +│ – +│/g)).toHaveLength(2);
  });

  it('lists the items with prices in the item and the base currency', () => {
    const items = out.slice(out.indexOf('Items (2)'));
    expect(items).toMatch(/item +│ quantity │ +price │ base-currency price │ seller +│ category/);
    const shoes = items.split('\n').find((l) => l.includes('SKU-1'))!;
    expect(shoes).toMatch(/SKU-1 \/ Trail shoes +│ +2 │ +760\.00 EUR │ +820\.80 USD │ Shoe Co \(DE\) +│ shoes/);
    // No item currency: the number alone. No id: the name alone.
    expect(items.split('\n').find((l) => l.includes('Gift wrap'))).toMatch(
      /│ Gift wrap +│ +1 │ +0\.00 │ +0\.00 USD │ – +│ – +│/,
    );
    expect(items).not.toContain('other');
  });

  it('shows fields the contract does not name under "Other fields"', () => {
    const withExtra = renderEventSummary({ ...summaryFixture(), riskTier: 'gold', tags: ['vip', 1] }, plain);
    expect(withExtra.indexOf('Other fields')).toBeGreaterThan(withExtra.indexOf('Billing'));
    expect(row(withExtra, 'riskTier')).toContain('gold');
    expect(row(withExtra, 'tags')).toContain('["vip",1]');
  });

  it('shows extra item fields, and entries that are not objects, in an "other" column', () => {
    const items = [{ ...summaryFixture().items![0], giftWrap: true, note: 'ring twice' }, 42];
    const text = renderEventSummary({ ...summaryFixture(), items }, plain);
    expect(text).toMatch(/│ other +│/);
    expect(text).toContain('giftWrap=true note=ring twice');
    expect(text).toMatch(/│ 42 +│/);
  });

  it('copes with missing fields and missing, null or empty items', () => {
    for (const items of [undefined, null, []]) {
      const text = renderEventSummary(
        { id: 'evt-2', totalScore: 10, ...(items === undefined ? {} : { items }) },
        plain,
      );
      expect(row(text, 'id')).toContain('evt-2');
      expect(row(text, 'amount')).toMatch(/│ amount +│ – +│/);
      expect(text).toMatch(/no items$/);
    }
  });

  it('shows a currency without an amount, and an amount of another type as it came', () => {
    const text = renderEventSummary({ ...summaryFixture(), amount: null, amountInBaseCurrency: '1641.60' }, plain);
    expect(row(text, 'amount')).toContain('– EUR');
    expect(row(text, 'in base currency')).toContain('1641.60 USD');
  });

  it('shows items that are not a list as they came', () => {
    expect(renderEventSummary({ ...summaryFixture(), items: 'withheld' }, plain)).toMatch(/Items\nwithheld$/);
  });
});

describe('hostile text from the service', () => {
  const hostileSummary = {
    ...summaryFixture(),
    userName: hostileName,
    userFullName: hugeName,
    [`x${CLEAR_SCREEN}`]: `v${RLO}`,
    items: [{ ...summaryFixture().items![0], itemName: OSC_TITLE, [`${CSI_8BIT}k`]: '\r' }],
  };

  it('reaches the terminal only as visible escapes, keys included', () => {
    const out = renderEventSummary(hostileSummary, plain);
    expectInert(out);
    expect(row(out, 'name')).toContain('\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07\\x9b31m\\u202egnp.exe\\x00\\x0dEVIL');
    expect(out).toContain('x\\x1b[2J\\x1b[H');
    expect(out).toContain('\\x9b31mk=\\x0d');
  });

  it('cuts a 100 KB name to CELL_MAX with a marker, keeping the table narrow', () => {
    const out = renderEventSummary(hostileSummary, plain);
    expect(row(out, 'full name')).toContain(`${'A'.repeat(CELL_MAX)}… (+99,800 chars)`);
    expect(Math.max(...out.split('\n').map((l) => l.length))).toBeLessThan(CELL_MAX + 100);
  });

  it('adds only our own colour sequences at colour level 1', () => {
    const outputs = [
      renderEventSummary(hostileSummary, coloured),
      renderDecision({ ...decisionFixture(), actionType: hostileName, state: hugeName }, coloured),
      renderRiskAssessment(
        { ...assessmentFixture(), alerts: [{ severity: OSC_TITLE, description: hostileName }] },
        coloured,
      ),
      renderKeyValues({ [hostileName]: [{ [RLO]: CSI_8BIT }] }, coloured),
    ];
    for (const out of outputs) {
      expect(out).toMatch(SGR);
      expectInert(out.replace(SGR, ''));
    }
  });

  it('never throws and never lets a control through, for any JSON value', () => {
    const renderers = [renderEventSummary, renderDecision, renderRiskAssessment, renderKeyValues];
    fc.assert(
      fc.property(hostileJson, fc.constantFrom(...renderers), (value, render) => {
        expectInert(render(value, plain));
        expectInert(render(value, coloured).replace(SGR, ''));
      }),
      { numRuns: 300 },
    );
  });
});

describe('renderDecision', () => {
  it('leads with the decision, score, event id and state', () => {
    const out = renderDecision(decisionFixture(), plain);
    expect(out.split('\n')[0]).toBe('DECLINE  score 85/100  event ord-20250301-0042  state DECLINED');
  });

  it('lists rule and list matches', () => {
    const out = renderDecision(decisionFixture(), plain);
    expect(out).toContain('Rule matches (2)');
    expect(out).toMatch(/│ new-account +│ Account younger than a week +│ +55 │/);
    expect(out).toContain('List matches (1)');
    expect(out).toMatch(/│ DENYLIST │ userEmail │ jane\.doe@example\.com │/);
  });

  it('says when nothing matched', () => {
    const out = renderDecision(
      { ...decisionFixture(), actionType: 'APPROVE', ruleMatches: [], listMatches: [] },
      plain,
    );
    expect(out).toContain('no rule matched');
    expect(out).toContain('no list matched');
  });

  it('has no escape sequence at colour level 0, and a coloured decision word at level 1', () => {
    expect(renderDecision(decisionFixture(), plain)).not.toContain('\x1b');
    expect(renderDecision(decisionFixture(), coloured).split('\n')[0]).toMatch(
      /^\x1b\[31m(\x1b\[[0-9;]*m)*DECLINE\x1b\[/,
    );
    expect(renderDecision({ ...decisionFixture(), actionType: 'APPROVE' }, coloured)).toMatch(
      /^\x1b\[32m(\x1b\[[0-9;]*m)*APPROVE/,
    );
  });

  it('shows an unknown decision word plain, missing fields as dashes and extra fields under "Other fields"', () => {
    const out = renderDecision({ actionType: 'HOLD', ruleMatches: [], reviewer: { team: 'EU' } }, coloured);
    expect(out.split('\n')[0]).toMatch(/^HOLD +\x1b\[2mscore\x1b\[22m \x1b\[2m–\x1b\[22m\/100/);
    const text = renderDecision({ actionType: 'HOLD', ruleMatches: [], reviewer: { team: 'EU' } }, plain);
    expect(text.split('\n')[0]).toBe('HOLD  score –/100  event –  state –');
    expect(text).toMatch(/List matches\n–/);
    expect(text).toMatch(/Other fields\n.*\n│ reviewer │ \{"team":"EU"\} │/);
  });
});

describe('renderRiskAssessment', () => {
  it('leads with the decision and score, then alerts by score, highest first', () => {
    const out = renderRiskAssessment(assessmentFixture(), plain);
    expect(out.split('\n')[0]).toBe('REVIEW  score 55/100  event ord-20250301-0042');
    const order = ['new-account', 'country-mismatch', 'velocity'].map((id) => out.indexOf(`│ ${id} · `));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(out).toMatch(/│ new-account · New account +│ HIGH +│ +35 │ created yesterday +│/);
    expect(out).toContain('no list matched');
  });

  it('colours severities', () => {
    const out = renderRiskAssessment(assessmentFixture(), coloured);
    expect(out).toContain('\x1b[31mHIGH\x1b[39m');
    expect(out).toContain('\x1b[33mMEDIUM\x1b[39m');
  });

  it('keeps odd alerts: no score last, extra fields and non-objects in "other"', () => {
    const out = renderRiskAssessment(
      {
        ...assessmentFixture(),
        alerts: [
          'legacy-alert',
          { ruleId: 'r1', score: 5, weight: 0.4 },
          { name: 'only a name', severity: 'CRITICAL', score: 90 },
        ],
      },
      plain,
    );
    const lines = out.split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    expect(at('only a name')).toBeLessThan(at('r1'));
    expect(at('r1')).toBeLessThan(at('legacy-alert'));
    expect(lines[at('r1')]).toContain('weight=0.4');
    expect(lines[at('only a name')]).toContain('CRITICAL');
    expect(lines[at('legacy-alert')]).toMatch(/│ – +│ – +│ +– │ – +│ legacy-alert +│/);
  });

  it.each<[string, unknown, string[]]>([
    ['alerts that are not a list', { alerts: 'nope' }, ['nope']],
    ['null', null, ['–']],
    ['a string', 'maintenance', ['maintenance']],
    ['an array of numbers', [1, 2], ['│ 0 │ 1     │', '│ 1 │ 2     │']],
    [
      'an unknown shape',
      { eventId: 'x', findings: [{ a: 1 }, { b: 2 }] },
      ['│ eventId │ x │', 'findings', '│ a │ b │', '│ 1 │ – │', '│ – │ 2 │'],
    ],
    ['an empty object', {}, ['(no fields)']],
  ])('shows %s without throwing', (_what, value, shown) => {
    const out = renderRiskAssessment(value, plain);
    for (const text of shown) expect(out).toContain(text);
  });
});

describe('renderKeyValues', () => {
  it('shows an object as rows, and a list of objects as a table of the union of their keys', () => {
    const out = renderKeyValues(
      {
        requestId: 'req-1',
        state: 'ESCALATED',
        history: [
          { at: 't1', state: 'A' },
          { at: 't2', by: 'ana' },
        ],
      },
      plain,
    );
    expect(out).toMatch(/│ requestId │ req-1 +│/);
    expect(out).toMatch(/history\n.*\n│ at +│ state │ by +│/);
    expect(out).toMatch(/│ t2 +│ – +│ ana │/);
  });

  it('shows a key the service sent as __proto__ like any other', () => {
    expect(renderKeyValues(JSON.parse('{"__proto__": {"x": 1}}'), plain)).toContain('│ __proto__ │ {"x":1} │');
  });
});
