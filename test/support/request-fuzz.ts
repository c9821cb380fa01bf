import fc from 'fast-check';

/*
 * Random and mutated HTTP requests for the sandbox fuzz test: every endpoint and some that do
 * not exist, with wrong types, huge numbers, deep nesting, invalid UTF-8, duplicate and
 * prototype-polluting keys, odd content types and headers, and path tricks. Each request is
 * the exact bytes to send, so nothing on the way normalises it.
 */

export interface FuzzRequest {
  method: string;
  path: string;
  headers: [string, string][];
  body: Buffer | null;
  /** Sent with Transfer-Encoding: chunked instead of Content-Length. */
  chunked: boolean;
  /** A short label for failure messages. */
  label: string;
}

export const KEYS = { demo: 'sandbox-demo-key', other: 'other-merchant-key-1234' } as const;

// A few ids that recur, so PATCHes and GETs find events the POSTs created (and replays happen).
const ID_POOL = ['f1', 'f2', 'f-3', 'ord.4', 'a:b', '_', '.', '..'];

const idArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ID_POOL) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'x'.repeat(129),
      'x'.repeat(3000),
      '%00',
      '%2e%2e',
      'a%2Fb',
      '%',
      '%zz',
      'é',
      '%C3%A9',
      '%ED%A0%80',
      '__proto__',
      'constructor',
    ),
  },
);

const pathArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant('/event') },
  { weight: 4, arbitrary: idArb.map((id) => `/event/${id}`) },
  { weight: 2, arbitrary: idArb.map((id) => `/event/${id}/risk-assessment`) },
  { weight: 4, arbitrary: idArb.map((id) => `/event/${id}/state`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '/openapi.json',
      '/',
      '//event',
      '/event/',
      '/event/../event',
      '/EVENT',
      '/event?__proto__[x]=1',
      '/event#frag',
      '/event;x',
      '*',
      'http://example.com/event',
      '/event/f1/state/',
      '/event/f1/../f2',
      '/event/%2e%2e/state',
      '/event\\f1',
    ),
  },
);

const methodArb = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH') },
  { weight: 2, arbitrary: fc.constantFrom('PUT', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE') },
  { weight: 1, arbitrary: fc.constantFrom('FOO', 'get', 'CONNECT', 'PROPFIND', 'M-SEARCH', 'PATCH ') },
);

const contentTypeArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'text/json',
      'application/merge-patch+json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      '',
      'application/+json',
      'application/json, text/plain',
      '*/*',
      'application/json;;;',
      'application/json; boundary="',
    ),
  },
  { weight: 1, arbitrary: fc.constant(null) },
);

const keyArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string | null>(KEYS.demo) },
  { weight: 2, arbitrary: fc.constant<string | null>(KEYS.other) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<string | null>(null, '', 'sandbox-demo-kez', ' sandbox-demo-key', 'x'.repeat(2000)),
  },
);

const extraHeaderArb = fc.constantFrom<[string, string][]>(
  [],
  [['accept', 'application/xml']],
  [['accept-encoding', 'gzip, br']],
  [['content-encoding', 'gzip']],
  [['expect', '100-continue']],
  [['x-request-id', 'client-chosen']],
  [['x-client-api-key', KEYS.other]],
  [
    ['connection', 'keep-alive, Upgrade'],
    ['upgrade', 'websocket'],
  ],
  [['x-forwarded-for', '1.2.3.4']],
  [['x-http-method-override', 'DELETE']],
  [['__proto__', 'x']],
  [['range', 'bytes=0-1']],
  [['if-none-match', '*']],
);

const hugeNumber = fc.constantFrom(
  '1e308',
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '-0',
  '0.0000000000000000000001',
  '1E+2',
  '9007199254740993',
);

const validPayload = fc.record(
  {
    id: fc.oneof(fc.constantFrom(...ID_POOL), fc.stringMatching(/^[a-z0-9]{1,10}$/)),
    amount: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.double({ min: 0, max: 1e6, noNaN: true })),
    currency: fc.constantFrom('EUR', 'USD', 'GBP', 'XXX', 'eur'),
    userEmail: fc.constantFrom('a@example.com', 'b@mailinator.com', 'not-an-email'),
    userIp: fc.constantFrom('10.0.0.1', '::1', '999.1.1.1'),
    billingCountry: fc.constantFrom('DE', 'FR', 'ZZ'),
    shippingCountry: fc.constantFrom('DE', 'FR'),
    comments: fc.string({ maxLength: 30 }),
    userName: fc.string({ maxLength: 30, unit: 'binary' }),
    eventDate: fc.constantFrom('2024-01-01T00:00:00Z', '2024-02-30T00:00:00Z', 'yesterday'),
    items: fc.array(
      fc.record({
        itemName: fc.string({ maxLength: 10 }),
        itemPrice: fc.integer({ min: -5, max: 500 }),
        itemQuantity: fc.integer({ min: 0, max: 20 }),
      }),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: ['amount', 'currency'] },
);

const stateChange = fc.record(
  {
    state: fc.constantFrom(
      'PENDING_REVIEW',
      'IN_REVIEW',
      'APPROVED',
      'DECLINED',
      'ESCALATED',
      'FRAUD_CONFIRMED',
      'approved',
      'MAYBE',
      '',
    ),
    comments: fc.string({ maxLength: 40, unit: 'grapheme' }),
  },
  { requiredKeys: [] },
);

