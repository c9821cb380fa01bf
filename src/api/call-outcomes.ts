import { terminalSafe, truncate } from '../render/terminal-text.js';
import { ExitCode } from '../errors/cli-error.js';
import { ApiError, BadResponseError, NetworkError, NotTheServiceError, ProxyError } from './api-error.js';
import type { CallFacts, FailureDescriber, Purpose, ProxyUnreachable, TlsKind } from './failure-facts.js';
import { readErrorAnswer, readNotFound } from './error-shape.js';
import { proxyFor, proxyShown } from './proxy.js';
import { redactKeyIn } from '../render/redact.js';

/*
 * An answer, or a failure to get one, → the body, or the typed error carrying its facts (worded
 * by the describer the session gives: src/failures/failure-messages.ts). What counts as the
 * service's own answer is error-shape.ts's; everything from the server has the key taken out.
 */

const safe = (s: string) => terminalSafe(truncate(s, 300));

export interface ApiResponse {
  status: number;
  /** The parsed JSON body; undefined when there was none (e.g. 204). */
  body: unknown;
  requestId: string | null;
  /** Attempts the call took (1 when the first one was answered). */
  attempts: number;
}

export interface Operation {
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
  /** Sent once, never retried: a read whose failure only means "not learned" (a batch's base currency). */
  once?: boolean;
}

export interface RawResponse {
  status: number;
  /** The path (and query) the answer came from, after any redirect. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  requestId: string | null;
}

export const callFacts = (op: Operation): CallFacts => ({
  method: op.method,
  eventId: op.eventId,
  purpose: op.purpose,
});

/** What a call came to: its body, or the error of facts its answer (or the lack of one) stands for. */
export class CallOutcomes {
  constructor(
    private readonly describe: FailureDescriber,
    private readonly base: URL,
    private readonly apiKey: string | null,
    private readonly timeoutMs: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** A server may echo the key back (a page quoting the request): no log or message may hold it (redact.ts: how). */
  withoutKey(text: string): string {
    return redactKeyIn(text, this.apiKey);
  }

  /** `sent`: the request went out (or may have), so a POST may have been stored. */
  timeout(op: Operation, sent = true): NetworkError {
    const said = this.describe.timeout(callFacts(op), this.base.origin, this.timeoutMs / 1000, sent);
    return new NetworkError(said.message, 'timeout', sent && !op.idempotent, said.hint);
  }

  /** `url`: where the request went (the base URL's origin: redirects never leave it). */
  networkError(op: Operation, url: URL, error: unknown, answered: boolean): NetworkError {
    const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code ?? '';
    const proxy = this.proxyFailure(url, code, e.message ?? '');
    if (proxy) return proxy;
    if (
      e.name === 'TimeoutError' ||
      e.name === 'AbortError' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT'
    )
      return this.timeout(op);
    const tls = tlsKind(code, e.message ?? '');
    if (tls) {
      const said = this.describe.tls(tls, url.host, code);
      return new NetworkError(said.message, 'tls', false, said.hint);
    }
    const failure =
      code === 'ECONNREFUSED'
        ? 'refused'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? 'dns'
          : code === 'UND_ERR_CONNECT_TIMEOUT'
            ? 'connect-timeout'
            : 'reset';
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
  proxyFailure(url: URL, code: string, message: string): ProxyError | undefined {
    const via = proxyFor(url, this.env);
    if (!via) return undefined;
    const proxy = { shown: proxyShown(via.proxy), from: via.from, host: url.host };
    const status = Number(
      /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/.exec(message)?.[1] ??
        (/^Proxy Authentication Required \(407\)$/.test(message) ? 407 : 0),
    );
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
      const said = this.describe.proxyRefused(
        proxy,
        status,
        process.getBuiltinModule('node:http').STATUS_CODES[status],
      );
      // A 5xx: the proxy could not reach the service, which waiting may fix.
      return new ProxyError(
        said.message,
        status,
        said.hint ?? '',
        status >= 500 ? ExitCode.UNAVAILABLE : ExitCode.FAILURE,
      );
    }
    const cause = PROXY_UNREACHABLE[code];
    if (!cause) return undefined;
    const said = this.describe.proxyUnreachable(proxy, cause);
    return new ProxyError(said.message, null, said.hint ?? '', ExitCode.UNAVAILABLE);
  }

  finish(op: Operation, raw: RawResponse, attempts: number): ApiResponse {
    const contentType = headerValue(raw.headers['content-type']) ?? '';
    const parsed = parseJson(raw.text);
    if (raw.status >= 200 && raw.status < 300) {
      if (raw.text.trim() === '') return { status: raw.status, body: undefined, requestId: raw.requestId, attempts };
      if (parsed === undefined) {
        const body = { contentType, text: this.withoutKey(raw.text) };
        const said = this.describe.badSuccess(callFacts(op), raw.status, body);
        throw Object.assign(new BadResponseError(said.message, said.hint), {
          notTheService: this.notTheService(op, raw, this.describe.got({ kind: 'body', body })),
        });
      }
      if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
        const said = this.describe.badSuccess(callFacts(op), raw.status, 'not-object');
        throw Object.assign(new BadResponseError(said.message, said.hint), {
          notTheService: this.notTheService(op, raw, this.describe.got({ kind: 'not-object' })),
        });
      }
      return { status: raw.status, body: parsed.value, requestId: raw.requestId, attempts };
    }
    const body = raw.text.trim() === '' ? undefined : parsed;
    if (raw.status === 404) {
      const reading = readNotFound(body);
      if (reading.kind === 'foreign') {
        const got =
          reading.reason === 'route'
            ? this.describe.got({ kind: 'route', code: this.withoutKey(reading.code ?? '') })
            : this.foreignBody(raw, contentType, reading.reason);
        throw this.notTheService(op, raw, got);
      }
    }
    const error = this.apiError(op, raw, parsed?.value, contentType);
    const reading = readErrorAnswer(raw.status, body);
    if (reading.kind === 'foreign')
      error.notTheService = this.notTheService(op, raw, this.foreignBody(raw, contentType, reading.reason));
    throw error;
  }

