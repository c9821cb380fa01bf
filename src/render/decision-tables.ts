import type { Style } from './colours.js';
import { cell, joinPresent, safeText } from './cell-text.js';
import { renderKeyValues, renderOtherFields } from './key-values.js';
import { hasAnyKey, isFields, type Fields } from './json-fields.js';
import { column, joinBlocks, recordTable, type Column } from './tables.js';
import { sym } from './symbols.js';

/*
 * The answers that carry a decision: POST /event (Decision) and GET /event/{id}/risk-assessment
 * (RiskAssessment). Read tolerantly: a field may be missing, null or of another type, values
 * may be ones the contract does not list, and fields it does not name are shown, not dropped.
 */

const RULE_MATCH_COLUMNS: readonly Column[] = [
  column('rule', 'ruleId'),
  column('name', 'name'),
  column('score', 'score', 'right'),
];

const LIST_MATCH_COLUMNS: readonly Column[] = [
  column('list', 'list'),
  column('field', 'field'),
  column('value', 'value'),
];

const ALERT_COLUMNS: readonly Column[] = [
  {
    head: 'rule',
    keys: ['ruleId', 'name'],
    show: (a, style) => joinPresent([a.ruleId, a.name], ` ${sym.dot} `, style),
  },
  {
    head: 'severity',
    keys: ['severity'],
    // The raw value only picks the colour; what is shown is the safe text.
    show: (a, style) => style.severity(typeof a.severity === 'string' ? a.severity : '', cell(a.severity, style)),
  },
  column('score', 'score', 'right'),
  column('description', 'description'),
];

const DECISION_KEYS = new Set(['id', 'actionType', 'totalRiskScore', 'state', 'ruleMatches', 'listMatches']);
const ASSESSMENT_KEYS = new Set(['eventId', 'actionType', 'totalRiskScore', 'alerts', 'listMatches']);
/** Without any of these, an answer is not a decision at all and is shown generically. */
const DECISION_MARKS = ['actionType', 'totalRiskScore', 'ruleMatches', 'alerts', 'listMatches'];

/** The answer to POST /event: decision, score, id and state, rule and list matches. */
export function renderDecision(decision: unknown, style: Style): string {
  if (!isFields(decision) || !hasAnyKey(decision, DECISION_MARKS)) return renderKeyValues(decision, style);
  return joinBlocks([
    headline(
      decision,
      [
        ['event', decision.id],
        ['state', decision.state],
      ],
      style,
    ),
    matches('Rule matches', decision.ruleMatches, 'no rule matched', RULE_MATCH_COLUMNS, style),
    matches('List matches', decision.listMatches, 'no list matched', LIST_MATCH_COLUMNS, style),
    renderOtherFields(decision, DECISION_KEYS, style),
  ]);
}

/** GET /event/{id}/risk-assessment: decision and score, alerts by score (highest first), list matches. */
export function renderRiskAssessment(assessment: unknown, style: Style): string {
  if (!isFields(assessment) || !hasAnyKey(assessment, DECISION_MARKS)) return renderKeyValues(assessment, style);
  return joinBlocks([
    headline(assessment, [['event', assessment.eventId]], style),
    matches('Alerts', byScoreDescending(assessment.alerts), 'no alerts', ALERT_COLUMNS, style),
    matches('List matches', assessment.listMatches, 'no list matched', LIST_MATCH_COLUMNS, style),
    renderOtherFields(assessment, ASSESSMENT_KEYS, style),
  ]);
}

/** `DECLINE  score 85/100  event evt-1  state DECLINED`, the decision word in its colour. */
function headline(fields: Fields, labelled: ReadonlyArray<readonly [string, unknown]>, style: Style): string {
  const { actionType } = fields;
  const word =
    typeof actionType === 'string' ? style.action(actionType, safeText(actionType)) : cell(actionType, style);
  const score = `${style.dim('score')} ${cell(fields.totalRiskScore, style)}/100`;
  const rest = labelled.map(([label, value]) => `${style.dim(label)} ${cell(value, style)}`);
  return [word, score, ...rest].join('  ');
}

/** A list of matches as a table; a line when it is empty; whatever else came, shown as it is. */
function matches(title: string, value: unknown, emptyLine: string, columns: readonly Column[], style: Style): string {
  if (!Array.isArray(value)) return `${style.heading(title)}\n${renderKeyValues(value, style)}`;
  if (value.length === 0) return style.dim(emptyLine);
  return `${style.heading(`${title} (${value.length})`)}\n${recordTable(value, columns, style)}`;
}

/** A copy sorted by numeric `score`, highest first; entries without one keep their order, last. */
function byScoreDescending(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const rank = (entry: unknown): number =>
    isFields(entry) && typeof entry.score === 'number' && !Number.isNaN(entry.score) ? entry.score : -Infinity;
  return value
    .map((entry: unknown) => ({ entry, rank: rank(entry) }))
    .sort((a, b) => (a.rank === b.rank ? 0 : a.rank < b.rank ? 1 : -1))
    .map(({ entry }) => entry);
}
