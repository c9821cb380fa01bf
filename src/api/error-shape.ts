/*
 * Whether an answer is the service speaking. The interface (service-interface.md 2.3, 7) says
 * every error is the error shape — `requestId`, `errorType`, `errorCodes`, each nullable — and
 * documents a 404 for `GET /event/{eventId}` only. A proxy's HTML page, a gateway's JSON of its
 * own, or a 404 for a route the server does not have can look like "not found" but say nothing
 * about an event. This module is the one rule the API client applies to every 404, for every
 * command: `show`, `alerts`, `set-state`, `login` and the batch's duplicate check alike.
 */

export interface ErrorShape {
  requestId: string | null;
  errorType: string | null;
  errorCodes: string[];
}

/**
 * The body read as the error shape, or undefined when it is not one: a JSON object with
 * `errorType` or `errorCodes`, each of the three fields (when present) of its documented type.
 * Fields beyond the three are tolerated (a tolerant reader), they decide nothing.
 */
export function readErrorShape(body: unknown): ErrorShape | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (!Object.hasOwn(b, 'errorType') && !Object.hasOwn(b, 'errorCodes')) return undefined;
  const optionalString = (v: unknown) => v === undefined || v === null || typeof v === 'string';
  if (!optionalString(b.errorType) || !optionalString(b.requestId)) return undefined;
  const codes = b.errorCodes;
  if (!(codes === undefined || codes === null || (Array.isArray(codes) && codes.every((c) => typeof c === 'string'))))
    return undefined;
  return {
    requestId: typeof b.requestId === 'string' ? b.requestId : null,
    errorType: typeof b.errorType === 'string' ? b.errorType : null,
    errorCodes: Array.isArray(codes) ? (codes as string[]) : [],
  };
}

/** The code the service (and the sandbox) gives for an event it does not have. */
export const EVENT_NOT_FOUND = 'EVENT_NOT_FOUND';

/** Words that make a code about the request's route rather than about an event. */
const ROUTE_WORDS = new Set(['ROUTE', 'PATH', 'ENDPOINT', 'URL', 'URI', 'HANDLER', 'OPERATION']);

/** The first code (or errorType) that names a route — ROUTE_NOT_FOUND, NO_SUCH_PATH, … — unless the event-not-found code is there too. */
export function routeCode(shape: ErrorShape): string | undefined {
  if (shape.errorCodes.includes(EVENT_NOT_FOUND)) return undefined;
  return [...shape.errorCodes, ...(shape.errorType === null ? [] : [shape.errorType])].find((code) =>
    code
      .toUpperCase()
      .split(/[^A-Z0-9]+/)
      .some((word) => ROUTE_WORDS.has(word)),
  );
}

/**
 * What a 404 means: the service's own "not found" (`service`), or an answer that is not the
 * service's (`foreign`, with the reason). Only the first may be read as "no such event".
 */
export type NotFoundReading =
  | { kind: 'service'; shape: ErrorShape }
  | { kind: 'foreign'; reason: 'not-json' | 'not-error-shape' | 'route'; code?: string };

/** `parsed` is the body as JSON, or undefined when it was not JSON (or empty). */
export function readNotFound(parsed: { value: unknown } | undefined): NotFoundReading {
  if (parsed === undefined) return { kind: 'foreign', reason: 'not-json' };
  const shape = readErrorShape(parsed.value);
  if (!shape) return { kind: 'foreign', reason: 'not-error-shape' };
  const code = routeCode(shape);
  if (code !== undefined) return { kind: 'foreign', reason: 'route', code };
  return { kind: 'service', shape };
}

/**
 * Answers a proxy, gateway or throttle in front of the service may give in words of its own
 * (an nginx HTML page for a 502, a CDN's 429, a body-size limit's 413), and a refused key, which
 * stops a run either way: their shape says nothing about the URL.
 */
const ANSWERED_IN_FRONT: ReadonlySet<number> = new Set([401, 403, 413, 429, 502, 503, 504]);

/** Statuses the service never gives for its routes: a server that has no such route or method (`python3 -m http.server`: 501). */
const NO_SUCH_METHOD: ReadonlySet<number> = new Set([405, 501]);

/**
 * What an error answer other than a 404 means: the service's (`service`), or not (`foreign`,
 * with the reason): a 405 or 501, or a body that is not JSON or not the error shape. Only the
 * service's may be read as what the status says; a batch stops at the first foreign one.
 */
export function readErrorAnswer(
  status: number,
  parsed: { value: unknown } | undefined,
): { kind: 'service' } | { kind: 'foreign'; reason: 'not-json' | 'not-error-shape' | 'method' } {
  if (ANSWERED_IN_FRONT.has(status)) return { kind: 'service' };
  if (NO_SUCH_METHOD.has(status)) return { kind: 'foreign', reason: 'method' };
  if (parsed === undefined) return { kind: 'foreign', reason: 'not-json' };
  if (!readErrorShape(parsed.value)) return { kind: 'foreign', reason: 'not-error-shape' };
  return { kind: 'service' };
}
