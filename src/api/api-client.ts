import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { Agent, loadEnvHttpProxyAgent } from './undici-parts.js';
import { VERSION } from '../version.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import { ApiError, BadResponseError, NetworkError, NotTheServiceError, ProxyError } from './api-error.js';
import { ExitCode, UsageError } from '../errors/cli-error.js';
import { readErrorAnswer, readNotFound } from './error-shape.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, GATEWAY_STATUSES, parseRetryAfter, RETRYABLE_STATUSES, type RetryPolicy } from './retry-policy.js';
import type { RetryKind } from './retry-budget.js';
import { redactHeaders } from './debug-log.js';
import { redactKeyIn } from '../profiles/redact.js';
import { canBeInPath, eventPath } from '../contract/paths.js';
import { checkTransport } from './transport.js';
import { proxyFor, proxySettings, proxyShown } from './proxy.js';
import type { CallFacts, FailureDescriber, Purpose, TlsKind, ProxyUnreachable } from './failure-facts.js';
import { sym } from '../render/symbols.js';

/*
 * The one place that talks HTTP to the service (undici). It owns the API key header, the
 * deadline (one per call, covering retries and the whole body read), retries, redirects,
 * debug logging with the key redacted, and the mapping of every failure to a typed error
 * carrying its facts (failure-facts.ts), put in words by the describer the session gives.
 */

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string | null;
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  /** For HTTP(S)_PROXY / NO_PROXY. */
  env: NodeJS.ProcessEnv;
  /** Puts a failure's facts in words, message and hint (src/failures/failure-messages.ts). */
  describe: FailureDescriber;
  /** Receives request/response log lines (the debug option); they never hold the key. */
  debug?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Keep-alive connections per origin (batch: its concurrency). Default: undici's (unbounded). */
  connections?: number;
  /** Aborts every request in flight (a batch's second Ctrl-C). */
  signal?: AbortSignal;
  /** A batch's say over every request: pacing, a shared retry budget, throttling. */
  control?: RequestControl;
  /** Allows http:// to a host that is not this machine (the insecure-http setting); otherwise the constructor refuses it. */
  insecureHttp?: boolean;
}

/**
 * How a batch steers the requests of all its lines at once. Without it, each call retries on
 * its own policy alone.
 */
export interface RequestControl {
  /** Awaited before every attempt: the batch's rate limit and any pause a 429/503 asked for. */
  beforeAttempt(): Promise<void>;
  /** Every HTTP answer an attempt got, retried or not: how the batch tells a throttled line from a throttled service. */
  onAnswer(status: number): void;
  /**
   * The call waits `wait` out (backoff, Retry-After) before its next attempt. A batch lets other
   * lines use this line's request slot meanwhile, and takes one back before resolving.
   */
  retryWait(wait: Promise<void>): Promise<void>;
  /** Asked before every retry: the cost taken from the shared budget, or false to give up now. */
  allowRetry(kind: RetryKind): number | false;
  /**
   * Asked before every retry, when present: false ends the call at once with its failure as it
   * is, not retried (the watch's first check on a terminal, which says so and checks again itself).
   */
  wantsRetries?(): boolean;
  /** A 429 or 503 arrived; `retryAfterMs` is the server's Retry-After as it came (the call itself never waits past its deadline). */
  onThrottle(retryAfterMs: number | undefined): void;
  /** The call ended with an answer that needs no retry; `retryCost` is what its retries took. */
  onSettled(retryCost: number): void;
}

export interface ApiResponse {
  status: number;
  /** The parsed JSON body; undefined when there was none (e.g. 204). */
  body: unknown;
  requestId: string | null;
  /** Attempts the call took (1 when the first one was answered). */
  attempts: number;
}

