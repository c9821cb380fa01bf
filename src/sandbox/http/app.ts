import { randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import {
  DecisionSchema,
  ErrorResponseSchema,
  EventPayloadSchema,
  EventSummarySchema,
  RiskAssessmentSchema,
  StateChangeSchema,
  fieldCodes,
  unsafeTextCodes,
  type EventPayload,
  type StateChange,
} from '../../contract/index.js';
import { keyDigest, type Merchant } from '../config/sandbox-config.js';
import type { EventService } from '../event-service.js';
import { installChaos, type ChaosSpec } from './chaos.js';
import { handleError, sendError } from './error-replies.js';
import { invalid } from './service-error.js';
import { clientErrorReply, DEFAULT_TIMEOUTS, installSocketReplies, type HttpTimeouts } from './socket-replies.js';
import { eventPath } from '../../contract/paths.js';
import { MAX_BODY_BYTES } from '../../contract/limits.js';

/*
 * The sandbox's HTTP face (Fastify): content types, the 1 MiB limit, auth and tenancy,
 * request ids, the error shape for every failure, and the OpenAPI document generated from
 * the contract's schemas. What the endpoints do is EventService's business.
 */

const OPEN_ROUTES = new Set(['/openapi.json']);
const JSON_SUFFIX_TYPE = /^application\/[^\s;/]+\+json\s*(;|$)/i;

export interface SandboxAppOptions {
  service: EventService;
  merchants: readonly Merchant[];
  chaos?: ChaosSpec;
  /** Limits on slow clients (socket-replies.ts says why the defaults); tests shorten them. */
  timeouts?: Partial<HttpTimeouts>;
  /** Called with errors that are the sandbox's own bugs (answered 500). */
  onUnexpectedError?: (error: Error, request: FastifyRequest) => void;
}

declare module 'fastify' {
  interface FastifyRequest {
    merchantId: string;
  }
}

/** Finds the merchant whose key this is, comparing against every key in constant time. */
function merchantForKey(merchants: readonly Merchant[], key: string): Merchant | undefined {
  const digest = keyDigest(key);
  let found: Merchant | undefined;
  for (const m of merchants) {
    if (timingSafeEqual(m.keyDigest, digest) && !found) found = m;
  }
  return found;
}

const errorResponses = { '4xx': { $ref: 'ErrorResponse#' }, '5xx': { $ref: 'ErrorResponse#' } };
const eventIdParams = {
  type: 'object',
  properties: { eventId: { type: 'string', description: 'the event id, path-encoded' } },
  required: ['eventId'],
} as const;

export async function buildSandboxApp(options: SandboxAppOptions): Promise<FastifyInstance> {
  const { service, merchants } = options;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const app = Fastify({
    logger: false,
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkEveryMs },
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    clientErrorHandler: clientErrorReply,
    bodyLimit: MAX_BODY_BYTES,
    genReqId: () => randomUUID(),
    routerOptions: { maxParamLength: 65_536 },
    ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: false } },
    frameworkErrors: (error, request, reply) => {
      handleError(error, request, reply);
    },
  });

  installSocketReplies(app.server);

  for (const schema of [
    EventSummarySchema,
    ErrorResponseSchema,
    EventPayloadSchema,
    DecisionSchema,
    RiskAssessmentSchema,
    StateChangeSchema,
  ]) {
    app.addSchema(schema);
  }
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Fraud-screening event service (fraudctl sandbox)',
        version: 'v1',
        description:
          'Screens transaction events and answers APPROVE, REVIEW or DECLINE with a risk score, rule matches and list matches.',
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-CLIENT-API-KEY' } } },
      security: [{ apiKey: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });

  // Only JSON bodies: application/json, text/json and application/*+json; anything else is 415.
  app.removeAllContentTypeParsers();
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(['application/json', 'text/json'], { parseAs: 'string' }, jsonParser);
  app.addContentTypeParser(JSON_SUFFIX_TYPE, { parseAs: 'string' }, jsonParser);

  app.decorateRequest('merchantId', '');
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (OPEN_ROUTES.has(request.routeOptions.url ?? '')) return;
    const key = request.headers['x-client-api-key'];
    if (typeof key !== 'string' || key === '') return sendError(request, reply, 401, ['API_KEY_MISSING']);
    const merchant = merchantForKey(merchants, key);
    if (!merchant) return sendError(request, reply, 401, ['API_KEY_INVALID']);
    if (merchant.blocked) return sendError(request, reply, 403, ['MERCHANT_BLOCKED']);
    request.merchantId = merchant.id;
  });
  if (options.chaos) installChaos(app, options.chaos);

  // While closing, tell keep-alive clients to hang up after their answer, so that close()
  // waits only for requests in flight and not for idle connections to time out.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });

  app.setErrorHandler((error: Error, request, reply) => {
    if (!handleError(error, request, reply)) options.onUnexpectedError?.(error, request);
  });
  app.setNotFoundHandler((request, reply) => sendError(request, reply, 404, ['ROUTE_NOT_FOUND']));

  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());

  app.post<{ Body: EventPayload }>(
    '/event',
    {
      attachValidation: true,
      schema: {
        summary: 'Submit an event for screening',
        body: { $ref: 'EventPayload#' },
        response: { 200: { $ref: 'Decision#' }, 201: { $ref: 'Decision#' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const schemaCodes = request.validationError ? fieldCodes(request.validationError.validation ?? []) : [];
      const { created, decision } = service.submit(request.merchantId, request.body, schemaCodes);
      await service.committed();
      if (created) reply.code(201).header('location', eventPath(decision.id));
      return decision;
    },
  );

  app.get<{ Params: { eventId: string } }>(
    '/event/:eventId',
    {
      schema: {
        summary: 'Event details and decision state',
        params: eventIdParams,
        response: { 200: { $ref: 'EventSummary#' }, ...errorResponses },
      },
    },
    async (request) => service.summary(request.merchantId, request.params.eventId),
  );

  app.get<{ Params: { eventId: string } }>(
    '/event/:eventId/risk-assessment',
    {
      schema: {
        summary: 'Risk alerts of an event',
        params: eventIdParams,
        response: { 200: { $ref: 'RiskAssessment#' }, ...errorResponses },
      },
    },
    async (request) => service.riskAssessment(request.merchantId, request.params.eventId),
  );

  app.patch<{ Params: { eventId: string }; Body: StateChange }>(
    '/event/:eventId/state',
    {
      attachValidation: true,
      schema: {
        summary: 'Update the state of an event (manual review)',
        params: eventIdParams,
        body: { $ref: 'StateChange#' },
        response: { 200: { $ref: 'EventSummary#' }, ...errorResponses },
      },
    },
    async (request) => {
      service.checkId(request.params.eventId);
      const schemaCodes = request.validationError
        ? fieldCodes(request.validationError.validation ?? []).map((c) =>
            c === 'body:EMPTY' ? 'body:STATE_OR_COMMENTS_REQUIRED' : c,
          )
        : [];
      // A NUL or unpaired surrogate would not read back as sent (src/contract/text.ts).
      const codes = [...new Set([...schemaCodes, ...unsafeTextCodes(request.body)])];
      if (codes.length > 0) throw invalid(codes);
      const summary = service.changeState(request.merchantId, request.params.eventId, request.body);
      await service.committed();
      return summary;
    },
  );

  return app;
}
