import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_TYPES, type ErrorResponse, type ErrorStatus } from '../../contract/index.js';
import { ServiceError } from './service-error.js';

/** The one error body: requestId (also sent as X-Request-Id), errorType, errorCodes. */
export function errorBody(request: FastifyRequest, status: ErrorStatus, codes: string[]): ErrorResponse {
  return { requestId: request.id, errorType: ERROR_TYPES[status], errorCodes: codes };
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: ErrorStatus,
  codes: string[],
  headers: Record<string, string> = {},
) {
  return reply
    .code(status)
    .headers({ ...headers, 'x-request-id': request.id })
    .send(errorBody(request, status, codes));
}

/** Fastify's own failures (body parsing, limits, bad URLs) in the service's error shape. */
const FRAMEWORK_ERRORS: Record<string, [ErrorStatus, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'BODY_TOO_LARGE'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'CONTENT_TYPE_UNSUPPORTED'],
  FST_ERR_CTP_INVALID_TYPE: [415, 'CONTENT_TYPE_UNSUPPORTED'],
  FST_ERR_CTP_EMPTY_TYPE: [415, 'CONTENT_TYPE_UNSUPPORTED'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'MALFORMED_JSON'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'MALFORMED_JSON'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'INVALID_CONTENT_LENGTH'],
  FST_ERR_BAD_URL: [400, 'BAD_URL'],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'BAD_REQUEST'],
};

/**
 * Maps any error thrown while answering to the error shape. Returns false for an error that
 * is a bug of the sandbox (the caller logs it), after answering 500.
 */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): boolean {
  if (error instanceof ServiceError) {
    void sendError(request, reply, error.status, error.errorCodes, error.headers);
    return true;
  }
  const code = (error as FastifyError).code;
  const known = code ? FRAMEWORK_ERRORS[code] : undefined;
  const status = (error as FastifyError).statusCode;
  if (known) {
    void sendError(request, reply, known[0], [known[1]]);
  } else if (error instanceof SyntaxError || status === 400) {
    // The JSON body parser throws SyntaxError (status 400), prototype poisoning included.
    void sendError(request, reply, 400, ['MALFORMED_JSON']);
  } else if (status !== undefined && status >= 400 && status < 500) {
    void sendError(request, reply, 400, ['BAD_REQUEST']);
  } else {
    void sendError(request, reply, 500, ['INTERNAL_ERROR']);
    return false;
  }
  return true;
}
