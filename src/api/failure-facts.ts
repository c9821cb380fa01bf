/*
 * What the client knows of a failed call, as facts: the operation, the status, what came back
 * (content type and the body with the key taken out), the proxy's answer, the TLS or network
 * error code, whether the service may have acted, the Retry-After and the deadline. The client
 * holds no sentence: a `FailureDescriber` (src/failures/failure-messages.ts, given by the
 * session) turns facts into a message and a hint when an error is raised, because a failure is
 * recorded in many places (results files, rows, notes), not only printed by main.
 */

/** A message and the hint that follows it (none when there is nothing to do). */
export interface Said {
  message: string;
  hint?: string | undefined;
}

/** What the call was for (each names its event, when it has one). */
export type Purpose =
  | { action: 'submit' }
  | { action: 'get' | 'risk-assessment' | 'change-state'; eventId: string }
  | { action: 'probe'; path: string };

/** The call that failed: its method, the event it names, what it was for. */
export interface CallFacts {
  method: 'GET' | 'POST' | 'PATCH';
  eventId?: string | undefined;
  purpose: Purpose;
}

/** A body that is not the JSON expected: its content type ('' when none) and its text, the key taken out. */
export interface BodyFacts {
  contentType: string;
  text: string;
}

/** What came back instead of the service's own answer. */
export type ForeignAnswer =
  | { kind: 'empty' }
  | { kind: 'not-error-shape' }
  | { kind: 'method' }
  | { kind: 'not-object' }
  | { kind: 'route'; code: string }
  | { kind: 'body'; body: BodyFacts };

/** An answer with a status that is not success (the service's error shape, or a body that is not JSON). */
export interface AnswerFacts {
  call: CallFacts;
  status: number;
  errorType: string | null;
  errorCodes: readonly string[];
  requestId: string | null;
  /** Set when the answer had a body that is not JSON. */
  body?: BodyFacts | undefined;
}

/** A TLS failure, by kind (the code decides it; `code` as it came, '' when none). */
export type TlsKind = 'untrusted' | 'expired' | 'not-yet-valid' | 'other-name' | 'no-tls';

/** The proxy could not be connected to, by cause. */
export type ProxyUnreachable = 'refused' | 'dns' | 'timeout' | 'no-route';

/** The proxy in the way: its host and port (never credentials) and the variable naming it. */
export interface ProxyFacts {
  shown: string;
  from: string;
  /** The host of the service, which nothing reached. */
  host: string;
}

export interface FailureDescriber {
  /** transport.ts's refusal of plain http:// to `host`, a host that is not this machine. */
  plainHttp(host: string): Said;
  /** The service's host name does not resolve (found before anything is sent). */
  hostNotFound(hostname: string): Said;
  /** A non-success answer of the service. */
  answer(facts: AnswerFacts): Said;
  /** A 429/503 whose Retry-After is past the deadline: `said` is the answer's own. */
  waitTooLong(said: Said, retryAfterSeconds: number, timeoutSeconds: number): Said;
  /** A batch's retry budget refused the retry. */
  budgetSpent(call: CallFacts): Said;
  /** What came back instead of the service's answer, in words (NotTheServiceError.got). */
  got(answer: ForeignAnswer): string;
  /** An answer that is not the service's: `got` in words, where it came from. */
  notTheService(facts: {
    method: string;
    origin: string;
    path: string;
    status: number;
    got: string;
    requestId: string | null;
  }): Said;
  /** A 2xx whose body is not JSON, or not a JSON object. */
  badSuccess(call: CallFacts, status: number, body: BodyFacts | 'not-object'): Said;
  /** Any other answer a call cannot use. */
  unusable(call: CallFacts, status: number): Said;
  /** A redirect without a usable Location, to another origin, or not followed (not a GET, too many). */
  redirect(call: CallFacts, status: number, to: { noLocation: true } | { origin: string } | { path: string }): Said;
  /** An answer larger than the client reads. */
  tooLarge(call: CallFacts, host: string, maxMiB: number): Said;
  /** No complete answer within the deadline; `sent`: the request went out (or may have). */
  timeout(call: CallFacts, origin: string, timeoutSeconds: number, sent: boolean): Said;
  /** The connection failed: refused, the host not found, no answer to connecting, or dropped (`code` as it came). */
  network(
    call: CallFacts,
    failure: 'refused' | 'dns' | 'connect-timeout' | 'reset',
    where: { host: string; hostname: string; code: string },
  ): Said;
  /** The TLS connection failed. */
  tls(kind: TlsKind, host: string, code: string): Said;
  /** The proxy asked for credentials (407, or 401 from some), or did not accept those given. */
  proxyCredentials(proxy: ProxyFacts, status: number, credentialsGiven: boolean): Said;
  /** The proxy answered CONNECT with another status than 200 (`phrase`: its reason phrase, when known). */
  proxyRefused(proxy: ProxyFacts, status: number, phrase: string | undefined): Said;
  /** The proxy could not be connected to. */
  proxyUnreachable(proxy: ProxyFacts, cause: ProxyUnreachable): Said;
}
