import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UsageError } from '../../errors/cli-error.js';
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
 *
 * One draw per request picks at most one of the four faults; their shares add up to at most 1.
 */

export interface ChaosSpec {
  unavailable: number;
  timeoutAfter: number;
  resetBefore: number;
  resetAfter: number;
  latencyMs: [number, number];
  retryAfterSeconds: number;
}

type Fault = 'unavailable' | 'timeoutAfter' | 'resetBefore' | 'resetAfter';
const FAULT_KEYS: Record<string, Fault> = { '503': 'unavailable', '504': 'timeoutAfter', 'reset-before': 'resetBefore', 'reset-after': 'resetAfter' };

export function parseChaosSpec(spec: string): ChaosSpec {
  const chaos: ChaosSpec = { unavailable: 0, timeoutAfter: 0, resetBefore: 0, resetAfter: 0, latencyMs: [0, 0], retryAfterSeconds: 1 };
  const bad = (what: string) =>
    new UsageError(`--chaos: ${what}`, 'e.g. --chaos 503=0.1,504=0.05,reset-before=0.02,reset-after=0.02,latency=10-50');
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
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
    } else {
      throw bad(`unknown fault "${key}" (known: 503, 504, reset-before, reset-after, latency, retry-after)`);
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

export function installChaos(app: FastifyInstance, chaos: ChaosSpec, random: () => number = Math.random): void {
  const order: Fault[] = ['unavailable', 'resetBefore', 'timeoutAfter', 'resetAfter'];
  const pick = (): Fault | null => {
    let r = random();
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
    if (maxLatency > 0) {
      const ms = minLatency + random() * (maxLatency - minLatency);
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
    const fault = pick();
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
