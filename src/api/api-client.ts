import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { Agent, loadEnvHttpProxyAgent } from './undici-parts.js';
import { VERSION } from '../version.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import { ApiError, BadResponseError, NetworkError, NotTheServiceError, ProxyError, type NetworkFailure } from './api-error.js';
import { ExitCode, UsageError } from '../errors/cli-error.js';
import { readErrorAnswer, readNotFound } from './error-shape.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, GATEWAY_STATUSES, parseRetryAfter, RETRYABLE_STATUSES, type RetryPolicy } from './retry-policy.js';
import type { RetryKind } from './retry-budget.js';
import { redactHeaders } from './debug-log.js';
import { redactKeyIn } from '../profiles/redact.js';
import { canBeInPath, eventPath } from '../contract/paths.js';
import { checkTransport, hostNameHint } from './transport.js';
import { proxyFor, proxySettings, proxyShown } from './proxy.js';
import type { SettingHints } from '../profiles/setting-hints.js';
import { sym } from '../render/symbols.js';

/*
 * The one place that talks HTTP to the service (undici). It owns the API key header, the
 * deadline (one per call, covering retries and the whole body read), retries, redirects,
 * debug logging with the key redacted, and the mapping of every failure to a typed error
 * whose message is safe to print.
 */

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string | null;
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  /** For HTTP(S)_PROXY / NO_PROXY. */
  env: NodeJS.ProcessEnv;
  /** The profile in use, for hints such as "run fraudctl login --profile P". */
  profile?: string;
  /** What to tell the user to change when the key is refused or the URL is wrong, by where each came from. */
  hints?: SettingHints;
  /** Receives request/response log lines (--debug); they never hold the key. */
  debug?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Keep-alive connections per origin (batch: its concurrency). Default: undici's (unbounded). */
  connections?: number;
  /** Aborts every request in flight (a batch's second Ctrl-C). */
  signal?: AbortSignal;
  /** A batch's say over every request: pacing, a shared retry budget, throttling. */
  control?: RequestControl;
  /** Allows http:// to a host that is not this machine (--insecure-http); otherwise the constructor refuses it. */
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
  /** What the user asked for, for messages: "screening the event", "fetching event x". */
  what: string;
  /** GET and PATCH may be retried on any failure that is safe; POST only when nothing was sent. */
  idempotent: boolean;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_REDIRECTS = 3;
const safe = (s: string) => terminalSafe(truncate(s, 300));

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

