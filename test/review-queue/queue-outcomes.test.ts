import { describe, expect, it } from 'vitest';
import { GROUP_ORDER, initialModel, type Model } from '../../src/review-queue/queue-model.js';
import {
  detailsOf,
  groupsOf,
  withNotReached,
  withOutcome,
  withOutcomeReplaced,
} from '../../src/review-queue/queue-outcomes.js';
import { withClaimsRechecked } from '../../src/review-queue/queue-summary.js';

/*
 * One outcome per id (model.outcomes), and the summary's groups and details derived from it.
 */

function queue(ids: string[], unreadable: string[] = []): Model {
  return initialModel(
    ids.map((id) => ({ id })),
    { claim: true, includeClaimed: false, includeDecided: false },
    { width: 80, height: 24 },
    unreadable,
  );
}

describe('the outcome of each id → the summary’s groups', () => {
  it('lists every group in the summary’s order, each id under its one outcome, the unreadable lines under their own', () => {
    let model = queue(['a', 'b', 'c', 'd'], ['line 3']);
    model = withOutcome(model, 'approved', 'a');
    model = withOutcome(model, 'otherState', 'b', 'ON_HOLD');
    model = withOutcome(model, 'skipped', 'c');
    const groups = groupsOf(model);
    expect(Object.keys(groups)).toEqual(GROUP_ORDER);
    expect(Object.entries(groups).filter(([, ids]) => ids.length > 0)).toEqual([
      ['approved', ['a']],
      ['skipped', ['c']],
      ['otherState', ['b']],
      ['unreadable', ['line 3']],
    ]);
    expect([...detailsOf(model)]).toEqual([['b', 'ON_HOLD']]);
  });

  it('keeps the outcome that says more: a decision over a comment, a claim not given back over everything', () => {
    let model = queue(['e1']);
    model = withOutcome(model, 'commented', 'e1');
    model = withOutcome(model, 'approved', 'e1');
    expect(groupsOf(model)).toMatchObject({ commented: [], approved: ['e1'] });
    // Given back after the decision: the decision stays.
    model = withOutcome(model, 'givenBack', 'e1');
    expect(groupsOf(model)).toMatchObject({ givenBack: [], approved: ['e1'] });
    model = withOutcome(model, 'stillClaimed', 'e1');
    expect(groupsOf(model)).toMatchObject({ approved: [], stillClaimed: ['e1'] });
    expect(Object.values(groupsOf(model)).flat()).toEqual(['e1']);
  });

  it('lists a group’s ids in the order they were settled there, a moved id last', () => {
    let model = queue(['e1', 'e2']);
    model = withOutcome(model, 'givenBack', 'e1');
    model = withOutcome(model, 'givenBack', 'e2');
    model = withOutcome(model, 'stillClaimed', 'e2');
    model = withOutcome(model, 'stillClaimed', 'e1');
    expect(groupsOf(model).stillClaimed).toEqual(['e2', 'e1']);
  });

  it('a detail belongs to its outcome: an id moved on keeps no detail of the group it left', () => {
    let model = queue(['e1']);
    model = withOutcome(model, 'refused', 'e1', '410 EVENT_ARCHIVED');
    model = withOutcome(model, 'stillClaimed', 'e1');
    expect(detailsOf(model).size).toBe(0);
  });

  it('at the end, the ids with no outcome were not reached, in queue order', () => {
    let model = queue(['e1', 'e2', 'e3', 'e4']);
    model = withOutcome(model, 'declined', 'e2');
    model = withNotReached(model);
    expect(groupsOf(model)).toMatchObject({ declined: ['e2'], notReached: ['e1', 'e3', 'e4'] });
  });

  it('does not change the model it is given', () => {
    const model = queue(['e1']);
    const next = withOutcome(model, 'approved', 'e1');
    expect(model.outcomes.size).toBe(0);
    expect(next.outcomes.get('e1')).toEqual({ group: 'approved' });
    expect(withOutcomeReplaced(next, 'otherState', 'e1', 'APPROVED').outcomes.get('e1')).toEqual({
      group: 'otherState',
      detail: 'APPROVED',
    });
    expect(next.outcomes.get('e1')).toEqual({ group: 'approved' });
  });

  it('ids claimed by others that were decided since move to their state, at the end of it', () => {
    let model = queue(['x', 'o1', 'o2']);
    model = withOutcome(model, 'otherState', 'x', 'APPROVED');
    model = withOutcome(model, 'claimedElsewhere', 'o1');
    model = withOutcome(model, 'claimedElsewhere', 'o2');
    const now = withClaimsRechecked(
      model,
      new Map([
        ['o1', 'DECLINED'],
        ['o2', 'IN_REVIEW'],
      ]),
    );
    expect(groupsOf(now)).toMatchObject({ otherState: ['x', 'o1'], claimedElsewhere: ['o2'] });
    expect(detailsOf(now).get('o1')).toBe('DECLINED (changed since it was passed over)');
  });
});
