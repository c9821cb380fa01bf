import type { ActionType, Alert, ListMatch } from '../../contract/index.js';
import type { ListEntry, SandboxConfig } from '../config/sandbox-config.js';
import type { Facts } from './normalise-event.js';
import { evaluateRules, type CompiledRule, type VelocityLookup } from './rules.js';

/*
 * The decision: rules give a score (sum of matched scores, clamped to 0-100) and thresholds
 * turn it into an action; a denylist match forces DECLINE with score 100, an allowlist match
 * forces APPROVE unless the event is denylisted too (contract.md, Scoring and decision).
 */

export interface Screening {
  actionType: ActionType;
  totalRiskScore: number;
  alerts: Alert[];
  listMatches: ListMatch[];
  allowlistMatch: boolean;
  denylistMatch: boolean;
}

function matchList(list: 'ALLOWLIST' | 'DENYLIST', entries: readonly ListEntry[], facts: Facts): ListMatch[] {
  const matches: ListMatch[] = [];
  for (const entry of entries) {
    const value = facts[entry.field];
    if (typeof value !== 'string') continue;
    const same =
      entry.field === 'userEmail' ? value.toLowerCase() === entry.value.toLowerCase() : value === entry.value;
    if (same) matches.push({ list, field: entry.field, value });
  }
  return matches;
}

export function screen(
  facts: Facts,
  rules: readonly CompiledRule[],
  config: SandboxConfig,
  velocity: VelocityLookup,
): Screening {
  const alerts = evaluateRules(rules, facts, velocity);
  const deny = matchList('DENYLIST', config.denylist, facts);
  const allow = matchList('ALLOWLIST', config.allowlist, facts);
  let score = Math.min(
    100,
    Math.max(
      0,
      alerts.reduce((sum, a) => sum + a.score, 0),
    ),
  );
  let actionType: ActionType =
    score >= config.thresholds.decline ? 'DECLINE' : score >= config.thresholds.review ? 'REVIEW' : 'APPROVE';
  if (deny.length > 0) {
    actionType = 'DECLINE';
    score = 100;
  } else if (allow.length > 0) {
    actionType = 'APPROVE';
  }
  return {
    actionType,
    totalRiskScore: score,
    alerts,
    listMatches: [...deny, ...allow],
    allowlistMatch: allow.length > 0,
    denylistMatch: deny.length > 0,
  };
}
