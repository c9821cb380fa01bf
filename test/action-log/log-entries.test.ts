import { describe, expect, it } from 'vitest';
import { logEntry, sendingEntry } from '../../src/action-log/log-entries.js';

/*
 * The one builder of the action log's entries: every line has its fields in the same order,
 * `message` only when there is one.
 */

describe('the log’s entries', () => {
  const action = { eventId: 'e1', action: 'approve' as const, from: 'IN_REVIEW', to: 'APPROVED', comments: 'fine' };

  it('a line before the change is sent: no answer yet', () => {
    expect(sendingEntry(action)).toEqual({
      eventId: 'e1',
      action: 'approve',
      from: 'IN_REVIEW',
      to: 'APPROVED',
      comments: 'fine',
      requestId: null,
      outcome: 'sending',
      status: null,
    });
    expect(Object.keys(sendingEntry(action))).toEqual([
      'eventId',
      'action',
      'from',
      'to',
      'comments',
      'requestId',
      'outcome',
      'status',
    ]);
  });

  it('an outcome with what came back, the message last and only when given', () => {
    const refused = logEntry(action, 'refused', { requestId: 'r1', status: 409, message: 'conflict' });
    expect(Object.keys(refused)).toEqual([
      'eventId',
      'action',
      'from',
      'to',
      'comments',
      'requestId',
      'outcome',
      'status',
      'message',
    ]);
    expect(refused).toMatchObject({ requestId: 'r1', outcome: 'refused', status: 409, message: 'conflict' });
    expect('message' in logEntry(action, 'ok', { requestId: 'r2', message: undefined })).toBe(false);
    expect(logEntry({ eventId: 'e2', action: 'skip', from: null, to: null }, 'ok').comments).toBeNull();
  });
});
