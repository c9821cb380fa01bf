import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../src/event-lists/event-row.js';
import { createStyle } from '../../src/render/colours.js';
import { createListTable, listLayout } from '../../src/event-lists/event-list.js';
import {
  ACTIVE_EXCEPT_NEWLINE,
  CLEAR_SCREEN,
  OSC_TITLE,
  RLO,
  SGR,
  hostileJson,
  hostileString,
} from '../render/hostile-text.js';

const plain = createStyle(0);
const coloured = createStyle(1);

const found = (id: string, fields: Record<string, unknown> = {}, actionType: unknown = 'REVIEW'): EventRow => ({
  kind: 'found',
  id,
  summary: {
    id,
    state: 'PENDING_REVIEW',
    totalScore: 50,
    amount: 1649,
    currency: 'USD',
    userEmail: 'm.voss@example.org',
    eventDate: '2026-11-20T22:41:17Z',
    comments: 'called the customer',
    ...fields,
  },
  assessment: { eventId: id, actionType, totalRiskScore: 50 },
});
const notFound = (id: string): EventRow => ({
  kind: 'not-found',
  id,
  error: { status: 404, errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'], requestId: 'r', message: 'no event' },
});

describe('the compact list table', () => {
  it('off a terminal: the preferred widths, nothing cut, no trailing blanks', () => {
    // Two days and an hour after the event's date: its age is 2d.
    const table = createListTable(plain, null, [], () => Date.parse('2026-11-22T23:41:17Z'));
    expect(table.header()).toBe(
      'id                    state            decision  score            amount  email                         event date             age  comments',
    );
    const long = 'a comment much longer than any terminal is wide, '.repeat(5).trim();
    const row = table.row(found('ord-1002', { comments: long }));
    expect(row).toBe(
      `ord-1002              PENDING_REVIEW   REVIEW       50      1,649.00 USD  m.voss@example.org            2026-11-20T22:41:17Z    2d  ${long}`,
    );
    expect(table.row(notFound('ord-9'))).toBe('ord-9                 not found');
  });

  it('off a terminal a row is always one line: a longer id widens the id column from that row on', () => {
    const table = createListTable(plain, null, ['ord-1', 'ord-2']);
    const uuid = '7c1e0b2a-5d3f-4a6b-8c9d-0e1f2a3b4c5d-and-more';
    const rows = [
      table.row(found('ord-1')),
      table.row(found(uuid)),
      table.row(found('ord-3')),
      table.row(notFound(`${uuid}-x`)),
    ];
    for (const row of rows) expect(row).not.toContain('\n');
    expect(rows[1]!.startsWith(`${uuid}  PENDING_REVIEW`)).toBe(true);
    expect(rows[2]!.indexOf('PENDING_REVIEW')).toBe(rows[1]!.indexOf('PENDING_REVIEW'));
  });

  it('nulls and missing fields are dashes; an amount without a currency is the number alone', () => {
    const row = createListTable(plain, null).row(
      found('e-1', { state: null, amount: 12.5, currency: null, userEmail: undefined, comments: null }, null),
    );
    expect(row).toMatch(/^e-1\s+–\s+–\s+50\s+12\.50\s+–\s+2026-11-20T22:41:17Z\s+\d+d\s+–$/);
  });

  it('on a terminal: every line fits its width; a column that does not fit is left out whole, the comments cut with …', () => {
    for (const columns of [60, 80, 100, 120, 160, 220]) {
      const table = createListTable(coloured, columns);
      const header = table.header().replace(SGR, '');
      const lines = [
        table.header(),
        table.row(found('ord-1002', { comments: 'x'.repeat(500) })),
        table.row(notFound('ord-9')),
      ];
      for (const line of lines) expect(stringWidth(line), `${columns}: ${line}`).toBeLessThanOrEqual(columns);
      const row = lines[1]!.replace(SGR, '');
      expect(row).toMatch(/^ord-1002 +PENDING_REVIEW +REVIEW +(50 +)?1,649\.00 USD/);
      if (header.includes('event date')) expect(row).toContain('2026-11-20T22:41:17Z');
      if (header.includes('comments')) expect(row).toMatch(/ x+…$/);
      else expect(row).not.toContain('xxx');
    }
    expect(createListTable(plain, 60).header()).toBe('id           state            decision  score         amount');
  });

  it('grows the columns that can grow as the terminal widens, the comments last', () => {
    const narrow = listLayout(100, []);
    const wide = listLayout(150, []);
    expect(narrow.widths.email).toBeDefined();
    expect(wide.widths.email).toBeGreaterThan(narrow.widths.email!);
    expect(wide.id).toBeGreaterThan(narrow.id);
    expect(wide.comments).toBeGreaterThan(10);
    const roomy = listLayout(500, []);
    const offTerminal = listLayout(null, []);
    expect([roomy.id, roomy.widths]).toEqual([offTerminal.id, offTerminal.widths]);
  });

  it('at 80 columns, short ids are not padded while an email is cut: the room goes to the email', () => {
    const ids = ['user10', 'user11', 'user12'];
    const table = createListTable(plain, 80, ids);
    const row = table.row(found('user10', { userEmail: 'user10@example.org' }));
    expect(row, row).toContain('user10@example.org');
    expect(row).toMatch(/^user10 {4}PENDING_REVIEW/);
    expect(stringWidth(row)).toBeLessThanOrEqual(80);
  });

  const UUID = '7c1e0b2a-5d3f-4a6b-8c9d-0e1f2a3b4c5d';
  it('the id column fits the widest id of the first screenful when that leaves room for state, decision and amount', () => {
    for (const columns of [80, 100, null]) {
      const table = createListTable(plain, columns, ['ord-1', UUID]);
      const header = table.header();
      for (const row of [table.row(found('ord-1')), table.row(found(UUID)), table.row(notFound(UUID))]) {
        expect(row.split('\n'), `${columns}: ${row}`).toHaveLength(1);
        expect(row.search(/PENDING_REVIEW|not found/), `${columns}: ${row}`).toBe(header.indexOf('state'));
      }
    }
  });

  it('never cuts an id: on a terminal one wider than its column goes on a line of its own, its row below it, lined up', () => {
    for (const columns of [60, 120]) {
      const table = createListTable(plain, columns, ['ord-1', 'ord-2']);
      const state = table.header().indexOf('state');
      const id = `ord-${'9'.repeat(40)}`;
      for (const row of [found(id), notFound(id)]) {
        const [first, second, ...more] = table.row(row).split('\n');
        expect(first, `${columns}`).toBe(id);
        expect(more).toEqual([]);
        expect(second!.search(/PENDING_REVIEW|not found/), `${columns}: ${second}`).toBe(state);
        if (columns !== null) expect(stringWidth(second!)).toBeLessThanOrEqual(columns);
      }
      expect(table.row(found('ord-3')).search(/PENDING_REVIEW/)).toBe(state);
    }
    // Wider than the terminal: broken at its edge, every character shown.
    const huge = `ord-${'顧'.repeat(50)}-${'7'.repeat(100)}`;
    const lines = createListTable(plain, 80, ['ord-1']).row(found(huge)).split('\n');
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    expect(lines.slice(0, -1).join('')).toBe(huge);
    expect(lines.at(-1)).toMatch(/^ +PENDING_REVIEW/);
  });

  it('cuts by display width: wide characters count two', () => {
    const line = createListTable(plain, 100).row(
      found('ord-1', { userEmail: '顧客顧客顧客顧客@例え.jp', comments: '電話で確認しました。'.repeat(10) }),
    );
    expect(stringWidth(line)).toBeLessThanOrEqual(100);
    expect(line).toContain('…');
  });

  it('an input line without an id shows where it was; other failures their error type', () => {
    const table = createListTable(plain, null);
    const invalid: EventRow = {
      kind: 'invalid',
      id: null,
      where: 'results.jsonl:7',
      error: { status: null, errorType: 'INVALID_LINE', errorCodes: ['NO_ID'], requestId: null, message: '' },
    };
    expect(table.row(invalid)).toBe('(results.jsonl:7)     invalid INVALID_LINE (NO_ID)');
    const error: EventRow = {
      kind: 'error',
      id: 'e-2',
      where: 'ids.txt:2',
      exitCode: 6,
      error: { status: null, errorType: 'TIMEOUT', errorCodes: [], requestId: null, message: '' },
    };
    expect(table.row(error)).toBe('e-2                   error TIMEOUT');
  });

  it("colours the decision and nothing else of the service's text", () => {
    const line = createListTable(coloured, null).row(found('e-1', {}, 'DECLINE'));
    expect(line).toContain(coloured.decline('DECLINE '));
    expect(line.replace(SGR, '')).toMatch(/^e-1\s+PENDING_REVIEW\s+DECLINE\s+50/);
  });

  it('whatever the service sends, no row holds a terminal control, and none of its lines is wider than the terminal', () => {
    fc.assert(
      fc.property(
        hostileString,
        hostileJson,
        hostileJson,
        hostileString,
        fc.integer({ min: 40, max: 300 }),
        (id, summary, assessment, comments, columns) => {
          const base =
            typeof summary === 'object' && summary !== null && !Array.isArray(summary) ? summary : { state: summary };
          const row: EventRow = { kind: 'found', id, summary: { ...base, comments }, assessment };
          for (const style of [plain, coloured]) {
            for (const width of [null, columns]) {
              const text = createListTable(style, width, [id]).row(row).replace(SGR, '');
              expect(text).not.toMatch(ACTIVE_EXCEPT_NEWLINE);
              // A line of its own for an id wider than its column, and the row below it: never more.
              expect(text.split('\n').length).toBeLessThanOrEqual(
                width === null ? 2 : 2 + Math.ceil(stringWidth(id) / width),
              );
              if (width !== null)
                for (const line of text.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(width);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('escapes a known attack in every column', () => {
    const evil = `${CLEAR_SCREEN}${OSC_TITLE}${RLO}`;
    const line = createListTable(plain, 200).row(
      found(evil, { state: evil, userEmail: evil, comments: evil, currency: evil }, evil),
    );
    expect(line).not.toMatch(ACTIVE_EXCEPT_NEWLINE);
    expect(line).toContain('\\x1b[2J');
  });
});
