import type {
  AnswerFacts,
  BodyFacts,
  CallFacts,
  FailureDescriber,
  ForeignAnswer,
  Said,
  TlsKind,
} from '../api/failure-facts.js';
import { terminalSafe, truncate } from '../render/terminal-text.js';
import { sym } from '../render/symbols.js';
import type { FailureWords } from './failure-words.js';
import { MAX_TIMEOUT_SECONDS } from '../profiles/value-rules.js';

/*
 * The sentences of the client's failures: facts (src/api/failure-facts.ts) → a message and a
 * hint, naming the commands, flags and settings of `words` (failure-words.ts). The session gives
 * the result to the client, which raises its errors with it. Everything from the service or the
 * network is cut short and made safe for a terminal here. Tested as a table
 * (test/failures/failure-messages.test.ts).
 */

const safe = (s: string) => terminalSafe(truncate(s, 300));

const DAY_SECONDS = 86_400;

/** What the user asked for: "screening the event", "fetching event "x"". */
export function doing(call: CallFacts): string {
  const p = call.purpose;
  switch (p.action) {
    case 'submit':
      return 'screening the event';
    case 'get':
      return `fetching event "${safe(p.eventId)}"`;
    case 'risk-assessment':
      return `fetching the risk assessment of "${safe(p.eventId)}"`;
    case 'change-state':
      return `updating the state of "${safe(p.eventId)}"`;
    case 'probe':
      return `fetching ${safe(p.path)}`;
  }
}

/** "an HTML page", "text/plain: first words…" — for a body that is not the JSON expected. */
export function describeBody({ contentType, text }: BodyFacts): string {
  if (/html/i.test(contentType) || /^\s*<(!doctype|html)/i.test(text)) {
    const title = /<title[^>]*>([^<]{1,120})/i.exec(text)?.[1];
    return `an HTML page${title ? ` titled "${safe(title.trim())}"` : ''}`;
  }
  const words = text.trim().slice(0, 80);
  return `${contentType ? `${safe(contentType)}: ` : ''}"${safe(words)}${text.trim().length > 80 ? sym.ellipsis : ''}"`;
}

const TLS: Record<Exclude<TlsKind, 'no-tls'>, (host: string, code: string, words: FailureWords) => Said> = {
  untrusted: (host, code) => ({
    message: `the TLS certificate of ${host} is not signed by a certificate authority this machine trusts (${code}): nothing was sent`,
    hint: 'for a private CA, point NODE_EXTRA_CA_CERTS at its certificate (a PEM file); check the URL otherwise',
  }),
  expired: (host, code) => ({
    message: `the TLS certificate of ${host} has expired (${code}): nothing was sent`,
    hint: "the service's operator must renew the certificate; check this machine's clock too",
  }),
  'not-yet-valid': (host, code) => ({
    message: `the TLS certificate of ${host} is not valid yet (${code}): nothing was sent`,
    hint: "the service's operator must renew the certificate; check this machine's clock too",
  }),
  'other-name': (host, code, words) => ({
    message: `the TLS certificate of ${host} is for another name (${code}): nothing was sent`,
    hint: `use the host name the certificate was issued for in ${words.urlOption} (e.g. not an IP address)`,
  }),
};

const PROXY_UNREACHABLE = {
  refused: 'connection refused',
  dns: 'its host name does not resolve (DNS lookup failed)',
  timeout: 'no answer to the connection attempt',
  'no-route': 'no route to it',
} as const;

