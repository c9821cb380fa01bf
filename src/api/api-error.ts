import { CliError, ExitCode, type ExitCodeValue } from '../errors/cli-error.js';
import { exitCodeForStatus } from '../errors/exit-codes.js';

/** The exit code of an answer by its status: the one status table's (src/errors/exit-codes.ts). */
export { exitCodeForStatus };

/*
 * Typed failures of talking to the service, each carrying the exit code main will use.
 * Every string in a message that came from the server is already sanitised by the client.
 */

/** The call a failure is of: its method and the event it names (null: none, a POST of an event without an id). */
export interface FailedOperation {
  method: 'GET' | 'POST' | 'PATCH';
  eventId: string | null;
}

/** The service answered, with a status that is not success. */
export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly errorType: string | null,
    readonly errorCodes: readonly string[],
    readonly requestId: string | null,
    hint?: string,
  ) {
    super(message, exitCodeForStatus(status), hint);
    this.name = 'ApiError';
  }

  /** Attempts the call made before this failure stood. */
  attempts = 1;

  /** The call that failed (set by the client). */
  operation?: FailedOperation;

  /**
   * Set when the answer was not the service's (a 405 or 501, or a body that is not the error
   * shape: error-shape.ts): the same failure as "this URL is not the service", which a batch
   * stops at. A single command reports the status as it came.
   */
  notTheService?: NotTheServiceError;
}

/**
 * 'budget': not a network failure as such — a batch's shared retry budget refused the retry the
 * failure called for. 'proxy': the proxy failed (see ProxyError), not the service.
 */
export type NetworkFailure =
  'refused' | 'dns' | 'tls' | 'timeout' | 'reset' | 'connect-timeout' | 'other' | 'budget' | 'proxy';

/** A network failure as an error type for results and rows (fraudctl's own names; the service never sent them). */
export const NETWORK_ERROR_TYPES: Readonly<Record<NetworkFailure, string>> = {
  refused: 'CONNECTION_REFUSED',
  dns: 'DNS_FAILURE',
  tls: 'TLS_FAILURE',
  timeout: 'TIMEOUT',
  reset: 'CONNECTION_RESET',
  'connect-timeout': 'CONNECT_TIMEOUT',
  other: 'BAD_RESPONSE',
  budget: 'RETRY_BUDGET_SPENT',
  proxy: 'PROXY_FAILURE',
};

/**
 * The exit code of a network failure: 6 ("try again later") unless waiting cannot help — a TLS
 * certificate refused is 1. A proxy's failure says its own (ProxyError).
 */
export function networkExitCode(failure: NetworkFailure): ExitCodeValue {
  return failure === 'tls' ? ExitCode.FAILURE : ExitCode.UNAVAILABLE;
}

/** No usable answer: the connection failed, timed out, or the answer was not what the interface promises. */
export class NetworkError extends CliError {
  constructor(
    message: string,
    readonly failure: NetworkFailure,
    /** False when the request certainly never reached the server (safe to send again). */
    readonly maybeProcessed: boolean,
    hint?: string,
    exitCode: ExitCodeValue = networkExitCode(failure),
  ) {
    super(message, exitCode, hint);
    this.name = 'NetworkError';
  }

  /** Attempts the call made before this failure stood. */
  attempts = 1;

  /** The call that failed (set by the client). */
  operation?: FailedOperation;
}

/**
 * The proxy in the way (HTTPS_PROXY, HTTP_PROXY) failed, not the service: it refused the
 * connection or could not be reached, asked for credentials (407), or refused to open the tunnel
 * to the service (another status of its answer to CONNECT). Nothing reached the service. Not
 * retried, and it stops a batch or a list at once, as a refused key does: every request would
 * meet it. Exit 6 when waiting may help (the proxy down, or it could not reach the service: a
 * 5xx), 1 otherwise (credentials, a destination it does not allow). Its message names the proxy
 * by host and port only, never with a user name or password.
 */
export class ProxyError extends NetworkError {
  constructor(
    message: string,
    /** The status of the proxy's answer to CONNECT (407, 403, 502…), or null when it never answered. */
    readonly status: number | null,
    hint: string,
    exitCode: ExitCodeValue,
  ) {
    super(message, 'proxy', false, hint, exitCode);
    this.name = 'ProxyError';
  }
}

/** A 2xx (or redirect) whose body or target is not what the interface promises. */
export class BadResponseError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.FAILURE, hint);
    this.name = 'BadResponseError';
  }

  /** Attempts the call made before this failure stood. */
  attempts = 1;

  /** The call that failed (set by the client). */
  operation?: FailedOperation;

  /** Set for a 2xx whose body is not JSON, or not a JSON object: not the service's answer (see ApiError.notTheService). */
  notTheService?: NotTheServiceError;
}

/**
 * A 404 that is not the service's own "no such event": an HTML or non-JSON page, JSON that is
 * not the error shape, or a code that names a route (ROUTE_NOT_FOUND). The URL is not the
 * fraud-screening service, or not its base path, so nothing may be concluded from it: not
 * "no such event", not "not stored", not "logged in". Exit 1, like any answer the interface
 * does not promise.
 */
export class NotTheServiceError extends BadResponseError {
  constructor(
    message: string,
    readonly status: number,
    /** What came back, in words, sanitised: "an HTML page titled …", "the code ROUTE_NOT_FOUND". */
    readonly got: string,
    hint?: string,
  ) {
    super(message, hint);
    this.name = 'NotTheServiceError';
  }
}

/**
 * A failure as "this URL is not the fraud-screening service" when the answer was not the
 * service's — a 404 that is not its own, a 405 or 501, an error that is not the error shape, a
 * 2xx that is not a JSON object — else undefined. What stops a batch at once (src/batch/).
 */
export function asNotTheService(error: unknown): NotTheServiceError | undefined {
  if (error instanceof NotTheServiceError) return error;
  if (error instanceof ApiError || error instanceof BadResponseError) return error.notTheService;
  return undefined;
}

/** A failed call as a result line or a row records it: the service's error shape, and the failure in words (safe to print). */
export interface FailureFields {
  /** The HTTP status, or null when no answer came (or none that could be read). */
  status: number | null;
  /** The service's errorType; fraudctl's own name when the service gave none (`HTTP_500`, `TIMEOUT`, `NOT_THE_SERVICE`). */
  errorType: string;
  errorCodes: string[];
  requestId: string | null;
  message: string;
}

/** The one mapping of a failed call to FailureFields (submit's results, show's rows, the review queue); anything else is a bug, thrown again. */
export function failureFields(error: unknown): FailureFields {
  if (error instanceof ApiError)
    return {
      status: error.status,
      errorType: error.errorType ?? `HTTP_${error.status}`,
      errorCodes: [...error.errorCodes],
      requestId: error.requestId,
      message: error.message,
    };
  if (error instanceof NetworkError)
    return {
      status: null,
      errorType: NETWORK_ERROR_TYPES[error.failure],
      errorCodes: [],
      requestId: null,
      message: error.message,
    };
  if (error instanceof NotTheServiceError)
    return {
      status: error.status,
      errorType: 'NOT_THE_SERVICE',
      errorCodes: [],
      requestId: null,
      message: error.message,
    };
  if (error instanceof BadResponseError)
    return { status: null, errorType: 'BAD_RESPONSE', errorCodes: [], requestId: null, message: error.message };
  throw error;
}
