import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import {
  DecisionSchema,
  ErrorResponseSchema,
  EventSummarySchema,
  RiskAssessmentSchema,
  EVENT_DATE_PATTERN,
} from '../../src/contract/index.js';

/*
 * Checks response bodies against the contract's schemas with an Ajv of the tests' own,
 * independent of the one inside the sandbox's Fastify.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const validators = {
  summary: ajv.compile(EventSummarySchema),
  decision: ajv.compile(DecisionSchema),
  assessment: ajv.compile(RiskAssessmentSchema),
  error: ajv.compile(ErrorResponseSchema),
};

export function expectShape(kind: keyof typeof validators, body: unknown): void {
  const validate = validators[kind];
  const ok = validate(body);
  expect(ok, `${kind} body ${JSON.stringify(body)?.slice(0, 300)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  if (kind === 'summary') {
    const summary = body as { eventDate: string | null; userCreated: string | null };
    if (summary.eventDate !== null) expect(summary.eventDate).toMatch(EVENT_DATE_PATTERN);
    if (summary.userCreated !== null) expect(summary.userCreated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  }
}

/** An error reply: the error shape and nothing else, with X-Request-Id equal to requestId. */
export function expectError(
  reply: { status: number; headers: Record<string, unknown>; json: unknown },
  status: number,
  errorType: string,
  codes?: string[],
): void {
  expect(reply.status, JSON.stringify(reply.json)).toBe(status);
  expectShape('error', reply.json);
  const body = reply.json as { requestId: string; errorType: string; errorCodes: string[] };
  expect(body.errorType).toBe(errorType);
  expect(reply.headers['x-request-id']).toBe(body.requestId);
  expect(String(reply.headers['content-type'])).toMatch(/^application\/json/);
  if (codes) expect(body.errorCodes.slice().sort()).toEqual(codes.slice().sort());
}
