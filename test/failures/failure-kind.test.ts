import { describe, expect, it } from 'vitest';
import {
  ApiError,
  BadResponseError,
  NetworkError,
  NotTheServiceError,
  ProxyError,
  type FailedOperation,
} from '../../src/api/api-error.js';
import { CliError, ExitCode, UsageError } from '../../src/errors/cli-error.js';
import { answerMeaning, callFailure, classifyFailure, type FailureKind } from '../../src/failures/failure-kind.js';

/*
 * The one table of what a failed call means: its kind, whether it stops a run, whether a write
 * may have been applied, and the exit code. Every job (batch line, bulk change, list row, queue,
 * watch, login) maps these kinds to its own outcome.
 */

const GET: FailedOperation = { method: 'GET', eventId: 'e-1' };
const POST: FailedOperation = { method: 'POST', eventId: 'e-1' };
const PATCH: FailedOperation = { method: 'PATCH', eventId: 'e-1' };

function on<E extends ApiError | NetworkError | BadResponseError>(error: E, operation: FailedOperation): E {
  error.operation = operation;
  return error;
}
const answer = (status: number, operation: FailedOperation) =>
  on(new ApiError(`answered ${status}`, status, 'T', [], 'r-1'), operation);
const foreignAnswer = (status: number, operation: FailedOperation) => {
  const error = answer(status, operation);
  error.notTheService = new NotTheServiceError(`answered ${status}, not the service`, status, 'text/plain: "x"');
  return error;
};
const network = (
  failure: NetworkError['failure'],
  maybeProcessed: boolean,
  operation: FailedOperation,
  exitCode?: 1 | 6,
) => on(new NetworkError(failure, failure, maybeProcessed, undefined, exitCode), operation);
const unreadable2xx = (operation: FailedOperation) => {
  const error = on(new BadResponseError('answered 200, but the body is not JSON (an HTML page)'), operation);
  error.notTheService = new NotTheServiceError('answered 200 with an HTML page', 200, 'an HTML page');
  return error;
};
const foreign404 = (operation: FailedOperation) =>
  on(new NotTheServiceError('answered 404 with an HTML page', 404, 'an HTML page'), operation);

type Row = [string, unknown, FailureKind, { stops: boolean; applied: boolean; exit: number }];

const TABLE: Row[] = [
  ['401 to a read', answer(401, GET), 'auth', { stops: true, applied: false, exit: ExitCode.AUTH }],
  ['403 to a write', answer(403, PATCH), 'auth', { stops: true, applied: false, exit: ExitCode.AUTH }],
  [
    'a foreign 404 (HTML, a route code)',
    foreign404(GET),
    'not-the-service',
    { stops: true, applied: false, exit: ExitCode.FAILURE },
  ],
  [
    'a foreign 404 to a POST: nothing passed it on',
    foreign404(POST),
    'not-the-service',
    { stops: true, applied: false, exit: ExitCode.FAILURE },
  ],
  [
    '405 text/plain to a read',
    foreignAnswer(405, GET),
    'not-the-service',
    { stops: true, applied: false, exit: ExitCode.FAILURE },
  ],
  [
    '405 text/plain to a write',
    foreignAnswer(405, PATCH),
    'not-the-service',
    { stops: true, applied: false, exit: ExitCode.FAILURE },
  ],
  [
    'an unreadable 2xx to a PATCH: read the event back',
    unreadable2xx(PATCH),
    'unknown-outcome',
    { stops: false, applied: true, exit: ExitCode.FAILURE },
  ],
  [
    'an unreadable 2xx to a POST: read the event back',
    unreadable2xx(POST),
    'unknown-outcome',
    { stops: false, applied: true, exit: ExitCode.FAILURE },
  ],
  [
    'an unreadable 2xx to a read: a bad answer for that id',
    unreadable2xx(GET),
    'network',
    { stops: false, applied: false, exit: ExitCode.FAILURE },
  ],
  [
    'a redirect not followed on a write',
    on(new BadResponseError('a redirect, not followed'), POST),
    'unknown-outcome',
    { stops: false, applied: true, exit: ExitCode.FAILURE },
  ],
  [
    'the proxy refuses the service (403 to CONNECT)',
    new ProxyError('proxy said 403', 403, 'ask', ExitCode.FAILURE),
    'proxy',
    { stops: true, applied: false, exit: ExitCode.FAILURE },
  ],
  [
    'the proxy is down',
    new ProxyError('proxy down', null, 'is it running', ExitCode.UNAVAILABLE),
    'proxy',
    { stops: true, applied: false, exit: ExitCode.UNAVAILABLE },
  ],
  ["the service's own 404", answer(404, GET), 'not-found', { stops: false, applied: false, exit: ExitCode.NOT_FOUND }],
  ['400 to a read', answer(400, GET), 'invalid', { stops: false, applied: false, exit: ExitCode.REJECTED }],
  ['422 to a write', answer(422, PATCH), 'invalid', { stops: false, applied: false, exit: ExitCode.REJECTED }],
  ['409', answer(409, POST), 'refused', { stops: false, applied: false, exit: ExitCode.REJECTED }],
  ['413', answer(413, POST), 'refused', { stops: false, applied: false, exit: ExitCode.REJECTED }],
  [
    '408 (a request timeout: transient, nothing processed)',
    answer(408, PATCH),
    'unavailable',
    { stops: false, applied: false, exit: ExitCode.UNAVAILABLE },
  ],
  ['408 to a read', answer(408, GET), 'unavailable', { stops: false, applied: false, exit: ExitCode.UNAVAILABLE }],
  ['429', answer(429, GET), 'throttled', { stops: false, applied: false, exit: ExitCode.UNAVAILABLE }],
  [
    '503 to a write (not processed)',
    answer(503, POST),
    'unavailable',
    { stops: false, applied: false, exit: ExitCode.UNAVAILABLE },
  ],
  ['500', answer(500, GET), 'unavailable', { stops: false, applied: false, exit: ExitCode.FAILURE }],
  ['502 to a read', answer(502, GET), 'unavailable', { stops: false, applied: false, exit: ExitCode.UNAVAILABLE }],
  [
    '502 to a write',
    answer(502, PATCH),
    'unknown-outcome',
    { stops: false, applied: true, exit: ExitCode.UNAVAILABLE },
  ],
  ['504 to a POST', answer(504, POST), 'unknown-outcome', { stops: false, applied: true, exit: ExitCode.UNAVAILABLE }],
  [
    'the retry budget spent',
    network('budget', false, POST),
    'unavailable',
    { stops: false, applied: false, exit: ExitCode.UNAVAILABLE },
  ],
  [
    'connection refused',
    network('refused', false, POST),
    'network',
    { stops: false, applied: false, exit: ExitCode.UNAVAILABLE },
  ],
  [
    'a TLS certificate refused',
    network('tls', false, GET, ExitCode.FAILURE),
    'network',
    { stops: false, applied: false, exit: ExitCode.FAILURE },
  ],
  [
    'a timeout of a read',
    network('timeout', true, GET),
    'network',
    { stops: false, applied: false, exit: ExitCode.UNAVAILABLE },
  ],
  [
    'a timeout after a POST was sent',
    network('timeout', true, POST),
    'unknown-outcome',
    { stops: false, applied: true, exit: ExitCode.UNAVAILABLE },
  ],
  [
    'a dropped connection after a PATCH was sent',
    network('reset', true, PATCH),
    'unknown-outcome',
    { stops: false, applied: true, exit: ExitCode.UNAVAILABLE },
  ],
  [
    'an id that cannot be put in a URL',
    new UsageError('half a surrogate pair'),
    'invalid',
    { stops: false, applied: false, exit: ExitCode.USAGE },
  ],
];

