import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENT_DATE_PATTERN, EventSummarySchema } from '../../src/contract/index.js';
import { seededDraws } from '../../src/sandbox/http/chaos-draws.js';

/*
 * A small fake of the service that does NOT deduplicate: every POST /event it processes is
 * stored, a second POST of the same id again (and answered 201 again). For tests that must hold
 * against a real service which does not replay by id, where the sandbox would hide a duplicate
 * send behind its replay. node:http, no Fastify, no schemas, no SQLite: easy to reason about.
 *
 *   POST /event                         JSON object → 201 decision; not JSON or not an object → 400;
 *                                       `amount` missing or not a number → 422 amount:REQUIRED
 *   GET  /event/{id}                    the last stored copy as a summary (every field of the contract's), or 404
 *   GET  /event/{id}/risk-assessment    {eventId, actionType, totalRiskScore, alerts, listMatches}, or 404
 *
 * Options make it lack a GET route (`without`: a 404 ROUTE_NOT_FOUND there, as an older
 * service or a gateway gives) or answer every 404 with an HTML page (`htmlNotFound`: a proxy).
 *
 * Every route checks X-CLIENT-API-KEY (401 otherwise) before anything else, including faults.
 * Every answer carries X-Request-Id, equal to `requestId` in error bodies.
 *
 * Faults are drawn as the sandbox's `--chaos seed=N` draws them (chaos-draws.ts): from the
 * seed, the request's route and event id, and how many requests of that route and id came
 * before, so a batch meets the same faults per event whatever its concurrency.
 */

export interface PlainServerFaults {
  /** Share (0..1) of requests answered 503 with Retry-After: 0 before processing. POST and GET. */
  unavailable?: number;
  /** Share of POST /event requests whose socket is destroyed before processing (nothing stored). */
  resetBefore?: number;
  /** Share of POST /event requests stored, then the socket destroyed without an answer. */
  resetAfter?: number;
  /** Share of POST /event requests stored, then answered 504 SCORING_TIMEOUT. */
  timeoutAfter?: number;
}

export type PlainFaultKind = 'unavailable' | 'resetBefore' | 'resetAfter' | 'timeoutAfter';

export interface PlainServer {
  url: string;
  /** id → how many times a POST with that id was processed (stored). */
  stored: Map<string, number>;
  /** POSTs processed (stored), including those without id. */
  processed(): number;
  /** Counts of faults injected, by kind. */
  faults: Record<PlainFaultKind, number>;
  /** Every answer to an authorised request to a known route, in the order sent. */
  answers: AnswerRecord[];
  /** The most requests the server was handling at once. */
  maxInFlight(): number;
  /** The requests the server is handling now. */
  inFlight(): number;
  /** Lets the requests held by `hold` go on, and every later one pass. */
  release(): void;
  close(): Promise<void>;
}

export interface PlainServerOptions {
  /** The one valid API key (default `plain-key`). */
  key?: string;
  faults?: PlainServerFaults;
  /**
   * Seed of the fault draws (default 1): the same seed, the same faults for each event id's 1st,
   * 2nd, … request of a route, in any order. POSTs without an id share one count, in arrival order.
   */
  seed?: number;
  /** Delay before processing every authorised request, in ms (default 0). */
  latencyMs?: number;
  /**
   * Holds every authorised request before processing it until `release()` (default false): the
   * test decides when answers come, after something it can observe, instead of racing a latency.
   */
  hold?: boolean;
  /** With `hold`: the first `holdFrom` requests pass, only later ones are held (default 0: all held). */
  holdFrom?: number;
  /** With `hold`: only the requests this says yes to are held (default: all), e.g. POSTs of events without an id. */
  holdOnly?: (request: { method: string; id: string | null }) => boolean;
  /**
   * Routes the server lacks (default: none): a request for one is a 404 for the route, as an
   * older version of a service or a gateway in front of it would answer. `summary` is
   * GET /event/{id}, `assessment` GET /event/{id}/risk-assessment.
   */
  without?: ('summary' | 'assessment')[];
  /** Every 404 (route or event) is an HTML page, as a proxy's error page would be (default: the error shape). */
  htmlNotFound?: boolean;
  /** Ids whose first POST is answered 503 with this Retry-After (seconds) and not processed; later ones are served. */
  throttleFirstPost?: Record<string, number>;
}

/** One answer the server sent, in the order sent. */
export interface AnswerRecord {
  method: string;
  /** The POSTed event's id, or the id in a GET's path; null when there was none. */
  id: string | null;
  /** null: the connection was reset instead. */
  status: number | null;
  /** When the request arrived, in the test process's performance.now() milliseconds (a monotonic clock). */
  at: number;
}

interface StoredEvent {
  payload: Record<string, unknown>;
  decision: { id: string; actionType: string; totalRiskScore: number; state: string; ruleMatches: []; listMatches: [] };
}

const MAX_BODY_BYTES = 1024 * 1024;
const FAULT_ORDER: PlainFaultKind[] = ['unavailable', 'resetBefore', 'resetAfter', 'timeoutAfter'];