export function failureMessages(words: FailureWords): FailureDescriber {
  const mayBeStored = (call: CallFacts) =>
    call.method === 'POST' && call.eventId
      ? `the event may have been stored: check with ${words.showEvent(safe(call.eventId))}`
      : undefined;
  const hostNotFound = (hostname: string): Said => ({
    message: `cannot find host ${safe(hostname)} (DNS lookup failed)`,
    hint: `check the host name in ${words.urlSetting}`,
  });
  return {
    plainHttp: (host) => ({
      message: `refusing to send the API key in clear text to ${safe(host)}: the URL is http://, and that host is not this machine`,
      hint: `use https://; only if the network path is trusted (a tunnel), allow it with ${words.allowInsecureHttp}`,
    }),
    hostNotFound,

    answer({ call, status, errorType, errorCodes, requestId, body }: AnswerFacts): Said {
      const ref = requestId ? `, request ${requestId}` : '';
      const detail = body
        ? `${status}, ${describeBody(body)}${ref}`
        : `${status}${errorType ? ` ${errorType}` : ''}${errorCodes.length ? `: ${errorCodes.join(', ')}` : ''}${ref}`;
      const what = doing(call);
      const id = call.eventId ? `"${safe(call.eventId)}"` : '';
      const said = (message: string, hint?: string): Said => ({ message, hint });
      switch (status) {
        case 401:
          return said(`the service did not accept the API key (${detail})`, words.keyRefused);
        case 403:
          return said(
            `the merchant of this API key is blocked (${detail})`,
            'ask the service operator to unblock the merchant',
          );
        case 404:
          // Only the service's own not-found gets here (the client turns every other 404 away).
          if (call.method === 'POST')
            return said(
              `the service answered 404 while ${what} (${detail})`,
              `check ${words.urlOption}: it should be the service's base address`,
            );
          return said(
            call.eventId ? `no event ${id} (${detail})` : `not found (${detail})`,
            call.eventId ? 'check the id: ids are case-sensitive' : `check ${words.urlOption}`,
          );
        case 409:
          return said(
            `${call.eventId ? `event ${id}` : 'the event'} already exists with a different payload (${detail})`,
            call.eventId
              ? `give the event a new id, or see the stored one with: ${words.showEvent(safe(call.eventId))}`
              : undefined,
          );
        case 422:
          return said(
            `the service rejected the request while ${what} (${detail})`,
            errorCodes.some((c) => c.includes('STATE'))
              ? `see the states and transitions in: ${words.stateHelp}`
              : 'fix the fields named above and try again',
          );
        case 400:
          return said(`the service could not read the request while ${what} (${detail})`);
        case 413:
          return said(`the request is too large for the service (${detail})`);
        case 415:
          return said(`the service does not accept the request's content type (${detail})`);
        case 429:
          return said(`the service is rate limiting this key (${detail})`, 'wait a little and try again');
        case 502:
        case 503:
        case 504:
          return said(
            `the service is unavailable while ${what} (${detail})`,
            (status === 504 && mayBeStored(call)) || 'try again later',
          );
        default:
          return said(`the service answered ${detail} while ${what}`);
      }
    },

    waitTooLong(said, seconds, timeout) {
      // A wait of more than a day is not spelled out (Retry-After: 99999999999999999999 would
      // read "99999999999999980000 s"), and --timeout is offered only at a value it accepts.
      const option = words.timeoutOption;
      if (seconds > DAY_SECONDS) {
        return {
          message:
            `${said.message}, and asked to wait more than a day before another try: ` +
            `longer than ${option} allows (at most ${MAX_TIMEOUT_SECONDS} s)`,
          hint:
            'try again in a day or more; a wait that long may be a mistake of the service, ' +
            'worth asking its operators about',
        };
      }
      const allowing = seconds + Math.ceil(timeout);
      return {
        message:
          `${said.message}, and asked to wait ${seconds} s before another try: ` +
          `longer than ${option} (${timeout} s) allows`,
        hint:
          allowing <= MAX_TIMEOUT_SECONDS
            ? `try again in ${seconds} s, or allow for the wait with ${option} ${allowing}`
            : `try again in ${seconds} s (${option} allows at most ${MAX_TIMEOUT_SECONDS} s, ` +
              'too little for the wait and the call)',
      };
    },

    budgetSpent(call) {
      return {
        message: `gave up ${doing(call)}: the batch's retry budget is spent (the service kept failing)`,
        hint: words.budgetSpent,
      };
    },

    got(answer: ForeignAnswer): string {
      switch (answer.kind) {
        case 'empty':
          return 'an empty body';
        case 'not-error-shape':
          return "JSON that is not the service's error shape";
        case 'method':
          return 'JSON, to a method or route the service does not have';
        case 'not-object':
          return 'JSON that is not an object';
        case 'route':
          return `the code ${safe(answer.code)}, which names a route, not an event`;
        case 'body':
          return describeBody(answer.body);
      }
    },

    notTheService({ method, origin, path, status, got, requestId }) {
      const ref = requestId ? `, request ${safe(requestId)}` : '';
      return {
        message: `${method} ${origin}${safe(path)} answered ${status} with ${got}${ref}: that is not the fraud-screening service's answer, so this URL is not the service, or not its base path`,
        hint: words.notTheService,
      };
    },

    badSuccess(call, status, body) {
      return body === 'not-object'
        ? {
            message: `the service answered ${status} while ${doing(call)}, but the body is not the JSON object expected`,
            hint: `check ${words.urlOption}: it should name the fraud-screening service`,
          }
        : {
            message: `the service answered ${status} while ${doing(call)}, but the body is not JSON (${describeBody(body)})`,
            hint: `a proxy or gateway may be in the way: check ${words.urlOption}`,
          };
    },

    unusable(call, status) {
      return { message: `the service answered ${status} while ${doing(call)}` };
    },

    redirect(call, status, to) {
      if ('noLocation' in to)
        return {
          message: `the service answered ${status} (a redirect) without a usable Location while ${doing(call)}`,
        };
      if ('origin' in to) {
        return {
          message: `the service redirected to another origin (${safe(to.origin)}) while ${doing(call)}: not followed, and the API key was not sent there`,
          hint: `check ${words.urlOption}: it should name the service itself`,
        };
      }
      return {
        message: `the service answered ${status} (a redirect to ${safe(to.path)}) while ${doing(call)}: not followed`,
        hint: `check ${words.urlOption}`,
      };
    },

    tooLarge(call, host, maxMiB) {
      return {
        message: `the answer from ${safe(host)} while ${doing(call)} is larger than ${maxMiB} MiB: not read`,
        hint: mayBeStored(call) ?? `check ${words.urlOption}: it should name the fraud-screening service`,
      };
    },

    timeout(call, origin, timeoutSeconds, sent) {
      const stored = sent ? mayBeStored(call) : undefined;
      return {
        message: `no complete answer from ${origin} within ${timeoutSeconds} s while ${doing(call)}`,
        hint: stored
          ? `${stored}, or allow more time with ${words.timeoutOption}`
          : `allow more time with ${words.timeoutOption} SECONDS`,
      };
    },

    network(call, failure, { host, hostname, code }) {
      switch (failure) {
        case 'refused':
          return {
            message: `cannot connect to ${safe(host)}: connection refused`,
            hint: `is the service running at that address? check ${words.urlSetting}`,
          };
        case 'dns':
          return hostNotFound(hostname);
        case 'connect-timeout':
          return {
            message: `cannot connect to ${safe(host)}: no answer to the connection attempt`,
            hint: `is the service running at that address? check ${words.urlSetting}`,
          };
        case 'reset':
          return {
            message: `the connection to ${safe(host)} dropped while ${doing(call)}${code ? ` (${safe(code)})` : ''}`,
            hint: mayBeStored(call),
          };
      }
    },

    tls(kind, host, code) {
      if (kind === 'no-tls')
        return {
          message: `no TLS connection to ${safe(host)} (${safe(code || 'handshake failed')}): nothing was sent`,
          hint: 'check the URL scheme and port: does that port speak https:// or http://?',
        };
      return TLS[kind](safe(host), code, words);
    },

    proxyCredentials(proxy, status, credentialsGiven) {
      const answered = status === 407 ? '407 Proxy Authentication Required' : '401 Unauthorized';
      return {
        message: `${named(proxy)} ${credentialsGiven ? 'did not accept the credentials given' : 'asks for credentials'} (${answered}); nothing was sent to ${safe(proxy.host)}`,
        hint: credentialsGiven
          ? `check the user name and password in ${proxy.from} (http://user:password@host:port, with @ : / in them written as %40 %3A %2F)`
          : `put the credentials in ${proxy.from} as http://user:password@host:port`,
      };
    },

    proxyRefused(proxy, status, phrase) {
      return {
        message: `${named(proxy)} refused to open a connection to ${safe(proxy.host)}: it answered ${status}${phrase ? ` ${phrase}` : ''}; nothing was sent to the service`,
        hint:
          status >= 500
            ? `the proxy could not reach the service: check the host and port of ${words.urlSetting}, or try again later`
            : `the proxy does not let this machine reach ${safe(proxy.host)}: ask its administrators (or, for a service reached without a proxy, add its host to NO_PROXY)`,
      };
    },

    proxyUnreachable(proxy, cause) {
      const hint =
        cause === 'refused'
          ? `is the proxy running? check the host and port in ${proxy.from}`
          : cause === 'dns'
            ? `check the host name in ${proxy.from}`
            : `check the host and port in ${proxy.from}, and the network`;
      return {
        message: `cannot connect to ${named(proxy)}: ${PROXY_UNREACHABLE[cause]}; nothing was sent to ${safe(proxy.host)}`,
        hint,
      };
    },
  };
}

/** The proxy as a message names it: host and port (never credentials) and its variable. */
const named = (proxy: { shown: string; from: string }) => `the proxy ${safe(proxy.shown)} (${proxy.from})`;
