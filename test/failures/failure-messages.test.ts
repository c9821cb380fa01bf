import { describe, expect, it } from 'vitest';
import type { CallFacts, FailureDescriber, Said } from '../../src/api/failure-facts.js';
import { failureMessages } from '../../src/failures/failure-messages.js';
import { failureWords } from '../../src/failures/failure-words.js';
import { sym } from '../../src/render/symbols.js';

/*
 * The client's facts → a message and a hint: one row per sentence src/failures/ says for the
 * client (src/api/ holds none). The words are the flags' (no session): --base-url, --timeout,
 * fraudctl show; failure-words.test.ts covers how a profile and setting sources change them.
 */

const say = failureMessages(failureWords());
const submit: CallFacts = { method: 'POST', eventId: 'ord-1', purpose: { action: 'submit' } };
const submitNoId: CallFacts = { method: 'POST', purpose: { action: 'submit' } };
const get: CallFacts = { method: 'GET', eventId: 'ord-1', purpose: { action: 'get', eventId: 'ord-1' } };
const patch: CallFacts = { method: 'PATCH', eventId: 'ord-1', purpose: { action: 'change-state', eventId: 'ord-1' } };
const risk: CallFacts = { method: 'GET', eventId: 'ord-1', purpose: { action: 'risk-assessment', eventId: 'ord-1' } };
const probe: CallFacts = { method: 'GET', purpose: { action: 'probe', path: '/health' } };
const proxy = { shown: 'proxy.corp:3128', from: 'HTTPS_PROXY', host: 'api.example' };
const answer = (call: CallFacts, status: number, more: Partial<Parameters<FailureDescriber['answer']>[0]> = {}) =>
  say.answer({ call, status, errorType: null, errorCodes: [], requestId: null, ...more });
const URL_HINT = '--base-url or the profile (fraudctl config list)';

