import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../src/event-lists/event-row.js';
import { listJsonLine } from '../../src/event-lists/event-list-json.js';
import { ACTIVE_EXCEPT_NEWLINE, RLO } from '../render/hostile-text.js';

const notFound = (id: string): EventRow => ({
  kind: 'not-found',
  id,
  error: { status: 404, errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'], requestId: 'r', message: 'no event' },
});

describe('a row as a JSON line', () => {
  it("is the service's body as it came, or the error in the service's shape; controls escaped, value equal", () => {
    const summary = { id: 'e-1', comments: `a${RLO}b\u0085`, extra: { nested: [1, null] } };
    const line = listJsonLine({ kind: 'found', id: 'e-1', summary, assessment: undefined });
    expect(line).not.toMatch(ACTIVE_EXCEPT_NEWLINE);
    expect(JSON.parse(line)).toEqual(summary);
    expect(JSON.parse(listJsonLine(notFound('e-9')))).toEqual({
      id: 'e-9',
      error: { status: 404, errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'], requestId: 'r' },
    });
  });
});