/** A JSON text: valid, mutated, or not JSON at all. */
const jsonTextArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: validPayload.map((p) => JSON.stringify(p)) },
  { weight: 5, arbitrary: stateChange.map((p) => JSON.stringify(p)) },
  // One field replaced by a value of any type.
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        validPayload,
        fc.constantFrom('id', 'amount', 'currency', 'items', 'comments', 'userIp', 'eventDate', 'state'),
        fc.jsonValue({ maxDepth: 3 }),
      )
      .map(([p, k, v]) => JSON.stringify({ ...p, [k]: v })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(validPayload, hugeNumber)
      .map(([p, n]) => JSON.stringify(p).replace(/"amount":[^,}]+/, `"amount":${n}`)),
  },
  // Duplicate keys and keys that pollute prototypes, written as text (an object cannot hold them).
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        '"amount":"1"',
        '"__proto__":{"amount":1}',
        '"constructor":{"prototype":{"x":1}}',
        '"__proto__":null',
        '"state":"APPROVED"',
      )
      .chain((extra) => validPayload.map((p) => `{${extra},${JSON.stringify(p).slice(1)}`)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 5_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 3_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'null',
      'true',
      '[]',
      '"x"',
      '1',
      '{',
      '{"amount":',
      '{"amount":1,}',
      "{'amount':1}",
      '{"amount":NaN}',
      '{"comments":"a\\u0000b","amount":1,"currency":"EUR"}',
      '{"comments":"\\ud800"}',
      '\ufeff{"amount":1,"currency":"EUR"}',
    ),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200, unit: 'binary' }) },
);

/** Bytes that are not UTF-8, or odd UTF-8, spliced into a JSON text. */
const bodyArb: fc.Arbitrary<Buffer | null> = fc.oneof(
  { weight: 40, arbitrary: jsonTextArb.map((t) => Buffer.from(t, 'utf8')) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        jsonTextArb,
        fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x00]),
        fc.nat(),
      )
      .map(([t, bytes, at]) => {
        const b = Buffer.from(t, 'utf8');
        const i = b.length === 0 ? 0 : at % b.length;
        return Buffer.concat([b.subarray(0, i), Buffer.from(bytes), b.subarray(i)]);
      }),
  },
  { weight: 3, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 3 }).map((mib) => Buffer.alloc(Math.floor(mib * 0.6 * 1024 * 1024), 0x20)),
  },
);

const chunkedArb = fc.integer({ min: 0, max: 9 }).map((n) => n === 0);
const noExtra = fc.constant<[string, string][]>([]);
const json = (arb: fc.Arbitrary<unknown>) => arb.map((v) => Buffer.from(JSON.stringify(v), 'utf8'));

/*
 * Half the requests are plausible (a right method, path and content type, with a payload that
 * may be valid), so that events get created, read and moved and the checks behind the door
 * run; the other half are drawn from everything above.
 */
const partsArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      method: fc.constant('POST'),
      path: fc.constant('/event'),
      key: keyArb,
      contentType: fc.constant('application/json'),
      extra: noExtra,
      body: json(validPayload),
      chunked: chunkedArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      method: fc.constant('PATCH'),
      path: fc.constantFrom(...ID_POOL).map((id) => `/event/${id}/state`),
      key: keyArb,
      contentType: fc.constant('application/json'),
      extra: noExtra,
      body: json(stateChange),
      chunked: chunkedArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constant('GET'),
      path: fc.constantFrom(...ID_POOL).chain((id) => fc.constantFrom(`/event/${id}`, `/event/${id}/risk-assessment`)),
      key: keyArb,
      contentType: fc.constant(null),
      extra: noExtra,
      body: fc.constant(null),
      chunked: fc.constant(false),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      method: methodArb,
      path: pathArb,
      key: keyArb,
      contentType: contentTypeArb,
      extra: extraHeaderArb,
      body: bodyArb,
      chunked: chunkedArb,
    }),
  },
);

export const requestArb: fc.Arbitrary<FuzzRequest> = partsArb.map(
  ({ method, path, key, contentType, extra, body, chunked }) => {
    const headers: [string, string][] = [['host', 'sandbox.test']];
    if (key !== null) headers.push(['x-client-api-key', key]);
    if (contentType !== null && body !== null) headers.push(['content-type', contentType]);
    headers.push(...extra);
    const useBody =
      body !== null && method !== 'GET' && method !== 'HEAD' ? body : body !== null && chunked ? body : null;
    const request: FuzzRequest = {
      method,
      path,
      headers,
      body: useBody,
      chunked: chunked && useBody !== null,
      label: `${method} ${path.slice(0, 60)}`,
    };
    // What fast-check prints for a counterexample: the request, with a long body cut short.
    return Object.assign(request, {
      [fc.toStringMethod]: () => {
        const body =
          useBody === null
            ? ''
            : `\n\n${JSON.stringify(useBody.subarray(0, 300).toString('latin1'))}${useBody.length > 300 ? ` … (${useBody.length} bytes)` : ''}`;
        return `${method} ${JSON.stringify(path)} chunked=${request.chunked}\n${headers.map(([k, v]) => `${k}: ${v.slice(0, 80)}`).join('\n')}${body}`;
      },
    });
  },
);

/** The bytes of a request, with Connection: close so that the answer ends the exchange. */
export function requestBytes(r: FuzzRequest): Buffer {
  const lines = [`${r.method} ${r.path} HTTP/1.1`, ...r.headers.map(([k, v]) => `${k}: ${v}`), 'connection: close'];
  if (r.body === null) return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  if (r.chunked) {
    lines.push('transfer-encoding: chunked');
    const half = Math.floor(r.body.length / 2);
    const chunks = [r.body.subarray(0, half), r.body.subarray(half)].filter((c) => c.length > 0);
    const parts = chunks.flatMap((c) => [Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]);
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), ...parts, Buffer.from('0\r\n\r\n')]);
  }
  lines.push(`content-length: ${r.body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), r.body]);
}
