import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { Agent, loadEnvHttpProxyAgent } from './undici-parts.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import { ApiError, BadResponseError, NetworkError } from './api-error.js';
import { UsageError } from '../errors/cli-error.js';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  GATEWAY_STATUSES,
  NOT_RECEIVED_STATUSES,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  type RetryPolicy,
} from './retry-policy.js';
import type { RetryKind } from './retry-budget.js';
import { redactHeaders } from './debug-log.js';
import { canBeInPath, eventPath } from '../contract/paths.js';
import { checkTransport } from './transport.js';
import { proxySettings } from './proxy.js';
import type { FailureDescriber } from './failure-facts.js';
import type { RequestControl } from './request-control.js';
import { requestHeaders } from './request-preview.js';
import {
  CallOutcomes,
  callFacts,
  headerValue,
  type ApiResponse,
  type Operation,
  type RawResponse,
} from './call-outcomes.js';
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

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_REDIRECTS = 3;
const safe = (s: string) => terminalSafe(truncate(s, 300));

export { eventPath } from '../contract/paths.js';
export type { RequestControl } from './request-control.js';
export type { ApiResponse } from './call-outcomes.js';
export { previewRequest, type RequestPreview } from './request-preview.js';

/**
 * eventPath, refusing an id that is not well-formed Unicode (a lone surrogate, possible in a
 * JSON string): it has no UTF-8 form to percent-encode, so it cannot name a resource.
 */
function idPath(eventId: string, suffix = ''): string {
  if (!canBeInPath(eventId)) {
    throw new UsageError(
      `the event id ${terminalSafe(JSON.stringify(eventId))} is not valid Unicode text (it holds half of a surrogate pair): it cannot be put in a URL`,
    );
  }
  return eventPath(eventId, suffix);
}

export class ApiClient {
  private readonly base: URL;
  private dispatcherValue?: Promise<Dispatcher>;
  private readonly policy: RetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly outcomes: CallOutcomes;

  constructor(private readonly options: ApiClientOptions) {
    checkTransport(options.baseUrl, options.insecureHttp === true, options.describe);
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.outcomes = new CallOutcomes(options.describe, this.base, options.apiKey, options.timeoutMs, options.env);
    // A batch's abort (second Ctrl-C) ends a wait at once: the next attempt then fails as aborted,
    // instead of the process lingering for a Retry-After of up to 30 s.
    this.sleep =
      options.sleep ??
      ((ms) => sleepFor(ms, undefined, options.signal ? { signal: options.signal } : {}).catch(() => {}));
    // The batch's abort ends every request in flight by destroying the connection pool: one
    // listener for the client's life. Not a listener per attempt, nor a set of the attempts in
    // flight: anything long-lived that points at each attempt (thousands a second) makes V8
    // promote the attempts' objects and grow its young generation (figures:
    // docs/decisions/abort-listener-per-client.md).
    const batchSignal = options.signal;
    batchSignal?.addEventListener(
      'abort',
      () => void this.dispatcherValue?.then((d) => d.destroy(batchSignal.reason)).catch(() => {}),
      { once: true },
    );
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
    return this.call({
      method: 'POST',
      path: '/event',
      body: payload,
      purpose: { action: 'submit' },
      idempotent: false,
      ...(typeof id === 'string' ? { eventId: id } : {}),
    });
  }

  /** POST /event with a body that is already JSON text (a line of a batch), sent as it is. */
  submitEventText(text: string, eventId: string | undefined): Promise<ApiResponse> {
    return this.call({
      method: 'POST',
      path: '/event',
      rawBody: text,
      purpose: { action: 'submit' },
      idempotent: false,
      ...(eventId !== undefined ? { eventId } : {}),
    });
  }

