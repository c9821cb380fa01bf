import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { inputError } from '../sandbox-error.js';
import { seededDraws, type RequestDraws } from './chaos-draws.js';
import { errorBody } from './error-replies.js';

/*
 * Fault injection for testing clients (`--chaos SPEC`), on the /event routes only.
 *
 *   503=0.1            answer 10% of requests 503 OVERLOADED with Retry-After, before any work
 *   504=0.05           do the work (the event is stored), then answer 504 SCORING_TIMEOUT
 *   reset-before=0.02  drop the connection before any work
 *   reset-after=0.02   do the work, then drop the connection without answering
 *   latency=20-200     add 20 to 200 ms (uniform) before the work; `latency=50` for a fixed delay
 *   retry-after=2      the Retry-After seconds sent with 503 (default 1)
 *   seed=42            draw from the seed instead of Math.random, so that a run can be replayed
 *
 * One draw per request picks at most one of the four faults; their shares add up to at most 1.
 *
 * With a seed, a request's draws depend on the seed, the request's identity (method, route,
 * merchant and event id: the path's for GET and PATCH, the body's `id` for POST) and how many
 * requests of that identity came before (chaos-draws.ts), never on arrival order: the same
 * input meets the same faults at any concurrency. A POST without an id has no identity of its
 * own; those count as one identity, so their draws follow their arrival order and are
 * reproducible only when they are sent one at a time.
 */

export interface ChaosSpec {
  unavailable: number;
  timeoutAfter: number;
  resetBefore: number;
  resetAfter: number;
  latencyMs: [number, number];
  retryAfterSeconds: number;
  /** null: Math.random. */
  seed: number | null;
}

type Fault = 'unavailable' | 'timeoutAfter' | 'resetBefore' | 'resetAfter';
const FAULT_KEYS: Record<string, Fault> = {
  '503': 'unavailable',
  '504': 'timeoutAfter',
  'reset-before': 'resetBefore',
  'reset-after': 'resetAfter',
};

export function parseChaosSpec(spec: string): ChaosSpec {
  const chaos: ChaosSpec = {
    unavailable: 0,
    timeoutAfter: 0,
    resetBefore: 0,
    resetAfter: 0,
    latencyMs: [0, 0],
    retryAfterSeconds: 1,
    seed: null,
  };
  const bad = (what: string) =>
    inputError(
      `--chaos: ${what}`,
      'e.g. --chaos 503=0.1,504=0.05,reset-before=0.02,reset-after=0.02,latency=10-50,seed=42',
    );
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key, value, ...rest] = part.split('=');
    if (key === undefined || value === undefined || rest.length > 0) throw bad(`"${part}" is not key=value`);
    const fault = FAULT_KEYS[key];
    if (fault) {
      const share = Number(value);
      if (!(share >= 0 && share <= 1)) throw bad(`${key} takes a share between 0 and 1, not "${value}"`);
      chaos[fault] = share;
    } else if (key === 'latency') {
      const m = /^(\d+)(?:-(\d+))?$/.exec(value);
      if (!m) throw bad(`latency takes milliseconds, MIN-MAX or one value, not "${value}"`);
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : Number(m[2]);
      if (max < min) throw bad(`latency ${value}: the maximum is below the minimum`);
      chaos.latencyMs = [min, max];
    } else if (key === 'retry-after') {
      if (!/^\d+$/.test(value)) throw bad(`retry-after takes whole seconds, not "${value}"`);
      chaos.retryAfterSeconds = Number(value);
    } else if (key === 'seed') {
      // A safe integer, so that the seed in the hashed key is the one written (1e21 would not be).
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
        throw bad(`seed takes a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not "${value}"`);
      chaos.seed = Number(value);
    } else {
      throw bad(`unknown fault "${key}" (known: 503, 504, reset-before, reset-after, latency, retry-after, seed)`);
    }
  }
  if (chaos.unavailable + chaos.timeoutAfter + chaos.resetBefore + chaos.resetAfter > 1) {
    throw bad('the shares of 503, 504, reset-before and reset-after add up to more than 1');
  }
  return chaos;
}

declare module 'fastify' {
  interface FastifyRequest {
    chaosFault: Fault | null;
  }
}

/** What makes two requests "the same" for seeded draws; JSON so that no id can pose as another part. */
function requestIdentity(request: FastifyRequest): string {
  const id =
    request.method === 'POST'
      ? (request.body as { id?: unknown } | undefined)?.id
      : (request.params as { eventId?: unknown }).eventId;
  return JSON.stringify([
    request.method,
    request.routeOptions.url,
    request.merchantId,
    typeof id === 'string' ? id : null,
  ]);
}

export function installChaos(app: FastifyInstance, chaos: ChaosSpec): void {
  const order: Fault[] = ['unavailable', 'resetBefore', 'timeoutAfter', 'resetAfter'];
  const seeded = chaos.seed === null ? null : seededDraws(chaos.seed);
  const pick = (r: number): Fault | null => {
    for (const f of order) {
      if (r < chaos[f]) return f;
      r -= chaos[f];
    }
    return null;
  };
  const [minLatency, maxLatency] = chaos.latencyMs;
  app.decorateRequest('chaosFault', null);

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.url?.startsWith('/event')) return;
    // Counted before the latency wait: a request's occurrence must not depend on how long others wait.
    const draw: RequestDraws = seeded ? seeded(requestIdentity(request)) : Math.random;
    if (maxLatency > 0) {
      const ms = minLatency + draw('latency') * (maxLatency - minLatency);
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
    const fault = pick(draw('fault'));
    request.chaosFault = fault;
    if (fault === 'unavailable') {
      reply.code(503).header('retry-after', String(chaos.retryAfterSeconds));
      return reply.send(errorBody(request, 503, ['OVERLOADED']));
    }
    if (fault === 'resetBefore') {
      reply.hijack();
      request.raw.socket.destroy();
      return reply;
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.chaosFault === 'timeoutAfter' && reply.statusCode < 400) {
      reply.code(504).header('content-type', 'application/json; charset=utf-8').removeHeader('location');
      return JSON.stringify(errorBody(request, 504, ['SCORING_TIMEOUT']));
    }
    if (request.chaosFault === 'resetAfter') request.raw.socket.destroy();
    return payload;
  });
}
