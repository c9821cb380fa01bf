import {
  ApiError,
  BadResponseError,
  NETWORK_ERROR_TYPES,
  NetworkError,
  networkExitCode,
  NotTheServiceError,
  ProxyError,
  type FailureFields,
  type NetworkFailure,
} from '../api/api-error.js';
import { ExitCode, UsageError, type CliError, type ExitCodeValue } from '../errors/cli-error.js';
import { statusMeaning, type AuthRefusal } from '../errors/exit-codes.js';

/*
 * What a failed call means, decided once for every job (a batch line, a bulk change, a row of a
 * list, the review queue, a watch, login): its kind, and what follows from it — whether every
 * other item of a run would meet it too (the run stops), whether a write may have been applied
 * although no usable answer came (settled by reading the event back, never by sending again
 * blindly), and the exit code. Each job maps a kind to its own outcome; none looks at statuses
 * or error classes itself. Tested as one table (test/failures/failure-kind.test.ts).
 */

export type FailureKind =
  /** 401/403: the key is refused or its merchant blocked. */
  | 'auth'
  /** An answer that is not the service's own (error-shape.ts): the URL is not the service. */
  | 'not-the-service'
  /** The proxy in the way failed; nothing reached the service. */
  | 'proxy'
  /** The service's own 404. */
  | 'not-found'
  /** 400/422, or an id that cannot be put in a URL: the request (the id) is malformed. */
  | 'invalid'
  /** Another 4xx of the service: it said no to this request; sending it again gets the same answer. */
  | 'refused'
  /** 429: this key is rate limited. */
  | 'throttled'
  /**
   * The service could not take the request now: 503, 500, a 502/504 to a read, the retry budget
   * spent, and 408 — a request timeout is the server saying it did not receive the whole request
   * in time, so nothing was processed and the same request may succeed later: transient, like a
   * 503, never a refusal of the request's content.
   */
  | 'unavailable'
  /** No usable answer (refused connection, DNS, TLS, a timeout or drop of a read, a redirect not followed). */
  | 'network'
  /** A write (POST, PATCH) that may have been applied: a timeout or drop after sending, 502/504, an unreadable 2xx. */
  | 'unknown-outcome';

export interface Failure {
  kind: FailureKind;
  /** Every other item would meet it too: a batch, a bulk change, a list, the queue stop at once. */
  stopsRun: boolean;
  /** The write may have been applied: the job reads the event back to learn whether it was. */
  mayHaveApplied: boolean;
  /**
   * An answer came that cannot be read as the interface promises (a 2xx not JSON, a 404 that is
   * not the service's, a redirect not followed, a body over 16 MiB): it tells nothing of the event.
   */
  unreadableAnswer: boolean;
  /**
   * Sent again unchanged, the same call meets it again: the service said no (to the key, the id,
   * the request), the URL is not the service, the proxy refuses (not merely down). What ends a
   * watch; a failure of the network never counts as lasting (the network may change).
   */
  lasting: boolean;
  /** For `auth`: what the service refused, the key itself or its merchant (null otherwise). */
  refused: AuthRefusal | null;
  /** What a command ending on this failure exits with. */
  exitCode: ExitCodeValue;
  /** The error to report: for an answer that is not the service's, the "not the service" error naming what came back. */
  error: CliError;
}

const WRITES: ReadonlySet<string> = new Set(['POST', 'PATCH']);

/** True when the failed call was a POST or PATCH (the client records the operation on the error). */
function wasWrite(error: ApiError | NetworkError | BadResponseError): boolean {
  return error.operation !== undefined && WRITES.has(error.operation.method);
}

/** A service's answer (an error shape, or a status a gateway may word its own way) by its status: the one status table's. */
export function answerKind(status: number, write: boolean): FailureKind {
  return statusMeaning(status, write).kind;
}

/** The same, with what an `auth` answer refused (the key, or its merchant; null for another kind): for words that differ. */
export function answerMeaning(status: number, write: boolean): { kind: FailureKind; refused: AuthRefusal | null } {
  const { kind, refused } = statusMeaning(status, write);
  return { kind, refused };
}

const NETWORK_BY_TYPE: ReadonlyMap<string, NetworkFailure> = new Map(
  Object.entries(NETWORK_ERROR_TYPES).map(([failure, type]) => [type, failure as NetworkFailure]),
);