interface Operation {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: unknown;
  /** A body already serialised (a batch sends each line's own text). */
  rawBody?: string;
  eventId?: string;
  /** What the user asked for (the describer says it: "screening the event"). */
  purpose: Purpose;
  /** GET and PATCH may be retried on any failure that is safe; POST only when nothing was sent. */
  idempotent: boolean;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_REDIRECTS = 3;
const safe = (s: string) => terminalSafe(truncate(s, 300));
const callFacts = (op: Operation): CallFacts => ({ method: op.method, eventId: op.eventId, purpose: op.purpose });

function requestHeaders(apiKey: string | null, withBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': `fraudctl/${VERSION}` };
  if (apiKey) headers['x-client-api-key'] = apiKey;
  if (withBody) headers['content-type'] = 'application/json';
  return headers;
}

export interface RequestPreview {
  method: string;
  /** The resource's path, as the interface names it (`/event/ord-1/state`), under the base URL. */
  path: string;
  /** The whole URL; null for the embedded sandbox, which has none until a command starts it. */
  url: string | null;
  /** Where it would go, in words: the base URL, or "the embedded sandbox". */
  to: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** The request a call would send, key redacted, without sending it (a dry run). `null` base: the embedded sandbox. */
export function previewRequest(baseUrl: string | null, apiKey: string | null, method: string, path: string, body?: unknown, profile?: string): RequestPreview {
  const base = baseUrl === null ? null : new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const url = base === null ? null : `${base.origin}${base.pathname}${path.replace(/^\//, '')}`;
  const place = base === null ? 'the embedded sandbox (a local service on a loopback port, not production)' : `${base.origin}${base.pathname}`;
  const to = profile === undefined ? place : `${place}, profile ${profile}`;
  return { method, path, url, to, headers: redactHeaders(requestHeaders(apiKey, body !== undefined)), ...(body !== undefined ? { body } : {}) };
}

export { eventPath } from '../contract/paths.js';

/**
 * eventPath, refusing an id that is not well-formed Unicode (a lone surrogate, possible in a
 * JSON string): it has no UTF-8 form to percent-encode, so it cannot name a resource.
 */
function idPath(eventId: string, suffix = ''): string {
  if (!canBeInPath(eventId)) {
    throw new UsageError(`the event id ${terminalSafe(JSON.stringify(eventId))} is not valid Unicode text (it holds half of a surrogate pair): it cannot be put in a URL`);
  }
  return eventPath(eventId, suffix);
}

export class ApiClient {
  private readonly base: URL;
  private dispatcherValue?: Promise<Dispatcher>;
  private readonly policy: RetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ApiClientOptions) {
    checkTransport(options.baseUrl, options.insecureHttp === true, options.describe.allowInsecureHttp);
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    // A batch's abort (second Ctrl-C) ends a wait at once: the next attempt then fails as aborted,
    // instead of the process lingering for a Retry-After of up to 30 s.
    this.sleep = options.sleep ?? ((ms) => sleepFor(ms, undefined, options.signal ? { signal: options.signal } : {}).catch(() => {}));
    // The batch's abort ends every request in flight by destroying the connection pool: one
    // listener for the client's life. Not a listener per attempt, nor a set of the attempts in
    // flight: anything long-lived that points at each attempt (thousands a second) makes V8
    // promote the attempts' objects and grow its young generation (figures:
    // docs/decisions/abort-listener-per-client.md).
    const batchSignal = options.signal;
    batchSignal?.addEventListener('abort', () => void this.dispatcherValue?.then((d) => d.destroy(batchSignal.reason)).catch(() => {}), { once: true });
  }