  /** What came back instead of the service's answer, in words: "an HTML page titled …", "an empty body". */
  foreignBody(raw: RawResponse, contentType: string, reason: 'not-json' | 'not-error-shape' | 'method'): string {
    if (raw.text.trim() === '') return this.describe.got({ kind: 'empty' });
    if (reason === 'not-error-shape') return this.describe.got({ kind: 'not-error-shape' });
    if (reason === 'method' && parseJson(raw.text) !== undefined) return this.describe.got({ kind: 'method' });
    return this.describe.got({ kind: 'body', body: { contentType, text: this.withoutKey(raw.text) } });
  }

  /**
   * An answer that is not the service's own (error-shape.ts): the base URL does not lead to the
   * service. Said in the same words by every command; `login` adds that nothing was saved.
   */
  notTheService(op: Operation, raw: RawResponse, got: string): NotTheServiceError {
    const said = this.describe.notTheService({
      method: op.method,
      origin: this.base.origin,
      path: raw.path,
      status: raw.status,
      got,
      requestId: raw.requestId ? this.withoutKey(raw.requestId) : null,
    });
    return new NotTheServiceError(said.message, raw.status, got, said.hint);
  }

  apiError(op: Operation, raw: RawResponse, body: unknown, contentType: string): ApiError {
    const shape =
      typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    // What the server said, with the key taken out of it (a server may echo it back) before it is cut short or shown.
    const fromServer = (text: string) => safe(this.withoutKey(text));
    const errorType = typeof shape.errorType === 'string' ? fromServer(shape.errorType) : null;
    const errorCodes = Array.isArray(shape.errorCodes)
      ? shape.errorCodes.filter((c): c is string => typeof c === 'string').map(fromServer)
      : [];
    const requestId =
      typeof shape.requestId === 'string'
        ? fromServer(shape.requestId)
        : raw.requestId
          ? fromServer(raw.requestId)
          : null;
    const notJson =
      body === undefined && raw.text.trim() !== '' ? { contentType, text: this.withoutKey(raw.text) } : undefined;
    const said = this.describe.answer({
      call: callFacts(op),
      status: raw.status,
      errorType,
      errorCodes,
      requestId,
      body: notJson,
    });
    // The server's parts were redacted above; fraudctl's own words never hold the key, and are left whole.
    return new ApiError(said.message, raw.status, errorType, errorCodes, requestId, said.hint);
  }
}

/**
 * A TLS failure by kind: the certificate's issuer is not trusted, it has expired (or is not
 * valid yet), it was issued for another name, or the server does not speak TLS at all. Exit 1,
 * not 6: waiting does not fix a certificate or a scheme.
 */
function tlsKind(code: string, message: string): TlsKind | undefined {
  const untrusted = [
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'CERT_UNTRUSTED',
    'CERT_SIGNATURE_FAILURE',
  ];
  if (untrusted.includes(code)) return 'untrusted';
  if (code === 'CERT_HAS_EXPIRED') return 'expired';
  if (code === 'CERT_NOT_YET_VALID') return 'not-yet-valid';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') return 'other-name';
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|EPROTO/i.test(code) || /certificate|tls|ssl/i.test(message))
    return 'no-tls';
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

export function headerValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
