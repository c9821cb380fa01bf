import { ApiError, NetworkError, NotTheServiceError, ProxyError } from '../../src/api/api-error.js';
import { ExitCode } from '../../src/errors/cli-error.js';
import { failureOf } from '../../src/review-queue/queue-effects.js';
import type { CallFailure } from '../../src/review-queue/queue-model.js';

/*
 * Failed calls as the review queue receives them, made from the errors the client throws and
 * classified by src/failures/ (failureOf), so that a test of the queue's update sees the kind a
 * real failure has, never one written by hand.
 */

const operation = (write: boolean) => ({ method: write ? ('PATCH' as const) : ('GET' as const), eventId: 'e1' });

/** The service answered `status` in its error shape (to a read, or to a write). */
export function answered(
  status: number,
  message: string,
  requestId: string | null = null,
  codes: string[] = [],
  write = false,
): CallFailure {
  const error = new ApiError(message, status, null, codes, requestId);
  error.operation = operation(write);
  return failureOf(error);
}

/** No answer came: the connection dropped (before anything was sent, so nothing may have been applied). */
export function noAnswer(message: string): CallFailure {
  const error = new NetworkError(message, 'reset', false);
  error.operation = operation(false);
  return failureOf(error);
}

/** An answer that is not the service's: `status` in a text/plain body (a 405 to everything, say). */
export function notTheService(status: number, message: string): CallFailure {
  const error = new ApiError(`the service answered ${status}`, status, null, [], null);
  error.operation = operation(false);
  error.notTheService = new NotTheServiceError(message, status, 'text/plain: "Method Not Allowed"', 'check --base-url');
  return failureOf(error);
}

/** The proxy in the way failed (it asked for credentials): nothing reached the service. */
export function proxyFailed(message: string): CallFailure {
  const error = new ProxyError(message, 407, 'put the credentials in HTTPS_PROXY', ExitCode.FAILURE);
  error.operation = operation(false);
  return failureOf(error);
}