  /** The connection pool, made at the first request (the proxy agent is loaded only when a proxy is set). */
  private dispatcher(): Promise<Dispatcher> {
    this.dispatcherValue ??= (async () => {
      const connect = { timeout: Math.min(10_000, this.options.timeoutMs) };
      const proxies = proxySettings(this.options.env);
      const connections = this.options.connections !== undefined ? { connections: this.options.connections } : {};
      if (!proxies.http && !proxies.https) return new Agent({ connect, keepAliveTimeout: 10_000, ...connections });
      const EnvHttpProxyAgent = await loadEnvHttpProxyAgent();
      // All three given (an empty string: none), so undici reads nothing from process.env itself.
      return new EnvHttpProxyAgent({
        connect,
        httpProxy: proxies.http?.proxy ?? '',
        httpsProxy: proxies.https?.proxy ?? '',
        noProxy: proxies.noProxy,
        // Plain http:// goes to the proxy as an absolute URL, as curl does; https:// is tunnelled (CONNECT).
        proxyTunnel: false,
        ...connections,
      } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
    })();
    return this.dispatcherValue;
  }

  submitEvent(payload: unknown): Promise<ApiResponse> {
    const id = typeof payload === 'object' && payload !== null ? (payload as { id?: unknown }).id : undefined;
    return this.call({ method: 'POST', path: '/event', body: payload, purpose: { action: 'submit' }, idempotent: false, ...(typeof id === 'string' ? { eventId: id } : {}) });
  }

  /** POST /event with a body that is already JSON text (a line of a batch), sent as it is. */
  submitEventText(text: string, eventId: string | undefined): Promise<ApiResponse> {
    return this.call({ method: 'POST', path: '/event', rawBody: text, purpose: { action: 'submit' }, idempotent: false, ...(eventId !== undefined ? { eventId } : {}) });
  }

  getEvent(eventId: string): Promise<ApiResponse> {
    return this.callOn({ method: 'GET', path: '', eventId, purpose: { action: 'get', eventId }, idempotent: true });
  }

  getRiskAssessment(eventId: string): Promise<ApiResponse> {
    return this.callOn({ method: 'GET', path: '/risk-assessment', eventId, purpose: { action: 'risk-assessment', eventId }, idempotent: true });
  }

  /**
   * PATCH /event/{id}/state. `resendWhenUnsure: false` (a bulk change): an attempt the service may
   * have acted on (a timeout or a dropped connection after sending) is not sent again by the
   * client; the caller reads the event to learn what happened.
   */
  changeState(eventId: string, change: { state?: string; comments?: string }, options: { resendWhenUnsure?: boolean } = {}): Promise<ApiResponse> {
    return this.callOn({ method: 'PATCH', path: '/state', body: change, eventId, purpose: { action: 'change-state', eventId }, idempotent: options.resendWhenUnsure !== false });
  }

  /** A call on one event's resource: `op.path` is the suffix after /event/{id}. Rejects (never throws) for an id that cannot be a path. */
  private callOn(op: Operation & { eventId: string }): Promise<ApiResponse> {
    let path: string;
    try {
      path = idPath(op.eventId, op.path);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return this.call({ ...op, path });
  }

  /**
   * One GET of `path` under the base URL, no retry, no redirect, no reading of the answer as the
   * service's (doctor looks at it raw): status, headers, body text and round-trip time.
   * A failure to get any answer is the usual NetworkError, with its message and hint.
   */
  async probe(path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; requestId: string | null; elapsedMs: number }> {
    const op: Operation = { method: 'GET', path, purpose: { action: 'probe', path }, idempotent: true };
    const started = performance.now();
    const raw = await this.send(op, `${this.base.pathname}${path.replace(/^\//, '')}`, null, started + this.options.timeoutMs);
    return { ...raw, elapsedMs: performance.now() - started };
  }

  close(): Promise<void> {
    // After the batch's abort the pool is destroyed already: closing it would fail.
    return this.dispatcherValue ? this.dispatcherValue.then((d) => (this.options.signal?.aborted ? d.destroy() : d.close())) : Promise.resolve();
  }

  private get describe(): FailureDescriber {
    return this.options.describe;
  }

  private headers(withBody: boolean): Record<string, string> {
    return requestHeaders(this.options.apiKey, withBody);
  }

  /** One call, retried as the policy allows; its failure carries the operation (src/failures/ reads it). */
  private call(op: Operation): Promise<ApiResponse> {
    return this.callWithRetries(op).catch((error: unknown) => {
      if (error instanceof ApiError || error instanceof NetworkError || error instanceof BadResponseError) error.operation = { method: op.method, eventId: op.eventId ?? null };
      throw error;
    });
  }

  private async callWithRetries(op: Operation): Promise<ApiResponse> {
    // Deadlines and waits are on the monotonic clock (performance.now(), as setTimeout is): a
    // wall clock stepped back would stretch the timeout by the step, one stepped forward would end
    // a call that still had time, and say its POST "may have been stored".
    let deadline = performance.now() + this.options.timeoutMs;
    const body = op.rawBody ?? (op.body === undefined ? null : JSON.stringify(op.body));
    const control = this.options.control;
    let retryCost = 0;
    for (let attempt = 0; ; attempt++) {
      let retryAfterMs: number | undefined;
      let kind: RetryKind = 'error';
      // What stands when no retry is made: the last answer's error, or the last failure.
      let standing: Error;
      try {
        // A batch's pace and batch-wide pause are its queue, not this request's time: the
        // deadline moves by the wait (a rate of 1 a second with 10 lines in flight is not a timeout of the tenth).
        const queued = performance.now();
        await control?.beforeAttempt();
        deadline += performance.now() - queued;
        const response = await this.attempt(op, body, deadline);
        control?.onAnswer(response.status);
        const throttled = RETRYABLE_STATUSES.has(response.status);
        const retryable = throttled || (op.method === 'GET' && GATEWAY_STATUSES.has(response.status));
        if (!retryable || attempt >= this.policy.maxRetries) {
          if (response.status < 500 && !throttled) control?.onSettled(retryCost);
          return this.finish(op, response, attempt + 1);
        }
        standing = this.answerError(op, response, attempt + 1);
        if (throttled) {
          retryAfterMs = parseRetryAfter(response.headers['retry-after']);
          control?.onThrottle(retryAfterMs);
          // The service said when to come back: not before (a retry sooner would be refused
          // again, or be a second POST it asked not to get), and a wait past the deadline is
          // not begun: the answer stands at once, saying so.
          if (retryAfterMs !== undefined && performance.now() + retryAfterMs >= deadline) throw this.waitTooLong(standing, retryAfterMs);
        }
        this.options.debug?.(`retrying after ${response.status}`);
      } catch (error) {
        if (error instanceof ApiError || error instanceof NetworkError || error instanceof BadResponseError) error.attempts = attempt + 1;
        if (error instanceof WaitTooLong) throw error.answer;
        // A timeout used the deadline up; a TLS failure (a certificate, a scheme) would only come again.
        // A proxy's failure is not the service's blip: every attempt would meet it, so it is said at once.
        const safeToRepeat = error instanceof NetworkError && !['timeout', 'other', 'tls', 'proxy'].includes(error.failure) && (op.idempotent || !error.maybeProcessed);
        if (!safeToRepeat || attempt >= this.policy.maxRetries || this.options.signal?.aborted) throw error;
        if (error.failure === 'connect-timeout') kind = 'timeout';
        standing = error;
        this.options.debug?.(`retrying after ${error.message}`);
      }
      const wait = backoffDelay(this.policy, attempt + 1, retryAfterMs);
      // No time left for the wait and another attempt: the last failure is the call's, as it was
      // (a 503 is a 503, a refused connection a refused connection: not "no answer").
      if (performance.now() + wait >= deadline) throw standing;
      if (control?.wantsRetries?.() === false) throw standing;
      const cost = control ? control.allowRetry(kind) : 0;
      if (cost === false) throw this.budgetSpent(op, attempt + 1);
      retryCost += cost;
      const waiting = this.sleep(wait);
      await (control ? control.retryWait(waiting) : waiting);
    }
  }

  /** The error an answer that is not a success stands for (what finish() throws for it). */
  private answerError(op: Operation, raw: RawResponse, attempts: number): Error {
    try {
      this.finish(op, raw, attempts);
    } catch (error) {
      if (error instanceof ApiError || error instanceof BadResponseError) error.attempts = attempts;
      return error as Error;
    }
    const said = this.describe.unusable(callFacts(op), raw.status);
    return new BadResponseError(said.message, said.hint);
  }

  /**
   * A 429/503 whose Retry-After reaches past the deadline: the answer stands, saying how long the
   * service asked to wait and that the timeout does not allow it (never "no answer": one came).
   */
  private waitTooLong(answer: Error, retryAfterMs: number): WaitTooLong {
    if (!(answer instanceof ApiError)) return new WaitTooLong(answer);
    const said = this.describe.waitTooLong({ message: answer.message, hint: answer.hint }, Math.ceil(retryAfterMs / 1000), this.options.timeoutMs / 1000);
    const error = new ApiError(said.message, answer.status, answer.errorType, answer.errorCodes, answer.requestId, said.hint);
    error.attempts = answer.attempts;
    if (answer.notTheService) error.notTheService = answer.notTheService;
    return new WaitTooLong(error);
  }

  /** The batch's shared retry budget refused a retry: the last failure stands, and says why. */
  private budgetSpent(op: Operation, attempts: number): NetworkError {
    const said = this.describe.budgetSpent(callFacts(op));
    const error = new NetworkError(said.message, 'budget', false, said.hint);
    error.attempts = attempts;
    return error;
  }

  private async attempt(op: Operation, body: string | null, deadline: number): Promise<RawResponse> {
    // Sent as joined, not as URL resolved it: that would drop an id "." or ".." as a dot segment.
    // Every request goes to the base URL's origin (a redirect is followed only within it), so a
    // URL object is made only to resolve a redirect's Location.
    let path = `${this.base.pathname}${op.path.replace(/^\//, '')}`;
    for (let hop = 0; ; hop++) {
      const raw = await this.send(op, path, body, deadline);
      if (raw.status < 300 || raw.status >= 400) return raw;
      // Joined, not resolved: a path starting with // would be read as another host.
      const target = this.followable(op, new URL(this.base.origin + path), raw, hop);
      path = `${target.pathname}${target.search}`;
    }
  }

  /** A redirect is followed only for GET, only within the same origin, a few times at most. */
  private followable(op: Operation, from: URL, raw: RawResponse, hop: number): URL {
    const location = raw.headers.location;
    const target = typeof location === 'string' ? parseUrl(location, from) : undefined;
    const refuse = (to: Parameters<FailureDescriber['redirect']>[2]) => {
      const said = this.describe.redirect(callFacts(op), raw.status, to);
      return new BadResponseError(said.message, said.hint);
    };
    if (!target) throw refuse({ noLocation: true });
    if (target.origin !== this.base.origin) throw refuse({ origin: this.withoutKey(target.origin) });
    if (op.method !== 'GET' || hop >= MAX_REDIRECTS) throw refuse({ path: this.withoutKey(target.pathname) });
    return target;
  }

  private async send(op: Operation, path: string, body: string | null, deadline: number): Promise<RawResponse> {
    const url = this.base;
    const remaining = deadline - performance.now();
    // Nothing of this attempt was sent, and earlier ones were retried only when nothing was processed.
    if (remaining <= 0) throw this.timeout(op, false);
    const headers = this.headers(body !== null);
    const started = performance.now();
    // The body is the user's input: it may hold escape sequences or bidi controls, shown inert like a response's.
    this.options.debug?.(`${sym.arrow} ${op.method} ${terminalSafe(`${url.origin}${path}`)} ${JSON.stringify(redactHeaders(headers))}${body ? `\n  ${terminalSafe(truncate(this.withoutKey(body), 2000))}` : ''}`);
    // One controller per attempt, its timer cleared at the end: AbortSignal.timeout would keep
    // every request's signal and timer alive for the whole timeout, and AbortSignal.any ties
    // each one to the batch's long-lived signal — hundreds of thousands of them in a big batch.
    // The batch's abort reaches requests already sent by destroying the pool (see the constructor).
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('the deadline passed', 'TimeoutError')), remaining);
    const batchSignal = this.options.signal;
    if (batchSignal?.aborted) controller.abort(batchSignal.reason);
    const signal = controller.signal;
    let sent = false;
    try {
      const dispatcher = await this.dispatcher();
      const res = await dispatcher.request({ origin: url.origin, path, method: op.method, headers, body, signal, headersTimeout: remaining, bodyTimeout: remaining });
      sent = true;
      const text = await readLimited(res.body);
      const requestId = headerValue(res.headers['x-request-id']);
      this.options.debug?.(`${sym.left} ${res.statusCode} in ${Math.round(performance.now() - started)} ms ${this.withoutKey(JSON.stringify(pickHeaders(res.headers)))}\n  ${terminalSafe(truncate(this.withoutKey(text), 2000))}`);
      return { status: res.statusCode, headers: res.headers, text, requestId, path };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'FRAUDCTL_BODY_TOO_LARGE' || code === 'UND_ERR_RESPONSE_EXCEEDED_MAX_SIZE') {
        // An answer the interface never promises: a bad answer (exit 1), not "try again later".
        const said = this.describe.tooLarge(callFacts(op), url.host, MAX_BODY_BYTES / 1024 / 1024);
        throw new BadResponseError(said.message, said.hint);
      }
      throw this.networkError(op, url, error, sent);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A server may echo the key back (a page quoting the request): no log or message may hold it (redact.ts: how). */
  private withoutKey(text: string): string {
    return redactKeyIn(text, this.options.apiKey);
  }

  /** `sent`: the request went out (or may have), so a POST may have been stored. */
  private timeout(op: Operation, sent = true): NetworkError {
    const said = this.describe.timeout(callFacts(op), this.base.origin, this.options.timeoutMs / 1000, sent);
    return new NetworkError(said.message, 'timeout', sent && !op.idempotent, said.hint);
  }

  /** `url`: where the request went (the base URL's origin: redirects never leave it). */
  private networkError(op: Operation, url: URL, error: unknown, answered: boolean): NetworkError {
    const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code ?? '';
    const proxy = this.proxyFailure(url, code, e.message ?? '');
    if (proxy) return proxy;
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return this.timeout(op);
    const tls = tlsKind(code, e.message ?? '');
    if (tls) {
      const said = this.describe.tls(tls, url.host, code);
      return new NetworkError(said.message, 'tls', false, said.hint, ExitCode.FAILURE);
    }
    const failure = code === 'ECONNREFUSED' ? 'refused' : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'dns' : code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect-timeout' : 'reset';
    const said = this.describe.network(callFacts(op), failure, { host: url.host, hostname: url.hostname, code });
    return new NetworkError(said.message, failure, answered || failure === 'reset', said.hint);
  }

  /**
   * The failure of the proxy a request to `url` goes through, when it is one: the proxy refused
   * the connection or cannot be reached (through a proxy, every connection this process opens is
   * to the proxy), or it answered CONNECT with another status than 200. undici says so in words
   * only: "Proxy response (407) !== 200 when HTTP Tunneling" (ProxyAgent, an https:// URL), and
   * "Proxy Authentication Required (407)" for a plain http:// request the proxy forwards.
   */
  private proxyFailure(url: URL, code: string, message: string): ProxyError | undefined {
    const via = proxyFor(url, this.options.env);
    if (!via) return undefined;
    const proxy = { shown: proxyShown(via.proxy), from: via.from, host: url.host };
    const status = Number(/^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/.exec(message)?.[1] ?? (/^Proxy Authentication Required \(407\)$/.test(message) ? 407 : 0));
    if (status === 407 || status === 401) {
      // 407 is the proxy's "who are you?"; some proxies (tinyproxy) answer wrong credentials with 401.
      let credentials = false;
      try {
        credentials = new URL(via.proxy).username !== '';
      } catch {
        // not a URL: undici would not have got this far
      }
      const said = this.describe.proxyCredentials(proxy, status, credentials);
      return new ProxyError(said.message, status, said.hint ?? '', ExitCode.FAILURE);
    }
    if (status) {
      const said = this.describe.proxyRefused(proxy, status, process.getBuiltinModule('node:http').STATUS_CODES[status]);
      // A 5xx: the proxy could not reach the service, which waiting may fix.
      return new ProxyError(said.message, status, said.hint ?? '', status >= 500 ? ExitCode.UNAVAILABLE : ExitCode.FAILURE);
    }
    const cause = PROXY_UNREACHABLE[code];
    if (!cause) return undefined;
    const said = this.describe.proxyUnreachable(proxy, cause);
    return new ProxyError(said.message, null, said.hint ?? '', ExitCode.UNAVAILABLE);
  }

  private finish(op: Operation, raw: RawResponse, attempts: number): ApiResponse {
    const contentType = headerValue(raw.headers['content-type']) ?? '';
    const parsed = parseJson(raw.text);
    if (raw.status >= 200 && raw.status < 300) {
      if (raw.text.trim() === '') return { status: raw.status, body: undefined, requestId: raw.requestId, attempts };
      if (parsed === undefined) {
        const body = { contentType, text: this.withoutKey(raw.text) };
        const said = this.describe.badSuccess(callFacts(op), raw.status, body);
        throw Object.assign(new BadResponseError(said.message, said.hint), { notTheService: this.notTheService(op, raw, this.describe.got({ kind: 'body', body })) });
      }
      if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
        const said = this.describe.badSuccess(callFacts(op), raw.status, 'not-object');
        throw Object.assign(new BadResponseError(said.message, said.hint), { notTheService: this.notTheService(op, raw, this.describe.got({ kind: 'not-object' })) });
      }
      return { status: raw.status, body: parsed.value, requestId: raw.requestId, attempts };
    }
    const body = raw.text.trim() === '' ? undefined : parsed;
    if (raw.status === 404) {
      const reading = readNotFound(body);
      if (reading.kind === 'foreign') {
        const got = reading.reason === 'route' ? this.describe.got({ kind: 'route', code: this.withoutKey(reading.code ?? '') }) : this.foreignBody(raw, contentType, reading.reason);
        throw this.notTheService(op, raw, got);
      }
    }
    const error = this.apiError(op, raw, parsed?.value, contentType);
    const reading = readErrorAnswer(raw.status, body);
    if (reading.kind === 'foreign') error.notTheService = this.notTheService(op, raw, this.foreignBody(raw, contentType, reading.reason));
    throw error;
  }