/** The request a call would send, key redacted, without sending it (--dry-run). `null` base: the embedded sandbox. */
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
    checkTransport(options.baseUrl, options.insecureHttp === true, options.profile);
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    // A batch's abort (second Ctrl-C) ends a wait at once: the next attempt then fails as aborted,
    // instead of the process lingering for a Retry-After of up to 30 s.
    this.sleep = options.sleep ?? ((ms) => sleepFor(ms, undefined, options.signal ? { signal: options.signal } : {}).catch(() => {}));
    // The batch's abort ends every request in flight by destroying the connection pool: one
    // listener for the client's life. Not a listener per attempt, nor a set of the attempts in
    // flight: anything long-lived that points at each attempt (thousands a second) makes V8
    // promote the attempts' objects and grow its young generation to the maximum, 30 MB more RSS
    // on Node 26 for a bulk change (npm run bench:bulk).
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
    return this.call({ method: 'POST', path: '/event', body: payload, what: 'screening the event', idempotent: false, ...(typeof id === 'string' ? { eventId: id } : {}) });
  }

  /** POST /event with a body that is already JSON text (a line of a batch), sent as it is. */
  submitEventText(text: string, eventId: string | undefined): Promise<ApiResponse> {
    return this.call({ method: 'POST', path: '/event', rawBody: text, what: 'screening the event', idempotent: false, ...(eventId !== undefined ? { eventId } : {}) });
  }

  getEvent(eventId: string): Promise<ApiResponse> {
    return this.callOn({ method: 'GET', path: '', eventId, what: `fetching event "${safe(eventId)}"`, idempotent: true });
  }

  getRiskAssessment(eventId: string): Promise<ApiResponse> {
    return this.callOn({ method: 'GET', path: '/risk-assessment', eventId, what: `fetching the risk assessment of "${safe(eventId)}"`, idempotent: true });
  }

  /**
   * PATCH /event/{id}/state. `resendWhenUnsure: false` (a bulk change): an attempt the service may
   * have acted on (a timeout or a dropped connection after sending) is not sent again by the
   * client; the caller reads the event to learn what happened.
   */
  changeState(eventId: string, change: { state?: string; comments?: string }, options: { resendWhenUnsure?: boolean } = {}): Promise<ApiResponse> {
    return this.callOn({ method: 'PATCH', path: '/state', body: change, eventId, what: `updating the state of "${safe(eventId)}"`, idempotent: options.resendWhenUnsure !== false });
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
   * service's (fraudctl doctor looks at it raw): status, headers, body text and round-trip time.
   * A failure to get any answer is the usual NetworkError, with its message and hint.
   */
  async probe(path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; requestId: string | null; elapsedMs: number }> {
    const op: Operation = { method: 'GET', path, what: `fetching ${safe(path)}`, idempotent: true };
    const started = performance.now();
    const raw = await this.send(op, `${this.base.pathname}${path.replace(/^\//, '')}`, null, started + this.options.timeoutMs);
    return { ...raw, elapsedMs: performance.now() - started };
  }

  close(): Promise<void> {
    // After the batch's abort the pool is destroyed already: closing it would fail.
    return this.dispatcherValue ? this.dispatcherValue.then((d) => (this.options.signal?.aborted ? d.destroy() : d.close())) : Promise.resolve();
  }

  private headers(withBody: boolean): Record<string, string> {
    return requestHeaders(this.options.apiKey, withBody);
  }

  private async call(op: Operation): Promise<ApiResponse> {
    // Deadlines and waits are on the monotonic clock (performance.now(), as setTimeout is): a
    // wall clock stepped back would stretch --timeout by the step, one stepped forward would end
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
        // deadline moves by the wait (--rate 1 with 10 lines in flight is not a timeout of the tenth).
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
    return new BadResponseError(`the service answered ${raw.status} while ${op.what}`);
  }

  /**
   * A 429/503 whose Retry-After reaches past the deadline: the answer stands, saying how long the
   * service asked to wait and that --timeout does not allow it (never "no answer": one came).
   */
  private waitTooLong(answer: Error, retryAfterMs: number): WaitTooLong {
    if (!(answer instanceof ApiError)) return new WaitTooLong(answer);
    const seconds = Math.ceil(retryAfterMs / 1000);
    const timeout = this.options.timeoutMs / 1000;
    const error = new ApiError(
      `${answer.message}, and asked to wait ${seconds} s before another try: longer than --timeout (${timeout} s) allows`,
      answer.status,
      answer.errorType,
      answer.errorCodes,
      answer.requestId,
      `try again in ${seconds} s, or allow for the wait with --timeout ${seconds + Math.ceil(timeout)}`,
    );
    error.attempts = answer.attempts;
    if (answer.notTheService) error.notTheService = answer.notTheService;
    return new WaitTooLong(error);
  }

  /** The batch's shared retry budget refused a retry: the last failure stands, and says why. */
  private budgetSpent(op: Operation, attempts: number): NetworkError {
    const error = new NetworkError(`gave up ${op.what}: the batch's retry budget is spent (the service kept failing)`, 'budget', false, 'run the batch again later with --resume');
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
    if (!target) throw new BadResponseError(`the service answered ${raw.status} (a redirect) without a usable Location while ${op.what}`);
    if (target.origin !== this.base.origin) {
      throw new BadResponseError(
        `the service redirected to another origin (${safe(this.withoutKey(target.origin))}) while ${op.what}: not followed, and the API key was not sent there`,
        'check --base-url: it should name the service itself',
      );
    }
    if (op.method !== 'GET' || hop >= MAX_REDIRECTS) {
      throw new BadResponseError(`the service answered ${raw.status} (a redirect to ${safe(this.withoutKey(target.pathname))}) while ${op.what}: not followed`, 'check --base-url');
    }
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
        throw new BadResponseError(
          `the answer from ${safe(url.host)} while ${op.what} is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB: not read`,
          op.method === 'POST' && op.eventId ? `the event may have been stored: check with fraudctl show ${safe(op.eventId)}` : 'check --base-url: it should name the fraud-screening service',
        );
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
    return new NetworkError(
      `no complete answer from ${this.base.origin} within ${this.options.timeoutMs / 1000} s while ${op.what}`,
      'timeout',
      sent && !op.idempotent,
      sent && op.method === 'POST' && op.eventId ? `the event may have been stored: check with fraudctl show ${safe(op.eventId)}, or allow more time with --timeout` : 'allow more time with --timeout SECONDS',
    );
  }

  /** Where the service URL is changed, for hints: "check the host name in …". */
  private urlHint(): string {
    return this.options.hints?.url ?? '--base-url or the profile (fraudctl config list)';
  }

  /** `url`: where the request went (the base URL's origin: redirects never leave it). */
  private networkError(op: Operation, url: URL, error: unknown, answered: boolean): NetworkError {
    const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code ?? '';
    const proxy = this.proxyFailure(url, code, e.message ?? '');
    if (proxy) return proxy;
    const host = safe(url.host);
    const kind = ((): [NetworkFailure, string, boolean] => {
      if (e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return ['timeout', '', true];
      if (code === 'ECONNREFUSED') return ['refused', `cannot connect to ${host}: connection refused`, false];
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return ['dns', `cannot find host ${safe(url.hostname)} (DNS lookup failed)`, false];
      if (code === 'UND_ERR_CONNECT_TIMEOUT') return ['connect-timeout', `cannot connect to ${host}: no answer to the connection attempt`, false];
      return ['reset', `the connection to ${host} dropped while ${op.what}${code ? ` (${safe(code)})` : ''}`, true];
    })();
    const tls = kind[0] === 'timeout' ? undefined : tlsFailure(code, e.message ?? '', host);
    if (tls) return new NetworkError(tls.message, 'tls', false, tls.hint, ExitCode.FAILURE);
    const [failure, message, maybeSent] = kind;
    if (failure === 'timeout') return this.timeout(op);
    const processed = answered || maybeSent;
    const hint =
      failure === 'dns'
        ? hostNameHint(this.urlHint())
        : failure === 'refused' || failure === 'connect-timeout'
        ? `is the service running at that address? check ${this.urlHint()}`
        : op.method === 'POST' && op.eventId
            ? `the event may have been stored: check with fraudctl show ${safe(op.eventId)}`
            : undefined;
    return new NetworkError(message, failure, processed, hint);
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
    const proxy = `the proxy ${safe(proxyShown(via.proxy))} (${via.from})`;
    const status = Number(/^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/.exec(message)?.[1] ?? (/^Proxy Authentication Required \(407\)$/.test(message) ? 407 : 0));
    if (status === 407 || status === 401) {
      // 407 is the proxy's "who are you?"; some proxies (tinyproxy) answer wrong credentials with 401.
      let credentials = false;
      try {
        credentials = new URL(via.proxy).username !== '';
      } catch {
        // not a URL: undici would not have got this far
      }
      const answered = status === 407 ? '407 Proxy Authentication Required' : '401 Unauthorized';
      return new ProxyError(
        `${proxy} ${credentials ? 'did not accept the credentials given' : 'asks for credentials'} (${answered}); nothing was sent to ${safe(url.host)}`,
        status,
        credentials
          ? `check the user name and password in ${via.from} (http://user:password@host:port, with @ : / in them written as %40 %3A %2F)`
          : `put the credentials in ${via.from} as http://user:password@host:port`,
        ExitCode.FAILURE,
      );
    }
    if (status) {
      const phrase = process.getBuiltinModule('node:http').STATUS_CODES[status];
      const answered = `${status}${phrase ? ` ${phrase}` : ''}`;
      const reachable = status >= 500;
      return new ProxyError(
        `${proxy} refused to open a connection to ${safe(url.host)}: it answered ${answered}; nothing was sent to the service`,
        status,
        reachable
          ? `the proxy could not reach the service: check the host and port of ${this.urlHint()}, or try again later`
          : `the proxy does not let this machine reach ${safe(url.host)}: ask its administrators (or, for a service reached without a proxy, add its host to NO_PROXY)`,
        reachable ? ExitCode.UNAVAILABLE : ExitCode.FAILURE,
      );
    }
    const unreachable = `check the host and port in ${via.from}, and the network`;
    const failed: Record<string, [string, string]> = {
      ECONNREFUSED: ['connection refused', `is the proxy running? check the host and port in ${via.from}`],
      ENOTFOUND: ['its host name does not resolve (DNS lookup failed)', `check the host name in ${via.from}`],
      EAI_AGAIN: ['its host name does not resolve (DNS lookup failed)', `check the host name in ${via.from}`],
      UND_ERR_CONNECT_TIMEOUT: ['no answer to the connection attempt', unreachable],
      ETIMEDOUT: ['no answer to the connection attempt', unreachable],
      EHOSTUNREACH: ['no route to it', unreachable],
      ENETUNREACH: ['no route to it', unreachable],
    };
    const known = failed[code];
    if (known) return new ProxyError(`cannot connect to ${proxy}: ${known[0]}; nothing was sent to ${safe(url.host)}`, null, known[1], ExitCode.UNAVAILABLE);
    return undefined;
  }

  private finish(op: Operation, raw: RawResponse, attempts: number): ApiResponse {
    const contentType = headerValue(raw.headers['content-type']) ?? '';
    const parsed = parseJson(raw.text);
    if (raw.status >= 200 && raw.status < 300) {
      if (raw.text.trim() === '') return { status: raw.status, body: undefined, requestId: raw.requestId, attempts };
      if (parsed === undefined) {
        throw Object.assign(new BadResponseError(`the service answered ${raw.status} while ${op.what}, but the body is not JSON (${describeBody(contentType, this.withoutKey(raw.text))})`, 'a proxy or gateway may be in the way: check --base-url'), {
          notTheService: this.notTheService(op, raw, describeBody(contentType, this.withoutKey(raw.text))),
        });
      }
      if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
        throw Object.assign(new BadResponseError(`the service answered ${raw.status} while ${op.what}, but the body is not the JSON object expected`, 'check --base-url: it should name the fraud-screening service'), {
          notTheService: this.notTheService(op, raw, 'JSON that is not an object'),
        });
      }
      return { status: raw.status, body: parsed.value, requestId: raw.requestId, attempts };
    }
    const body = raw.text.trim() === '' ? undefined : parsed;
    if (raw.status === 404) {
      const reading = readNotFound(body);
      if (reading.kind === 'foreign') {
        const got = reading.reason === 'route' ? `the code ${safe(this.withoutKey(reading.code ?? ''))}, which names a route, not an event` : this.foreignBody(raw, contentType, reading.reason);
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
    if (raw.text.trim() === '') return 'an empty body';
    if (reason === 'not-error-shape') return 'JSON that is not the service\'s error shape';
    if (reason === 'method' && parseJson(raw.text) !== undefined) return 'JSON, to a method or route the service does not have';
    return describeBody(contentType, this.withoutKey(raw.text));
  }

  /**
   * An answer that is not the service's own (error-shape.ts): the base URL does not lead to the
   * service. Said in the same words by every command; `login` adds that nothing was saved.
   */
  private notTheService(op: Operation, raw: RawResponse, got: string): NotTheServiceError {
    const ref = raw.requestId ? `, request ${safe(this.withoutKey(raw.requestId))}` : '';
    const where = `${op.method} ${this.base.origin}${safe(raw.path)}`;
    const message = `${where} answered ${raw.status} with ${got}${ref}: that is not the fraud-screening service's answer, so this URL is not the service, or not its base path`;
    const hint = this.options.hints
      ? `check ${this.options.hints.url}: it should be the service's base address`
      : `check --base-url or the profile's URL (fraudctl config get base-url${this.options.profile && this.options.profile !== 'sandbox' ? ` --profile ${this.options.profile}` : ''}): it should be the service's base address`;
    return new NotTheServiceError(message, raw.status, got, hint);
  }

  private apiError(op: Operation, raw: RawResponse, body: unknown, contentType: string): ApiError {
    const shape = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    // What the server said, with the key taken out of it (a server may echo it back) before it is cut short or shown.
    const fromServer = (text: string) => safe(this.withoutKey(text));
    const errorType = typeof shape.errorType === 'string' ? fromServer(shape.errorType) : null;
    const errorCodes = Array.isArray(shape.errorCodes) ? shape.errorCodes.filter((c): c is string => typeof c === 'string').map(fromServer) : [];
    const requestId = typeof shape.requestId === 'string' ? fromServer(shape.requestId) : raw.requestId ? fromServer(raw.requestId) : null;
    const status = raw.status;
    const ref = requestId ? `, request ${requestId}` : '';
    const detail =
      body === undefined && raw.text.trim() !== ''
        ? `${status}, ${describeBody(contentType, this.withoutKey(raw.text))}${ref}`
        : `${status}${errorType ? ` ${errorType}` : ''}${errorCodes.length ? `: ${errorCodes.join(', ')}` : ''}${ref}`;
    const id = op.eventId ? `"${safe(op.eventId)}"` : '';
    const login = `run fraudctl login${this.options.profile && this.options.profile !== 'sandbox' ? ` --profile ${this.options.profile}` : ''}, or set FRAUDCTL_API_KEY`;
    const [message, hint] = ((): [string, string | undefined] => {
      switch (status) {
        case 401:
          return [`the service did not accept the API key (${detail})`, this.options.hints?.key ?? `check the key: ${login}`];
        case 403:
          return [`the merchant of this API key is blocked (${detail})`, 'ask the service operator to unblock the merchant'];
        case 404:
          // Only the service's own not-found gets here (finish() turned every other 404 away).
          if (op.method === 'POST') return [`the service answered 404 while ${op.what} (${detail})`, 'check --base-url: it should be the service\'s base address'];
          return [op.eventId ? `no event ${id} (${detail})` : `not found (${detail})`, op.eventId ? 'check the id: ids are case-sensitive' : 'check --base-url'];
        case 409:
          return [`${op.eventId ? `event ${id}` : 'the event'} already exists with a different payload (${detail})`, op.eventId ? `give the event a new id, or see the stored one with: fraudctl show ${safe(op.eventId)}` : undefined];
        case 422:
          return [`the service rejected the request while ${op.what} (${detail})`, errorCodes.some((c) => c.includes('STATE')) ? 'see the states and transitions in: fraudctl set-state --help' : 'fix the fields named above and try again'];
        case 400:
          return [`the service could not read the request while ${op.what} (${detail})`, undefined];
        case 413:
          return [`the request is too large for the service (${detail})`, undefined];
        case 415:
          return [`the service does not accept the request's content type (${detail})`, undefined];
        case 429:
          return [`the service is rate limiting this key (${detail})`, 'wait a little and try again'];
        case 502:
        case 503:
        case 504:
          return [`the service is unavailable while ${op.what} (${detail})`, op.method === 'POST' && status === 504 && op.eventId ? `the event may have been stored: check with fraudctl show ${safe(op.eventId)}` : 'try again later'];
        default:
          return [`the service answered ${detail} while ${op.what}`, undefined];
      }
    })();
    // The server's parts were redacted above; fraudctl's own words never hold the key, and are left whole.
    return new ApiError(message, status, errorType, errorCodes, requestId, hint);
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
 * A TLS failure as one line and a hint, by kind: the certificate's issuer is not trusted, it has
 * expired (or is not valid yet), it was issued for another name, or the server does not speak
 * TLS at all. Exit 1, not 6: waiting does not fix a certificate or a scheme.
 */
function tlsFailure(code: string, message: string, host: string): { message: string; hint: string } | undefined {
  const untrusted = ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE'];
  if (untrusted.includes(code)) {
    return {
      message: `the TLS certificate of ${host} is not signed by a certificate authority this machine trusts (${code}): nothing was sent`,
      hint: 'for a private CA, point NODE_EXTRA_CA_CERTS at its certificate (a PEM file); check the URL otherwise',
    };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return {
      message: `the TLS certificate of ${host} ${code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet'} (${code}): nothing was sent`,
      hint: 'the service\'s operator must renew the certificate; check this machine\'s clock too',
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    return {
      message: `the TLS certificate of ${host} is for another name (${code}): nothing was sent`,
      hint: 'use the host name the certificate was issued for in --base-url (e.g. not an IP address)',
    };
  }
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|EPROTO/i.test(code) || /certificate|tls|ssl/i.test(message)) {
    return {
      message: `no TLS connection to ${host} (${safe(code || 'handshake failed')}): nothing was sent`,
      hint: 'check the URL scheme and port: does that port speak https:// or http://?',
    };
  }
  return undefined;
}

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

/** "an HTML page", "text/plain: first words…" — for a body that is not the JSON expected. */
function describeBody(contentType: string, text: string): string {
  if (/html/i.test(contentType) || /^\s*<(!doctype|html)/i.test(text)) {
    const title = /<title[^>]*>([^<]{1,120})/i.exec(text)?.[1];
    return `an HTML page${title ? ` titled "${safe(title.trim())}"` : ''}`;
  }
  const words = text.trim().slice(0, 80);
  return `${contentType ? `${safe(contentType)}: ` : ''}"${safe(words)}${text.trim().length > 80 ? sym.ellipsis : ''}"`;
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

// node:crypto is taken when needed, not imported: every client command loads this file, and
// loading node:crypto costs a command about 10 ms (bench:startup).
export const newProbeId = () => `fraudctl-login-check-${process.getBuiltinModule('node:crypto').randomUUID()}`;
