/* The event states and transitions of the contract. No imports: the CLI's help text reads this at start-up. */

/** Event states the sandbox uses, and the transitions it allows (contract.md). */
export const KNOWN_STATES = [
  'PENDING_REVIEW',
  'IN_REVIEW',
  'ESCALATED',
  'APPROVED',
  'DECLINED',
  'FRAUD_CONFIRMED',
] as const;
export type KnownState = (typeof KNOWN_STATES)[number];

export const TRANSITIONS: Readonly<Record<KnownState, readonly KnownState[]>> = {
  PENDING_REVIEW: ['IN_REVIEW', 'APPROVED', 'DECLINED', 'ESCALATED'],
  IN_REVIEW: ['APPROVED', 'DECLINED', 'ESCALATED', 'PENDING_REVIEW'],
  ESCALATED: ['APPROVED', 'DECLINED'],
  APPROVED: ['DECLINED', 'FRAUD_CONFIRMED'],
  DECLINED: ['APPROVED', 'FRAUD_CONFIRMED'],
  FRAUD_CONFIRMED: [],
};

export const INITIAL_STATE = { APPROVE: 'APPROVED', REVIEW: 'PENDING_REVIEW', DECLINE: 'DECLINED' } as const;

/** The state an answer about an event gives: its `state` when that is a string, else null (not an event, or none). */
export function stateIn(body: unknown): string | null {
  const state = typeof body === 'object' && body !== null ? (body as { state?: unknown }).state : undefined;
  return typeof state === 'string' ? state : null;
}

export function isKnownState(state: string): state is KnownState {
  return (KNOWN_STATES as readonly string[]).includes(state);
}
