import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../src/event-lists/event-row.js';
import { csvHeader, csvRow } from '../../src/event-lists/event-list-csv.js';
import { ACTIVE_EXCEPT_NEWLINE, hostileString } from '../render/hostile-text.js';

const found = (fields: Record<string, unknown>): EventRow => ({
  kind: 'found',
  id: 'e-1',
  summary: {
    id: 'e-1',
    state: 'APPROVED',
    totalScore: 5,
    amount: 10.5,
    currency: 'EUR',
    userEmail: 'a@example.com',
    eventDate: '2026-11-20T09:14:03Z',
    comments: null,
    ...fields,
  },
  assessment: { actionType: 'APPROVE' },
});
const record = (row: EventRow) => (parse(csvHeader() + csvRow(row), { columns: true }) as Record<string, string>[])[0]!;

describe('the list as CSV', () => {
  it('RFC 4180: a header row, CRLF, text quoted, quotes doubled, commas and numbers as they are', () => {
    expect(csvHeader()).toBe(
      '"id","state","decision","score","amount","currency","email","event date","comments","error","age"\r\n',
    );
    // Three hours after the event's date.
    expect(csvRow(found({ comments: 'said "hi", then left' }), Date.parse('2026-11-20T12:14:03Z'))).toBe(
      '"e-1","APPROVED","APPROVE",5,10.5,"EUR","a@example.com","2026-11-20T09:14:03Z","said ""hi"", then left","","3h"\r\n',
    );
  });

  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\uff1dcmd', '=HYPERLINK("http://evil.example","x")'])(
    'prefixes a value starting %j with a quote, as OWASP recommends',
    (value) => {
      const r = record(found({ comments: value, userEmail: value, state: value }));
      for (const column of ['comments', 'email', 'state']) expect(r[column]).toBe(`'${value}`);
    },
  );

  it('an id stays as it is, even one a spreadsheet would read as a formula (-1234): an id cannot hold one; the guard stays for text', () => {
    const row: EventRow = { ...found({ id: '-1234', userEmail: '-x@example.com', comments: '-1' }), id: '-1234' };
    expect(csvRow(row)).toMatch(/^"-1234","APPROVED",/);
    expect(record(row)).toMatchObject({ id: '-1234', email: "'-x@example.com", comments: "'-1" });
    // An id the service calls malformed is not an id the contract allows: it keeps the guard.
    const error = { status: 400, errorType: 'VALIDATION_ERROR', errorCodes: [], requestId: null, message: '' };
    const malformed: EventRow = { kind: 'invalid', id: '=HYPERLINK("x")', where: 'argument 1', error };
    expect(record(malformed).id).toBe('\'=HYPERLINK("x")');
  });

  it('a tab or line break cannot start or split a cell: it is shown as an escape, as on a terminal', () => {
    const r = record(found({ comments: '\t=cmd', userEmail: 'a\r\nb' }));
    expect(r.comments).toBe('\\t=cmd');
    expect(r.email).toBe('a\\x0d\\nb');
  });

  it('numbers from the service stay numbers (a negative one too); a number sent as text is text', () => {
    expect(csvRow(found({ amount: -3, totalScore: 0 }))).toContain('"APPROVE",0,-3,"EUR"');
    expect(record(found({ amount: '-3' })).amount).toBe("'-3");
  });

  it('not found and other failures: empty event columns, the error in the last', () => {
    const nf: EventRow = {
      kind: 'not-found',
      id: 'x-1',
      error: { status: 404, errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'], requestId: null, message: '' },
    };
    expect(record(nf)).toEqual({
      id: 'x-1',
      state: '',
      decision: '',
      score: '',
      amount: '',
      currency: '',
      email: '',
      'event date': '',
      age: '',
      comments: '',
      error: 'not found',
    });
    const invalid: EventRow = {
      kind: 'invalid',
      id: null,
      where: 'r.jsonl:3',
      error: { status: null, errorType: 'INVALID_LINE', errorCodes: ['NOT_JSON'], requestId: null, message: '' },
    };
    expect(record(invalid)).toMatchObject({ id: '(r.jsonl:3)', error: 'INVALID_LINE (NOT_JSON)' });
  });

  it('whatever the service sends: one record that reads back, no control characters, no cell a spreadsheet would run', () => {
    fc.assert(
      fc.property(hostileString, hostileString, hostileString, (comments, email, state) => {
        const text = csvRow(found({ comments, userEmail: email, state }));
        expect(text.endsWith('\r\n')).toBe(true);
        expect(text.slice(0, -2)).not.toMatch(ACTIVE_EXCEPT_NEWLINE);
        expect(text.slice(0, -2)).not.toContain('\n');
        const r = record(found({ comments, userEmail: email, state }));
        for (const value of [r.comments, r.email, r.state])
          expect(value).not.toMatch(/^[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/);
      }),
      { numRuns: 300 },
    );
  });
});