/**
 * The exit code of a failed call as a result line recorded it (failureFields: its status and
 * errorType), for a job that comes to its exit code from its results: the code classifyFailure
 * gave the call, read back from what was kept — the status table's for an answer of the service,
 * the network's for none, 1 for an answer that was not the service's or could not be read. A
 * proxy's failure keeps only its type: 1 (it stopped the run, whose exit code is the stop's).
 */
export function recordedExitCode(fields: Pick<FailureFields, 'status'> & { errorType: string | null }): ExitCodeValue {
  if (fields.errorType === 'NOT_THE_SERVICE' || fields.errorType === 'BAD_RESPONSE') return ExitCode.FAILURE;
  if (fields.status !== null) return statusMeaning(fields.status, false).exitCode;
  const network = NETWORK_BY_TYPE.get(fields.errorType ?? '');
  return network === undefined || network === 'proxy' ? ExitCode.FAILURE : networkExitCode(network);
}

const failure = (
  kind: FailureKind,
  error: CliError,
  exitCode: ExitCodeValue = error.exitCode,
  unreadableAnswer = false,
  refused: AuthRefusal | null = null,
): Failure => ({
  kind,
  refused,
  unreadableAnswer,
  stopsRun: kind === 'auth' || kind === 'not-the-service' || kind === 'proxy',
  mayHaveApplied: kind === 'unknown-outcome',
  // A proxy that is down or cannot reach the service (exit 6) may be up later; one that refuses will not.
  lasting: saidNo(kind) || kind === 'not-the-service' || (kind === 'proxy' && exitCode !== ExitCode.UNAVAILABLE),
  exitCode,
  error,
});

/**
 * The kind of a failed call, and what follows from it. Anything that is not a failure of a call
 * (a bug) is thrown again.
 */
export function classifyFailure(error: unknown): Failure {
  if (error instanceof ProxyError) return failure('proxy', error);
  if (error instanceof NetworkError) {
    if (error.failure === 'budget') return failure('unavailable', error);
    if (error.maybeProcessed && error.failure !== 'tls' && wasWrite(error)) return failure('unknown-outcome', error);
    return failure('network', error);
  }
  if (error instanceof ApiError) {
    if (error.notTheService) return failure('not-the-service', error.notTheService);
    const { kind, exitCode, refused } = statusMeaning(error.status, wasWrite(error));
    return failure(kind, error, exitCode, false, refused);
  }
  // A 404 that is not the service's: whatever answered did not pass the request on.
  if (error instanceof NotTheServiceError) return failure('not-the-service', error, error.exitCode, true);
  if (error instanceof BadResponseError) {
    // An unreadable 2xx to a write (or a write's answer not read: a redirect, too large): the
    // service may have acted on it, so the event is read back; only a foreign read is "not the service".
    if (wasWrite(error)) return failure('unknown-outcome', error, error.exitCode, true);
    // To a read: a bad answer for this id (exit 1), as `show` has it; the next id may be answered.
    return failure('network', error, error.exitCode, true);
  }
  // An id that cannot be put in a URL (a lone surrogate): no event can have it.
  if (error instanceof UsageError) return failure('invalid', error);
  throw error;
}

/**
 * The failure of a call, or null for an error that is no call's (a bug, a file of this machine,
 * a question not answered): for a job that meets both kinds of error in one place.
 */
export function callFailure(error: unknown): Failure | null {
  const ofACall =
    error instanceof ApiError ||
    error instanceof NetworkError ||
    error instanceof BadResponseError ||
    error instanceof UsageError;
  return ofACall ? classifyFailure(error) : null;
}

/**
 * The service said no to this request (the key, not found, invalid, refused): sent again it gets
 * the same answer. What an action log records as `refused`; any other failure is `failed` (sent
 * again, it may go through). One rule for the queue, one event's and many events' set-state.
 */
export function saidNo(kind: FailureKind): boolean {
  return kind === 'auth' || kind === 'not-found' || kind === 'invalid' || kind === 'refused';
}

/** The stop of a run a failure that stops it is (src/batch/'s names); only for `stopsRun`. */
export function runStop(failure: Failure): 'auth' | 'not-the-service' | 'proxy' {
  if (failure.kind === 'auth' || failure.kind === 'not-the-service' || failure.kind === 'proxy') return failure.kind;
  throw new Error(`a ${failure.kind} failure does not stop a run`);
}
