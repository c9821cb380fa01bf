import { describe, expect, it } from 'vitest';
import { stateIn } from '../../src/contract/states.js';

describe('stateIn: the state an answer about an event gives', () => {
  it.each([
    [{ id: 'e1', state: 'IN_REVIEW' }, 'IN_REVIEW'],
    [{ state: 'SOMETHING_NEW' }, 'SOMETHING_NEW'],
    [{ state: 5 }, null],
    [{ state: null }, null],
    [{ id: 'e1' }, null],
    [null, null],
    [undefined, null],
    ['<html>', null],
    [['IN_REVIEW'], null],
  ])('%j → %j', (body, state) => {
    expect(stateIn(body)).toBe(state);
  });
});
