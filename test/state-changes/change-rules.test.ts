import { describe, expect, it } from 'vitest';
import {
  changedSince,
  changeWords,
  commentToSend,
  decideChange,
  replacesComment,
  stepsTo,
} from '../../src/state-changes/change-rules.js';

const any = { ifStates: null, force: false };

describe('stepsTo: the PATCHes a change takes', () => {
  it('confirming fraud from a review state declines first; from a decision it is one step', () => {
    expect(stepsTo('FRAUD_CONFIRMED', 'PENDING_REVIEW')).toEqual(['DECLINED', 'FRAUD_CONFIRMED']);
    expect(stepsTo('FRAUD_CONFIRMED', 'ESCALATED')).toEqual(['DECLINED', 'FRAUD_CONFIRMED']);
    expect(stepsTo('FRAUD_CONFIRMED', 'APPROVED')).toEqual(['FRAUD_CONFIRMED']);
    expect(stepsTo('FRAUD_CONFIRMED', 'ON_HOLD')).toEqual(['FRAUD_CONFIRMED']);
    expect(stepsTo('DECLINED', 'PENDING_REVIEW')).toEqual(['DECLINED']);
  });
});

describe('changedSince: the re-read before a change', () => {
  it('null while state and comments are as seen, else what they are now', () => {
    expect(changedSince({ state: 'IN_REVIEW', comments: null }, { state: 'IN_REVIEW', comments: null })).toBeNull();
    expect(changedSince({ state: 'IN_REVIEW', comments: null }, { state: 'IN_REVIEW', comments: 'x' })).toEqual({
      state: 'IN_REVIEW',
      comments: 'x',
    });
    expect(changedSince({ state: 'IN_REVIEW', comments: null }, { state: 'APPROVED', comments: null })).toEqual({
      state: 'APPROVED',
      comments: null,
    });
  });
});

describe('decideChange: send, or pass over and why', () => {
  it('an event already in the target state is passed over, even with --force-state', () => {
    expect(decideChange('DECLINED', 'DECLINED', any)).toEqual({ send: false, why: 'already' });
    expect(decideChange('DECLINED', 'DECLINED', { ifStates: null, force: true })).toEqual({
      send: false,
      why: 'already',
    });
  });

  it('--if-state: only events in one of the states listed', () => {
    const guard = { ifStates: ['PENDING_REVIEW', 'ESCALATED'], force: false };
    expect(decideChange('ESCALATED', 'DECLINED', guard)).toEqual({ send: true, steps: ['DECLINED'] });
    expect(decideChange('APPROVED', 'DECLINED', guard)).toEqual({ send: false, why: 'not-listed' });
    expect(decideChange(null, 'DECLINED', guard)).toEqual({ send: false, why: 'not-listed' });
  });

  it('a transition the known state machine does not allow, or a state it does not know, is passed over unless forced', () => {
    expect(decideChange('FRAUD_CONFIRMED', 'APPROVED', any)).toEqual({ send: false, why: 'not-allowed' });
    expect(decideChange('ON_HOLD', 'APPROVED', any)).toEqual({ send: false, why: 'unknown-state' });
    expect(decideChange(null, 'APPROVED', any)).toEqual({ send: false, why: 'unknown-state' });
    expect(decideChange('ON_HOLD', 'APPROVED', { ifStates: null, force: true })).toEqual({
      send: true,
      steps: ['APPROVED'],
    });
    expect(decideChange('FRAUD_CONFIRMED', 'APPROVED', { ifStates: null, force: true })).toEqual({
      send: true,
      steps: ['APPROVED'],
    });
  });

  it('confirming fraud from a review state is allowed through DECLINED', () => {
    expect(decideChange('PENDING_REVIEW', 'FRAUD_CONFIRMED', any)).toEqual({
      send: true,
      steps: ['DECLINED', 'FRAUD_CONFIRMED'],
    });
    expect(decideChange('DECLINED', 'FRAUD_CONFIRMED', any)).toEqual({ send: true, steps: ['FRAUD_CONFIRMED'] });
  });
});

describe('what changed, and the comment that is sent', () => {
  it('names each field that changed, the comment alone too', () => {
    expect(
      changeWords({ state: 'IN_REVIEW', comments: null }, { state: 'IN_REVIEW', comments: 'call the bank' }),
    ).toEqual(['comment (none) → "call the bank"']);
    expect(changeWords({ state: 'PENDING_REVIEW', comments: 'a' }, { state: 'DECLINED', comments: 'b' })).toEqual([
      'state PENDING_REVIEW → DECLINED',
      'comment "a" → "b"',
    ]);
    expect(changeWords({ state: 'X', comments: null }, { state: 'X', comments: null })).toEqual([]);
  });

  it('keeps the comment the event has, the new one after it, or replaces it', () => {
    expect(commentToSend('fraud ring', 'called', true)).toBe('fraud ring | called');
    expect(commentToSend('fraud ring', 'called', false)).toBe('called');
    expect(commentToSend(null, 'called', true)).toBe('called');
    expect(replacesComment('fraud ring', 'called')).toBe(true);
    expect(replacesComment('called', 'called')).toBe(false);
    expect(replacesComment('  ', 'called')).toBe(false);
    expect(replacesComment(null, 'called')).toBe(false);
  });
});