/** The deterministic rule: amount >= 1000 DECLINE 90, >= 500 REVIEW 50, else APPROVE 5. */
function decide(id: string, amount: number): StoredEvent['decision'] {
  const [actionType, totalRiskScore] =
    amount >= 1000 ? ['DECLINE', 90] : amount >= 500 ? ['REVIEW', 50] : ['APPROVE', 5];
  const state = actionType === 'APPROVE' ? 'APPROVED' : actionType === 'DECLINE' ? 'DECLINED' : 'PENDING';
  return {
    id,
    actionType: actionType as string,
    totalRiskScore: totalRiskScore as number,
    state,
    ruleMatches: [],
    listMatches: [],
  };
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
/** A string in the shape the contract gives the field (`pattern`), else null: what the service would not send is not echoed. */
const shaped = (value: unknown, pattern: RegExp): string | null =>
  typeof value === 'string' && pattern.test(value) ? value : null;

/** Every field of the contract's summary (EventSummarySchema); the text ones as POSTed, null where none was; items are not kept. */
function summaryOf({ payload, decision }: StoredEvent): Record<string, unknown> {
  const amount = typeof payload.amount === 'number' ? payload.amount : null;
  const text = Object.keys(EventSummarySchema.properties).map((field) => [field, str(payload[field])]);
  return {
    ...Object.fromEntries(text),
    id: decision.id,
    totalScore: decision.totalRiskScore,
    state: decision.state,
    eventDate: shaped(payload.eventDate, EVENT_DATE_PATTERN),
    amount,
    amountInBaseCurrency: amount,
    currency: str(payload.currency),
    baseCurrency: str(payload.currency),
    userCreated: shaped(payload.userCreated, /^\d{4}-\d{2}-\d{2}$/),
    allowlistMatch: false,
    denylistMatch: false,
    items: null,
  };
}

/** The id of a POSTed event, for the answer log; null when the body has none (or is not JSON). */
function postedId(chunks: Buffer[]): string | null {
  try {
    const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export async function startPlainEventServer(options: PlainServerOptions = {}): Promise<PlainServer> {
  const key = options.key ?? 'plain-key';
  const shares: Record<PlainFaultKind, number> = {
    unavailable: options.faults?.unavailable ?? 0,
    resetBefore: options.faults?.resetBefore ?? 0,
    resetAfter: options.faults?.resetAfter ?? 0,
    timeoutAfter: options.faults?.timeoutAfter ?? 0,
  };
  for (const [kind, share] of Object.entries(shares)) {
    if (!(share >= 0 && share <= 1))
      throw new RangeError(`faults.${kind} must be a share between 0 and 1, not ${share}`);
  }
  if (FAULT_ORDER.reduce((sum, kind) => sum + shares[kind], 0) > 1)
    throw new RangeError('the fault shares add up to more than 1');
  const draws = seededDraws(options.seed ?? 1);
  const latencyMs = options.latencyMs ?? 0;
  let release = () => {};
  const released = options.hold ? new Promise<void>((resolve) => (release = resolve)) : null;

  const stored = new Map<string, number>();
  const latest = new Map<string, StoredEvent>();
  const faults: Record<PlainFaultKind, number> = { unavailable: 0, resetBefore: 0, resetAfter: 0, timeoutAfter: 0 };
  let processedCount = 0;
  let requestCount = 0;
  const answers: AnswerRecord[] = [];
  const throttleFirstPost = new Map(Object.entries(options.throttleFirstPost ?? {}));
  let inFlight = 0;
  let maxInFlight = 0;

  /** One draw for this route and event id; POSTs may get any fault, GETs only `unavailable`. */
  const drawFault = (route: 'post' | 'summary' | 'assessment', eventId: string | null): PlainFaultKind | null => {
    let r = draws(JSON.stringify([route, eventId]))('fault');
    for (const kind of FAULT_ORDER) {
      if (r < shares[kind]) return route === 'post' || kind === 'unavailable' ? kind : null;
      r -= shares[kind];
    }
    return null;
  };

  const store = (payload: Record<string, unknown>, amount: number): StoredEvent => {
    const id = typeof payload.id === 'string' && payload.id !== '' ? payload.id : randomUUID();
    const event = { payload, decision: decide(id, amount) };
    stored.set(id, (stored.get(id) ?? 0) + 1);
    latest.set(id, event);
    processedCount++;
    return event;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestNumber = ++requestCount;
    const requestId = `plain-${requestNumber}`;
    const at = performance.now();
    /** Set once the request is authorised and its route known: its answer is recorded. */
    let answering: { method: string; id: string | null; at: number } | null = null;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (answering) answers.push({ ...answering, status });
      const text = JSON.stringify(body);
      res.writeHead(status, {
        ...headers,
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(text)),
        'x-request-id': requestId,
      });
      res.end(text);
    };
    const sendError = (
      status: number,
      errorType: string,
      errorCodes: string[],
      headers: Record<string, string> = {},
    ) => {
      if (status === 404 && options.htmlNotFound) {
        const page =
          '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>\n';
        res.writeHead(404, {
          'content-type': 'text/html',
          'content-length': String(Buffer.byteLength(page)),
          'x-request-id': requestId,
        });
        res.end(page);
        return;
      }
      send(status, { requestId, errorType, errorCodes }, headers);
    };
    // A real reset (RST), so the client sees ECONNRESET rather than a clean close.
    const reset = (): void => {
      if (answering) answers.push({ ...answering, status: null });
      req.socket.resetAndDestroy();
    };

    // The whole body is read first, so a keep-alive connection stays usable whatever the answer.
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    }

    // Not `new URL()`: WHATWG URL parsing resolves %2E segments, and `.` is a valid event id.
    const pathname = (req.url ?? '/').split('?')[0]!;
    const segments = pathname.split('/').slice(1);
    const routeFound =
      req.method === 'POST' && pathname === '/event'
        ? 'post'
        : req.method === 'GET' && segments[0] === 'event' && segments.length === 2 && segments[1] !== ''
          ? 'summary'
          : req.method === 'GET' &&
              segments[0] === 'event' &&
              segments.length === 3 &&
              segments[1] !== '' &&
              segments[2] === 'risk-assessment'
            ? 'assessment'
            : null;
    const route =
      routeFound !== null && routeFound !== 'post' && options.without?.includes(routeFound) ? null : routeFound;

    const given = req.headers['x-client-api-key'];
    if (typeof given !== 'string' || given === '') return sendError(401, 'UNAUTHORIZED', ['API_KEY_MISSING']);
    if (given !== key) return sendError(401, 'UNAUTHORIZED', ['API_KEY_INVALID']);
    if (route === null) return sendError(404, 'NOT_FOUND', ['ROUTE_NOT_FOUND']);
    answering = { method: req.method ?? '', id: route === 'post' ? postedId(chunks) : safeDecode(segments[1]!), at };

    if (route === 'post' && answering.id !== null && throttleFirstPost.has(answering.id)) {
      const seconds = throttleFirstPost.get(answering.id)!;
      throttleFirstPost.delete(answering.id);
      return sendError(503, 'SERVICE_UNAVAILABLE', ['OVERLOADED'], { 'retry-after': String(seconds) });
    }

    // The body is parsed before the draw, which is keyed by the event id it holds.
    let payload: unknown;
    let malformed = false;
    if (route === 'post' && size <= MAX_BODY_BYTES) {
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        malformed = true;
      }
    }
    let pathId: string | null = null;
    if (route !== 'post') {
      try {
        pathId = decodeURIComponent(segments[1]!);
      } catch {
        // Answered 400 BAD_URL below, after any fault drawn for it (keyed by no id).
      }
    }
    const payloadId = (payload as { id?: unknown } | null | undefined)?.id;
    const fault = drawFault(route, route === 'post' ? (typeof payloadId === 'string' ? payloadId : null) : pathId);
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    if (released && requestNumber > (options.holdFrom ?? 0) && (options.holdOnly?.(answering) ?? true)) await released;
    if (fault === 'unavailable') {
      faults.unavailable++;
      return sendError(503, 'SERVICE_UNAVAILABLE', ['OVERLOADED'], { 'retry-after': '0' });
    }

    if (route !== 'post') {
      if (pathId === null) return sendError(400, 'BAD_REQUEST', ['BAD_URL']);
      const event = latest.get(pathId);
      if (!event) return sendError(404, 'NOT_FOUND', ['EVENT_NOT_FOUND']);
      if (route === 'summary') return send(200, summaryOf(event));
      const { actionType, totalRiskScore } = event.decision;
      return send(200, { eventId: pathId, actionType, totalRiskScore, alerts: [], listMatches: [] });
    }

    if (fault === 'resetBefore') {
      faults.resetBefore++;
      return reset();
    }
    if (size > MAX_BODY_BYTES) return sendError(413, 'PAYLOAD_TOO_LARGE', ['BODY_TOO_LARGE']);
    if (malformed) return sendError(400, 'BAD_REQUEST', ['MALFORMED_JSON']);
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      return sendError(400, 'BAD_REQUEST', ['NOT_AN_OBJECT']);
    }
    const body = payload as Record<string, unknown>;
    // A service-side rejection: the fault drawn for this request (if any) is not applied.
    if (typeof body.amount !== 'number') return sendError(422, 'VALIDATION_ERROR', ['amount:REQUIRED']);

    const event = store(body, body.amount);
    if (fault === 'resetAfter') {
      faults.resetAfter++;
      return reset();
    }
    if (fault === 'timeoutAfter') {
      faults.timeoutAfter++;
      return sendError(504, 'SCORING_TIMEOUT', ['SCORING_TIMEOUT']);
    }
    return send(201, event.decision, { location: `/event/${encodeURIComponent(event.decision.id)}` });
  };

  const server = createServer({ keepAlive: true }, (req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => inFlight--);
    handle(req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ requestId: null, errorType: 'INTERNAL_ERROR', errorCodes: ['INTERNAL_ERROR'] }));
      } else {
        req.socket.destroy();
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    stored,
    processed: () => processedCount,
    faults,
    answers,
    maxInFlight: () => maxInFlight,
    inFlight: () => inFlight,
    release: () => release(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