  /** GET /event/{id}; `once`: one attempt, no retry, whatever the failure (a read that may fail harmlessly). */
  getEvent(eventId: string, options: { once?: boolean } = {}): Promise<ApiResponse> {
    return this.callOn({
      method: 'GET',
      path: '',
      eventId,
      purpose: { action: 'get', eventId },
      idempotent: true,
      ...(options.once === true ? { once: true } : {}),
    });
  }

  getRiskAssessment(eventId: string): Promise<ApiResponse> {
    return this.callOn({
      method: 'GET',
      path: '/risk-assessment',
      eventId,
      purpose: { action: 'risk-assessment', eventId },
      idempotent: true,
    });
  }

  /**
   * PATCH /event/{id}/state. `resendWhenUnsure: false` (a bulk change): an attempt the service may
   * have acted on (a timeout or a dropped connection after sending) is not sent again by the
   * client; the caller reads the event to learn what happened.
   */
  changeState(
    eventId: string,
    change: { state?: string; comments?: string },
    options: { resendWhenUnsure?: boolean } = {},
  ): Promise<ApiResponse> {
    return this.callOn({
      method: 'PATCH',
      path: '/state',
      body: change,
      eventId,
      purpose: { action: 'change-state', eventId },
      idempotent: options.resendWhenUnsure !== false,
    });
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
  async probe(path: string): Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    text: string;
    requestId: string | null;
    elapsedMs: number;
  }> {
    const op: Operation = { method: 'GET', path, purpose: { action: 'probe', path }, idempotent: true };
    const started = performance.now();
    const raw = await this.send(
      op,
      `${this.base.pathname}${path.replace(/^\//, '')}`,
      null,
      started + this.options.timeoutMs,
    );
    return { ...raw, elapsedMs: performance.now() - started };
  }

  close(): Promise<void> {
    // After the batch's abort the pool is destroyed already: closing it would fail.
    return this.dispatcherValue
      ? this.dispatcherValue.then((d) => (this.options.signal?.aborted ? d.destroy() : d.close()))
      : Promise.resolve();
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
      if (error instanceof ApiError || error instanceof NetworkError || error instanceof BadResponseError)
        error.operation = { method: op.method, eventId: op.eventId ?? null };
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
    const maxRetries = op.once === true ? 0 : this.policy.maxRetries;
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
        const notReceived = NOT_RECEIVED_STATUSES.has(response.status);
        const retryable = throttled || notReceived || (op.method === 'GET' && GATEWAY_STATUSES.has(response.status));
        if (!retryable || attempt >= maxRetries) {
          if (response.status < 500 && !throttled && !notReceived) control?.onSettled(retryCost);
          return this.outcomes.finish(op, response, attempt + 1);
        }
        standing = this.answerError(op, response, attempt + 1);
        if (throttled) {
          retryAfterMs = parseRetryAfter(response.headers['retry-after']);
          control?.onThrottle(retryAfterMs);
          // The service said when to come back: not before (a retry sooner would be refused
          // again, or be a second POST it asked not to get), and a wait past the deadline is
          // not begun: the answer stands at once, saying so.
          if (retryAfterMs !== undefined && performance.now() + retryAfterMs >= deadline)
            throw this.waitTooLong(standing, retryAfterMs);
        }
        this.options.debug?.(`retrying after ${response.status}`);
      } catch (error) {
        if (error instanceof ApiError || error instanceof NetworkError || error instanceof BadResponseError)
          error.attempts = attempt + 1;
        if (error instanceof WaitTooLong) throw error.answer;
        // A timeout used the deadline up; a TLS failure (a certificate, a scheme) would only come again.
        // A proxy's failure is not the service's blip: every attempt would meet it, so it is said at once.
        const safeToRepeat =
          error instanceof NetworkError &&
          !['timeout', 'other', 'tls', 'proxy'].includes(error.failure) &&
          (op.idempotent || !error.maybeProcessed);
        if (!safeToRepeat || attempt >= maxRetries || this.options.signal?.aborted) throw error;
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
      this.outcomes.finish(op, raw, attempts);
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
    const said = this.describe.waitTooLong(
      { message: answer.message, hint: answer.hint },
      Math.ceil(retryAfterMs / 1000),
      this.options.timeoutMs / 1000,
    );
    const error = new ApiError(
      said.message,
      answer.status,
      answer.errorType,
      answer.errorCodes,
      answer.requestId,
      said.hint,
    );
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
    if (target.origin !== this.base.origin) throw refuse({ origin: this.outcomes.withoutKey(target.origin) });
    if (op.method !== 'GET' || hop >= MAX_REDIRECTS) throw refuse({ path: this.outcomes.withoutKey(target.pathname) });
    return target;
  }