  /** What came back instead of the service's answer, in words: "an HTML page titled …", "an empty body". */
  private foreignBody(raw: RawResponse, contentType: string, reason: 'not-json' | 'not-error-shape' | 'method'): string {
    if (raw.text.trim() === '') return this.describe.got({ kind: 'empty' });
    if (reason === 'not-error-shape') return this.describe.got({ kind: 'not-error-shape' });
    if (reason === 'method' && parseJson(raw.text) !== undefined) return this.describe.got({ kind: 'method' });
    return this.describe.got({ kind: 'body', body: { contentType, text: this.withoutKey(raw.text) } });
  }

  /**
   * An answer that is not the service's own (error-shape.ts): the base URL does not lead to the
   * service. Said in the same words by every command; `login` adds that nothing was saved.
   */
  private notTheService(op: Operation, raw: RawResponse, got: string): NotTheServiceError {
    const said = this.describe.notTheService({ method: op.method, origin: this.base.origin, path: raw.path, status: raw.status, got, requestId: raw.requestId ? this.withoutKey(raw.requestId) : null });
    return new NotTheServiceError(said.message, raw.status, got, said.hint);
  }

  private apiError(op: Operation, raw: RawResponse, body: unknown, contentType: string): ApiError {
    const shape = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    // What the server said, with the key taken out of it (a server may echo it back) before it is cut short or shown.
    const fromServer = (text: string) => safe(this.withoutKey(text));
    const errorType = typeof shape.errorType === 'string' ? fromServer(shape.errorType) : null;
    const errorCodes = Array.isArray(shape.errorCodes) ? shape.errorCodes.filter((c): c is string => typeof c === 'string').map(fromServer) : [];
    const requestId = typeof shape.requestId === 'string' ? fromServer(shape.requestId) : raw.requestId ? fromServer(raw.requestId) : null;
    const notJson = body === undefined && raw.text.trim() !== '' ? { contentType, text: this.withoutKey(raw.text) } : undefined;
    const said = this.describe.answer({ call: callFacts(op), status: raw.status, errorType, errorCodes, requestId, body: notJson });
    // The server's parts were redacted above; fraudctl's own words never hold the key, and are left whole.
    return new ApiError(said.message, raw.status, errorType, errorCodes, requestId, said.hint);
  }
}

/** Carries an answer whose Retry-After is past the deadline out of call()'s retry loop, unretried. */
class WaitTooLong extends Error {
  constructor(readonly answer: Error) {
    super(answer.message);
  }
}

interface RawResponse {
  status: number;
  /** The path (and query) the answer came from, after any redirect. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  requestId: string | null;
}

/**
 * A TLS failure by kind: the certificate's issuer is not trusted, it has expired (or is not
 * valid yet), it was issued for another name, or the server does not speak TLS at all. Exit 1,
 * not 6: waiting does not fix a certificate or a scheme.
 */
function tlsKind(code: string, message: string): TlsKind | undefined {
  const untrusted = ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE'];
  if (untrusted.includes(code)) return 'untrusted';
  if (code === 'CERT_HAS_EXPIRED') return 'expired';
  if (code === 'CERT_NOT_YET_VALID') return 'not-yet-valid';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') return 'other-name';
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|EPROTO/i.test(code) || /certificate|tls|ssl/i.test(message)) return 'no-tls';
  return undefined;
}

/** The causes of a failed connection to a proxy, by error code. */
const PROXY_UNREACHABLE: Record<string, ProxyUnreachable | undefined> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'no-route',
  ENETUNREACH: 'no-route',
};

function parseUrl(value: string, base: URL): URL | undefined {
  try {
    return new URL(value, base);
  } catch {
    return undefined;
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function pickHeaders(headers: RawResponse['headers']): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of ['content-type', 'content-length', 'location', 'retry-after', 'x-request-id']) {
    const v = headerValue(headers[name]);
    if (v !== null) shown[name] = safe(v);
  }
  return shown;
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw Object.assign(new Error('answer too large'), { code: 'FRAUDCTL_BODY_TOO_LARGE' });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

