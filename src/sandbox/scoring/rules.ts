import { LogicEngine } from 'json-logic-engine';
import type { Alert } from '../../contract/index.js';
import { inputError } from '../sandbox-error.js';
import type { RuleConfig } from '../config/sandbox-config.js';
import type { Facts } from './normalise-event.js';

/*
 * Rules are data: each `when` is a JsonLogic expression (json-logic-engine, compiled once at
 * start) over the event's facts. History enters through one extra operation,
 * `{"velocity": [field, seconds, atMost?]}`: how many of this merchant's events with the same
 * value of `field` fall in the `seconds` before this event — counting stops at `atMost` when it
 * is given (a rule asking ">= 5" needs no more than 5), which keeps hot keys cheap.
 */

export const VELOCITY_FIELDS = ['userEmail', 'userIp'] as const;
export type VelocityField = (typeof VELOCITY_FIELDS)[number];

/** Answers velocity questions for the event being screened. */
export type VelocityLookup = (field: VelocityField, value: string, seconds: number, atMost: number) => number;

/** The context a compiled rule runs against: the facts, plus the history lookup. */
interface RuleContext extends Facts {
  $velocity: (field: VelocityField, seconds: number, atMost: number) => number;
}

export interface CompiledRule {
  config: RuleConfig;
  test: (context: RuleContext) => boolean;
  /** The alert's description for this event's facts. */
  describe: (facts: Facts) => string;
}

function createEngine(): LogicEngine {
  const engine = new LogicEngine();
  engine.addMethod(
    'velocity',
    (args: unknown, context: RuleContext) => {
      const [field, seconds, atMost] = args as [VelocityField, number, number | undefined];
      return context.$velocity(field, seconds, atMost ?? Number.MAX_SAFE_INTEGER);
    },
    { deterministic: false },
  );
  return engine;
}

function checkVelocityUses(node: unknown, ruleId: string): void {
  if (Array.isArray(node)) {
    node.forEach((n) => checkVelocityUses(n, ruleId));
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [op, args] of Object.entries(node)) {
    if (op === 'velocity') {
      const [field, seconds, atMost, ...rest] = Array.isArray(args) ? (args as unknown[]) : [];
      const positive = (n: unknown) => Number.isInteger(n) && (n as number) > 0;
      if (
        !(VELOCITY_FIELDS as readonly unknown[]).includes(field) ||
        !positive(seconds) ||
        (atMost !== undefined && !positive(atMost)) ||
        rest.length > 0
      ) {
        throw inputError(
          `rule ${ruleId}: velocity takes [field, seconds, atMost?] with field one of ${VELOCITY_FIELDS.join(', ')} and seconds (and atMost) positive integers`,
        );
      }
    }
    checkVelocityUses(args, ruleId);
  }
}

/** One velocity question a rule asks: `{"velocity": [field, seconds, atMost?]}`. */
export interface VelocityUse {
  field: VelocityField;
  seconds: number;
  /** The cap; a rule without one counts everything (MAX_SAFE_INTEGER). */
  atMost: number;
}

/** Every distinct velocity question the rules can ask, in a fixed order. */
export function velocityUses(rules: readonly CompiledRule[]): VelocityUse[] {
  const uses = new Map<string, VelocityUse>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [op, args] of Object.entries(node)) {
      if (op === 'velocity') {
        const [field, seconds, atMost] = args as [VelocityField, number, number | undefined];
        const use = { field, seconds, atMost: atMost ?? Number.MAX_SAFE_INTEGER };
        uses.set(velocityKey(use.field, use.seconds, use.atMost), use);
      }
      walk(args);
    }
  };
  for (const rule of rules) walk(rule.config.when);
  return [...uses.values()];
}

export const velocityKey = (field: VelocityField, seconds: number, atMost: number): string =>
  `${field} ${seconds} ${atMost}`;

export function compileRules(rules: readonly RuleConfig[]): CompiledRule[] {
  const engine = createEngine();
  return rules
    .filter((r) => r.enabled !== false)
    .map((config) => {
      checkVelocityUses(config.when, config.id);
      let fn: (data: unknown) => unknown;
      try {
        fn = engine.build(config.when as never) as (data: unknown) => unknown;
      } catch (e) {
        throw inputError(
          `rule ${config.id}: its "when" is not a JsonLogic expression this sandbox knows: ${(e as Error).message}`,
        );
      }
      return {
        config,
        test: (context: RuleContext) => Boolean(fn(context)),
        describe: compileDescription(config.description),
      };
    });
}

/** A `{name}` or `{name:decimals}` in a description. */
interface Placeholder {
  name: string;
  decimals: number | undefined;
}

/**
 * `{amountInBaseCurrency:2}` → the fact with two decimals; `{itemCategories}` → joined list.
 * The template is split once, when the rules are compiled, not matched at each alert
 * (docs/decisions/alert-descriptions-compiled-once.md).
 */
function compileDescription(template: string): (facts: Facts) => string {
  const parts: (string | Placeholder)[] = [];
  let end = 0;
  for (const match of template.matchAll(/\{([A-Za-z0-9_]+)(?::(\d))?\}/g)) {
    parts.push(template.slice(end, match.index), {
      name: match[1]!,
      decimals: match[2] === undefined ? undefined : Number(match[2]),
    });
    end = match.index + match[0].length;
  }
  parts.push(template.slice(end));
  return (facts) => {
    let text = '';
    for (const part of parts) text += typeof part === 'string' ? part : fill(part, facts);
    return text;
  };
}

function fill({ name, decimals }: Placeholder, facts: Facts): string {
  const value = facts[name];
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number' && decimals !== undefined) return value.toFixed(decimals);
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

export function evaluateRules(rules: readonly CompiledRule[], facts: Facts, velocity: VelocityLookup): Alert[] {
  // The facts are this event's own object: lend it the history lookup rather than copy it.
  const context = Object.assign(facts, {
    $velocity: (field: VelocityField, seconds: number, atMost: number) => {
      const value = facts[field];
      return typeof value === 'string' ? velocity(field, value, seconds, atMost) : 0;
    },
  }) as RuleContext;
  const alerts: Alert[] = [];
  for (const rule of rules) {
    let matched: boolean;
    try {
      matched = rule.test(context);
    } catch {
      // A rule that cannot be evaluated on this event (e.g. arithmetic on a missing field) does not match.
      matched = false;
    }
    if (matched) {
      const { id, name, severity, score } = rule.config;
      alerts.push({ ruleId: id, name, severity, score, description: rule.describe(facts) });
    }
  }
  return alerts;
}