  private async send(op: Operation, path: string, body: string | null, deadline: number): Promise<RawResponse> {
    const url = this.base;
    const remaining = deadline - performance.now();
    // Nothing of this attempt was sent, and earlier ones were retried only when nothing was processed.
    if (remaining <= 0) throw this.outcomes.timeout(op, false);
    const headers = this.headers(body !== null);
    const started = performance.now();
    // The body is the user's input: it may hold escape sequences or bidi controls, shown inert like a response's.
    this.options.debug?.(
      `${sym.arrow} ${op.method} ${terminalSafe(`${url.origin}${path}`)} ${JSON.stringify(redactHeaders(headers))}${body ? `\n  ${terminalSafe(truncate(this.outcomes.withoutKey(body), 2000))}` : ''}`,
    );
    // One controller per attempt, its timer cleared at the end: AbortSignal.timeout would keep
    // every request's signal and timer alive for the whole timeout, and AbortSignal.any ties
    // each one to the batch's long-lived signal — hundreds of thousands of them in a big batch.
    // The batch's abort reaches requests already sent by destroying the pool (see the constructor).
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException('the deadline passed', 'TimeoutError')),
      remaining,
    );
    const batchSignal = this.options.signal;
    if (batchSignal?.aborted) controller.abort(batchSignal.reason);
    const signal = controller.signal;
    let sent = false;
    try {
      const dispatcher = await this.dispatcher();
      const res = await dispatcher.request({
        origin: url.origin,
        path,
        method: op.method,
        headers,
        body,
        signal,
        headersTimeout: remaining,
        bodyTimeout: remaining,
      });
      sent = true;
      const text = await readLimited(res.body);
      const requestId = headerValue(res.headers['x-request-id']);
      this.options.debug?.(
        `${sym.left} ${res.statusCode} in ${Math.round(performance.now() - started)} ms ${this.outcomes.withoutKey(JSON.stringify(pickHeaders(res.headers)))}\n  ${terminalSafe(truncate(this.outcomes.withoutKey(text), 2000))}`,
      );
      return { status: res.statusCode, headers: res.headers, text, requestId, path };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'FRAUDCTL_BODY_TOO_LARGE' || code === 'UND_ERR_RESPONSE_EXCEEDED_MAX_SIZE') {
        // An answer the interface never promises: a bad answer (exit 1), not "try again later".
        const said = this.describe.tooLarge(callFacts(op), url.host, MAX_BODY_BYTES / 1024 / 1024);
        throw new BadResponseError(said.message, said.hint);
      }
      throw this.outcomes.networkError(op, url, error, sent);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Carries an answer whose Retry-After is past the deadline out of call()'s retry loop, unretried. */
class WaitTooLong extends Error {
  constructor(readonly answer: Error) {
    super(answer.message);
  }
}

function parseUrl(value: string, base: URL): URL | undefined {
  try {
    return new URL(value, base);
  } catch {
    return undefined;
  }
}

function pickHeaders(headers: RawResponse['headers']): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of ['content-type', 'content-length', 'location', 'retry-after', 'x-request-id']) {
    const v = headerValue(headers[name]);
    if (v !== null) shown[name] = safe(v);
  }
  return shown;
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