const TABLE: [string, () => Said, Said][] = [
  // The service's answers, by status.
  [
    '401',
    () => answer(get, 401, { errorType: 'UNAUTHORIZED', requestId: 'r-1' }),
    {
      message: 'the service did not accept the API key (401 UNAUTHORIZED, request r-1)',
      hint: 'check the key: run fraudctl login, or set FRAUDCTL_API_KEY',
    },
  ],
  [
    '403',
    () => answer(get, 403, { errorType: 'FORBIDDEN' }),
    {
      message: 'the merchant of this API key is blocked (403 FORBIDDEN)',
      hint: 'ask the service operator to unblock the merchant',
    },
  ],
  [
    '404 of a POST',
    () => answer(submit, 404),
    {
      message: 'the service answered 404 while screening the event (404)',
      hint: "check --base-url: it should be the service's base address",
    },
  ],
  [
    '404 of an event',
    () => answer(get, 404, { errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] }),
    { message: 'no event "ord-1" (404 NOT_FOUND: EVENT_NOT_FOUND)', hint: 'check the id: ids are case-sensitive' },
  ],
  ['404 of no event', () => answer(probe, 404), { message: 'not found (404)', hint: 'check --base-url' }],
  [
    '409 with an id',
    () => answer(submit, 409),
    {
      message: 'event "ord-1" already exists with a different payload (409)',
      hint: 'give the event a new id, or see the stored one with: fraudctl show ord-1',
    },
  ],
  [
    '409 without an id',
    () => answer(submitNoId, 409),
    { message: 'the event already exists with a different payload (409)', hint: undefined },
  ],
  [
    '422 of a state',
    () => answer(patch, 422, { errorCodes: ['INVALID_STATE_TRANSITION'] }),
    {
      message: 'the service rejected the request while updating the state of "ord-1" (422: INVALID_STATE_TRANSITION)',
      hint: 'see the states and transitions in: fraudctl set-state --help',
    },
  ],
  [
    '422 of fields',
    () => answer(submit, 422, { errorCodes: ['AMOUNT_REQUIRED'] }),
    {
      message: 'the service rejected the request while screening the event (422: AMOUNT_REQUIRED)',
      hint: 'fix the fields named above and try again',
    },
  ],
  [
    '400',
    () => answer(submit, 400),
    { message: 'the service could not read the request while screening the event (400)', hint: undefined },
  ],
  ['413', () => answer(submit, 413), { message: 'the request is too large for the service (413)', hint: undefined }],
  [
    '415',
    () => answer(submit, 415),
    { message: "the service does not accept the request's content type (415)", hint: undefined },
  ],
  [
    '429',
    () => answer(get, 429),
    { message: 'the service is rate limiting this key (429)', hint: 'wait a little and try again' },
  ],
  [
    '503',
    () => answer(risk, 503),
    {
      message: 'the service is unavailable while fetching the risk assessment of "ord-1" (503)',
      hint: 'try again later',
    },
  ],
  [
    '504 of a POST with an id',
    () => answer(submit, 504),
    {
      message: 'the service is unavailable while screening the event (504)',
      hint: 'the event may have been stored: check with fraudctl show ord-1',
    },
  ],
  [
    'another status',
    () => answer(get, 500, { errorType: 'INTERNAL' }),
    { message: 'the service answered 500 INTERNAL while fetching event "ord-1"', hint: undefined },
  ],
  [
    'a body that is not JSON',
    () => answer(get, 502, { body: { contentType: 'text/html', text: '<html><title>Bad Gateway</title></html>' } }),
    {
      message: 'the service is unavailable while fetching event "ord-1" (502, an HTML page titled "Bad Gateway")',
      hint: 'try again later',
    },
  ],
  [
    'plain text, cut at 80',
    () => answer(probe, 500, { body: { contentType: 'text/plain', text: 'x'.repeat(81) } }),
    {
      message: `the service answered 500, text/plain: "${'x'.repeat(80)}${sym.ellipsis}" while fetching /health`,
      hint: undefined,
    },
  ],
  [
    'escapes from the server are made inert',
    () => answer({ method: 'GET', eventId: 'a\u001b[2Jb', purpose: { action: 'get', eventId: 'a\u001b[2Jb' } }, 404),
    {
      message: expect.not.stringContaining('\u001b') as unknown as string,
      hint: 'check the id: ids are case-sensitive',
    },
  ],
  // Around the answers.
  [
    'a wait past the deadline',
    () => say.waitTooLong({ message: 'the service is rate limiting this key (429)' }, 40, 30),
    {
      message:
        'the service is rate limiting this key (429), and asked to wait 40 s before another try: longer than --timeout (30 s) allows',
      hint: 'try again in 40 s, or allow for the wait with --timeout 70',
    },
  ],
  [
    'a wait of more than a day: said so, not in seconds, and no --timeout offered (it allows a day at most)',
    () => say.waitTooLong({ message: 'the service is rate limiting this key (429)' }, 1e20, 30),
    {
      message:
        'the service is rate limiting this key (429), and asked to wait more than a day before another try: ' +
        'longer than --timeout allows (at most 86400 s)',
      hint: 'try again in a day or more; a wait that long may be a mistake of the service, worth asking its operators about',
    },
  ],
  [
    'a wait --timeout cannot allow for with the call on top: no --timeout offered',
    () => say.waitTooLong({ message: 'the service is rate limiting this key (429)' }, 86_390, 30),
    {
      message:
        'the service is rate limiting this key (429), and asked to wait 86390 s before another try: longer than --timeout (30 s) allows',
      hint: 'try again in 86390 s (--timeout allows at most 86400 s, too little for the wait and the call)',
    },
  ],
  [
    'a wait --timeout can just allow for',
    () => say.waitTooLong({ message: 'the service is rate limiting this key (429)' }, 86_370, 30),
    {
      message:
        'the service is rate limiting this key (429), and asked to wait 86370 s before another try: longer than --timeout (30 s) allows',
      hint: 'try again in 86370 s, or allow for the wait with --timeout 86400',
    },
  ],
  [
    'the retry budget spent',
    () => say.budgetSpent(submit),
    {
      message: "gave up screening the event: the batch's retry budget is spent (the service kept failing)",
      hint: 'run the batch again later with --resume',
    },
  ],
  [
    'not the service',
    () =>
      say.notTheService({
        method: 'GET',
        origin: 'http://x.test',
        path: '/event/a',
        status: 404,
        got: say.got({ kind: 'route', code: 'ROUTE_NOT_FOUND' }),
        requestId: 'r-2',
      }),
    {
      message:
        "GET http://x.test/event/a answered 404 with the code ROUTE_NOT_FOUND, which names a route, not an event, request r-2: that is not the fraud-screening service's answer, so this URL is not the service, or not its base path",
      hint: "check --base-url or the profile's URL (fraudctl config get base-url): it should be the service's base address",
    },
  ],
  [
    'a 2xx not JSON',
    () => say.badSuccess(get, 200, { contentType: 'text/plain', text: 'ok' }),
    {
      message: 'the service answered 200 while fetching event "ord-1", but the body is not JSON (text/plain: "ok")',
      hint: 'a proxy or gateway may be in the way: check --base-url',
    },
  ],
  [
    'a 2xx not an object',
    () => say.badSuccess(get, 200, 'not-object'),
    {
      message: 'the service answered 200 while fetching event "ord-1", but the body is not the JSON object expected',
      hint: 'check --base-url: it should name the fraud-screening service',
    },
  ],
  [
    'an answer of no use',
    () => say.unusable(get, 302),
    { message: 'the service answered 302 while fetching event "ord-1"' },
  ],
  [
    'a redirect without Location',
    () => say.redirect(get, 302, { noLocation: true }),
    { message: 'the service answered 302 (a redirect) without a usable Location while fetching event "ord-1"' },
  ],
  [
    'a redirect elsewhere',
    () => say.redirect(get, 302, { origin: 'https://evil.test' }),
    {
      message:
        'the service redirected to another origin (https://evil.test) while fetching event "ord-1": not followed, and the API key was not sent there',
      hint: 'check --base-url: it should name the service itself',
    },
  ],
  [
    'a redirect not followed',
    () => say.redirect(patch, 307, { path: '/v2/event/ord-1/state' }),
    {
      message:
        'the service answered 307 (a redirect to /v2/event/ord-1/state) while updating the state of "ord-1": not followed',
      hint: 'check --base-url',
    },
  ],
  [
    'too large, a POST',
    () => say.tooLarge(submit, 'api.example', 16),
    {
      message: 'the answer from api.example while screening the event is larger than 16 MiB: not read',
      hint: 'the event may have been stored: check with fraudctl show ord-1',
    },
  ],
  [
    'too large, a GET',
    () => say.tooLarge(get, 'api.example', 16),
    {
      message: 'the answer from api.example while fetching event "ord-1" is larger than 16 MiB: not read',
      hint: 'check --base-url: it should name the fraud-screening service',
    },
  ],
  // Before anything is sent (transport.ts decides, these are its words).
  [
    'plain http to another host',
    () => say.plainHttp('fraud.example:8080'),
    {
      message:
        'refusing to send the API key in clear text to fraud.example:8080: the URL is http://, and that host is not this machine',
      hint: 'use https://; only if the network path is trusted (a tunnel), allow it with --insecure-http or: fraudctl config set insecure-http true',
    },
  ],
  [
    'host not found at the transport check',
    () => say.hostNotFound('locahost'),
    { message: 'cannot find host locahost (DNS lookup failed)', hint: `check the host name in ${URL_HINT}` },
  ],
  // The network.
  [
    'a timeout after sending a POST',
    () => say.timeout(submit, 'https://api.example', 30, true),
    {
      message: 'no complete answer from https://api.example within 30 s while screening the event',
      hint: 'the event may have been stored: check with fraudctl show ord-1, or allow more time with --timeout',
    },
  ],
  [
    'a timeout before sending',
    () => say.timeout(submit, 'https://api.example', 0.5, false),
    {
      message: 'no complete answer from https://api.example within 0.5 s while screening the event',
      hint: 'allow more time with --timeout SECONDS',
    },
  ],
  [
    'refused',
    () => say.network(get, 'refused', { host: 'localhost:1', hostname: 'localhost', code: 'ECONNREFUSED' }),
    {
      message: 'cannot connect to localhost:1: connection refused',
      hint: `is the service running at that address? check ${URL_HINT}`,
    },
  ],
  [
    'dns',
    () => say.network(get, 'dns', { host: 'nope.test:443', hostname: 'nope.test', code: 'ENOTFOUND' }),
    { message: 'cannot find host nope.test (DNS lookup failed)', hint: `check the host name in ${URL_HINT}` },
  ],
  [
    'connect timeout',
    () =>
      say.network(get, 'connect-timeout', { host: '10.0.0.1', hostname: '10.0.0.1', code: 'UND_ERR_CONNECT_TIMEOUT' }),
    {
      message: 'cannot connect to 10.0.0.1: no answer to the connection attempt',
      hint: `is the service running at that address? check ${URL_HINT}`,
    },
  ],
  [
    'dropped, a POST',
    () => say.network(submit, 'reset', { host: 'api.example', hostname: 'api.example', code: 'ECONNRESET' }),
    {
      message: 'the connection to api.example dropped while screening the event (ECONNRESET)',
      hint: 'the event may have been stored: check with fraudctl show ord-1',
    },
  ],
  [
    'dropped, a GET, no code',
    () => say.network(get, 'reset', { host: 'api.example', hostname: 'api.example', code: '' }),
    { message: 'the connection to api.example dropped while fetching event "ord-1"', hint: undefined },
  ],
  [
    'TLS untrusted',
    () => say.tls('untrusted', 'api.example', 'SELF_SIGNED_CERT_IN_CHAIN'),
    {
      message:
        'the TLS certificate of api.example is not signed by a certificate authority this machine trusts (SELF_SIGNED_CERT_IN_CHAIN): nothing was sent',
      hint: 'for a private CA, point NODE_EXTRA_CA_CERTS at its certificate (a PEM file); check the URL otherwise',
    },
  ],
  [
    'TLS expired',
    () => say.tls('expired', 'api.example', 'CERT_HAS_EXPIRED'),
    {
      message: 'the TLS certificate of api.example has expired (CERT_HAS_EXPIRED): nothing was sent',
      hint: "the service's operator must renew the certificate; check this machine's clock too",
    },
  ],
  [
    'TLS not yet valid',
    () => say.tls('not-yet-valid', 'api.example', 'CERT_NOT_YET_VALID'),
    {
      message: 'the TLS certificate of api.example is not valid yet (CERT_NOT_YET_VALID): nothing was sent',
      hint: "the service's operator must renew the certificate; check this machine's clock too",
    },
  ],
  [
    'TLS another name',
    () => say.tls('other-name', '127.0.0.1:8443', 'ERR_TLS_CERT_ALTNAME_INVALID'),
    {
      message:
        'the TLS certificate of 127.0.0.1:8443 is for another name (ERR_TLS_CERT_ALTNAME_INVALID): nothing was sent',
      hint: 'use the host name the certificate was issued for in --base-url (e.g. not an IP address)',
    },
  ],
  [
    'no TLS',
    () => say.tls('no-tls', 'api.example', ''),
    {
      message: 'no TLS connection to api.example (handshake failed): nothing was sent',
      hint: 'check the URL scheme and port: does that port speak https:// or http://?',
    },
  ],
  // The proxy.
  [
    'proxy asks for credentials',
    () => say.proxyCredentials(proxy, 407, false),
    {
      message:
        'the proxy proxy.corp:3128 (HTTPS_PROXY) asks for credentials (407 Proxy Authentication Required); nothing was sent to api.example',
      hint: 'put the credentials in HTTPS_PROXY as http://user:password@host:port',
    },
  ],
  [
    'proxy refuses credentials',
    () => say.proxyCredentials(proxy, 401, true),
    {
      message:
        'the proxy proxy.corp:3128 (HTTPS_PROXY) did not accept the credentials given (401 Unauthorized); nothing was sent to api.example',
      hint: 'check the user name and password in HTTPS_PROXY (http://user:password@host:port, with @ : / in them written as %40 %3A %2F)',
    },
  ],
  [
    'proxy cannot reach the service',
    () => say.proxyRefused(proxy, 502, 'Bad Gateway'),
    {
      message:
        'the proxy proxy.corp:3128 (HTTPS_PROXY) refused to open a connection to api.example: it answered 502 Bad Gateway; nothing was sent to the service',
      hint: `the proxy could not reach the service: check the host and port of ${URL_HINT}, or try again later`,
    },
  ],
  [
    'proxy forbids the host',
    () => say.proxyRefused(proxy, 403, 'Forbidden'),
    {
      message:
        'the proxy proxy.corp:3128 (HTTPS_PROXY) refused to open a connection to api.example: it answered 403 Forbidden; nothing was sent to the service',
      hint: 'the proxy does not let this machine reach api.example: ask its administrators (or, for a service reached without a proxy, add its host to NO_PROXY)',
    },
  ],
  [
    'proxy refused',
    () => say.proxyUnreachable(proxy, 'refused'),
    {
      message:
        'cannot connect to the proxy proxy.corp:3128 (HTTPS_PROXY): connection refused; nothing was sent to api.example',
      hint: 'is the proxy running? check the host and port in HTTPS_PROXY',
    },
  ],
  [
    'proxy not found',
    () => say.proxyUnreachable(proxy, 'dns'),
    {
      message:
        'cannot connect to the proxy proxy.corp:3128 (HTTPS_PROXY): its host name does not resolve (DNS lookup failed); nothing was sent to api.example',
      hint: 'check the host name in HTTPS_PROXY',
    },
  ],
  [
    'proxy silent',
    () => say.proxyUnreachable(proxy, 'timeout'),
    {
      message:
        'cannot connect to the proxy proxy.corp:3128 (HTTPS_PROXY): no answer to the connection attempt; nothing was sent to api.example',
      hint: 'check the host and port in HTTPS_PROXY, and the network',
    },
  ],
  [
    'proxy no route',
    () => say.proxyUnreachable(proxy, 'no-route'),
    {
      message:
        'cannot connect to the proxy proxy.corp:3128 (HTTPS_PROXY): no route to it; nothing was sent to api.example',
      hint: 'check the host and port in HTTPS_PROXY, and the network',
    },
  ],
];

describe("the client's facts in words", () => {
  it.each(TABLE)('%s', (_name, said, expected) => {
    expect(said()).toEqual(expected);
  });

  it.each([
    [{ kind: 'empty' } as const, 'an empty body'],
    [{ kind: 'not-error-shape' } as const, "JSON that is not the service's error shape"],
    [{ kind: 'method' } as const, 'JSON, to a method or route the service does not have'],
    [{ kind: 'not-object' } as const, 'JSON that is not an object'],
    [{ kind: 'body', body: { contentType: '', text: '<!doctype html><p>hi' } } as const, 'an HTML page'],
  ])("what came back instead of the service's answer: %j", (got, words) => {
    expect(say.got(got)).toBe(words);
  });
});