describe('classifyFailure: one meaning per failure', () => {
  it.each(TABLE)('%s', (_name, error, kind, follows) => {
    const failure = classifyFailure(error);
    expect({
      kind: failure.kind,
      stops: failure.stopsRun,
      applied: failure.mayHaveApplied,
      exit: failure.exitCode,
    }).toEqual({ kind, ...follows });
  });

  it('is lasting (sent again unchanged, the same call meets it again) when said no, not the service, or a proxy refusing', () => {
    const lasting = TABLE.filter(([, error]) => classifyFailure(error).lasting).map(([name]) => name);
    expect(lasting).toEqual([
      '401 to a read',
      '403 to a write',
      'a foreign 404 (HTML, a route code)',
      'a foreign 404 to a POST: nothing passed it on',
      '405 text/plain to a read',
      '405 text/plain to a write',
      'the proxy refuses the service (403 to CONNECT)',
      "the service's own 404",
      '400 to a read',
      '422 to a write',
      '409',
      '413',
      'an id that cannot be put in a URL',
    ]);
  });

  it("callFailure: the failure of a call, and null for an error that is no call's", () => {
    expect(callFailure(answer(404, GET))?.kind).toBe('not-found');
    expect(callFailure(new CliError('cannot write results.jsonl'))).toBeNull();
    expect(callFailure(new TypeError('a bug'))).toBeNull();
  });

  it('reports the "not the service" error for a foreign answer, naming what came back', () => {
    const error = foreignAnswer(405, GET);
    expect(classifyFailure(error).error).toBe(error.notTheService);
  });

  it('throws anything that is not a failure of a call again (a bug)', () => {
    const bug = new TypeError('x is undefined');
    expect(() => classifyFailure(bug)).toThrow(bug);
    const other = new CliError('not a call');
    expect(() => classifyFailure(other)).toThrow(other);
  });

  it('an auth failure says what was refused (the key: 401, its merchant: 403), for the words of login and doctor', () => {
    expect([401, 403, 404, 429].map((status) => classifyFailure(answer(status, GET)).refused)).toEqual([
      'key',
      'merchant',
      null,
      null,
    ]);
    expect(classifyFailure(answer(403, PATCH)).refused).toBe('merchant');
    expect(classifyFailure(network('timeout', false, GET)).refused).toBeNull();
    expect([401, 403, 503].map((status) => answerMeaning(status, false))).toEqual([
      { kind: 'auth', refused: 'key' },
      { kind: 'auth', refused: 'merchant' },
      { kind: 'unavailable', refused: null },
    ]);
  });
});
