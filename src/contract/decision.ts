import { Type, type Static } from '@sinclair/typebox';

/*
 * What POST /event answers and GET /event/{id}/risk-assessment returns (contract.md).
 * The interface only names actionType and totalRiskScore; the rest is the contract's choice.
 */

export const ACTION_TYPES = ['APPROVE', 'REVIEW', 'DECLINE'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
const ActionTypeSchema = Type.Union(ACTION_TYPES.map((a) => Type.Literal(a)));

export const SEVERITIES = ['LOW', 'MEDIUM', 'HIGH'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const LIST_FIELDS = ['userEmail', 'userIp', 'userName', 'billingPhone', 'shippingPhone'] as const;
export type ListField = (typeof LIST_FIELDS)[number];

export const RuleMatchSchema = Type.Object(
  { ruleId: Type.String(), name: Type.String(), score: Type.Integer() },
  { additionalProperties: false },
);

export const ListMatchSchema = Type.Object(
  {
    list: Type.Union([Type.Literal('ALLOWLIST'), Type.Literal('DENYLIST')]),
    field: Type.Union(LIST_FIELDS.map((f) => Type.Literal(f))),
    value: Type.String(),
  },
  { additionalProperties: false },
);
export type ListMatch = Static<typeof ListMatchSchema>;

/** 201 (new event) or 200 (idempotent replay) body of POST /event. */
export const DecisionSchema = Type.Object(
  {
    id: Type.String(),
    actionType: ActionTypeSchema,
    totalRiskScore: Type.Integer({ minimum: 0, maximum: 100 }),
    state: Type.String(),
    ruleMatches: Type.Array(RuleMatchSchema),
    listMatches: Type.Array(ListMatchSchema),
  },
  { $id: 'Decision', additionalProperties: false },
);
export type Decision = Static<typeof DecisionSchema>;

export const AlertSchema = Type.Object(
  {
    ruleId: Type.String(),
    name: Type.String(),
    severity: Type.Union(SEVERITIES.map((s) => Type.Literal(s))),
    score: Type.Integer(),
    description: Type.String(),
  },
  { additionalProperties: false },
);
export type Alert = Static<typeof AlertSchema>;

/** 200 body of GET /event/{eventId}/risk-assessment. */
export const RiskAssessmentSchema = Type.Object(
  {
    eventId: Type.String(),
    actionType: ActionTypeSchema,
    totalRiskScore: Type.Integer({ minimum: 0, maximum: 100 }),
    alerts: Type.Array(AlertSchema),
    listMatches: Type.Array(ListMatchSchema),
  },
  { $id: 'RiskAssessment', additionalProperties: false },
);
export type RiskAssessment = Static<typeof RiskAssessmentSchema>;
