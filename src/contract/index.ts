/*
 * The contract: one place for the shapes the service speaks. The sandbox validates and
 * serialises with these schemas (and serves them as OpenAPI); the CLI types with them.
 */
export * from './event-summary.js';
export * from './event-payload.js';
export * from './error-response.js';
export * from './decision.js';
export * from './state-change.js';
export * from './field-errors.js';
export * from './states.js';
export * from './paths.js';
export * from './text.js';
