/*
 * The renderers for the service's answers, in one import. Each takes the parsed body as
 * `unknown` (the CLI is a tolerant reader: extra fields, missing ones, nulls, other types,
 * unknown values) and a Style, never throws for a JSON value, drops nothing, and returns text
 * without a trailing newline in which every string from the service went through
 * terminalSafe and, in a table cell, was cut to CELL_MAX.
 */
export { CELL_MAX } from './cell-text.js';
export { renderDecision, renderRiskAssessment } from './decision-tables.js';
export { renderEventSummary } from './summary-table.js';
export { renderKeyValues } from './key-values.js';
