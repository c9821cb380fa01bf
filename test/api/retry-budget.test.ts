import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type RequestControl } from '../../src/api/api-client.js';
import { failureWords } from '../../src/failures/failure-words.js';
import { failureMessages } from '../../src/failures/failure-messages.js';
import { NetworkError } from '../../src/api/api-error.js';
import { RetryBudget } from '../../src/api/retry-budget.js';
import { json, startFakeServer, type FakeServer } from '../support/fake-server.js';

describe('RetryBudget (AWS standard mode)', () => {
  it('pays 5 per retry and 10 per timeout retry from 500 tokens, then refuses and says it is spent', () => {
    const budget = new RetryBudget();
    for (let i = 0; i < 50; i++) expect(budget.acquire('timeout')).toBe(10);
    expect(budget.available).toBe(0);
    expect(budget.spent).toBe(false);
    expect(budget.acquire('error')).toBe(false);
    expect(budget.spent).toBe(true);
    expect(budget.granted).toBe(50);
  });

  it("gives back what a successful request's retries took, and 1 for a success without retries, never above capacity", () => {
    const budget = new RetryBudget({ capacity: 20, retryCost: 5, timeoutCost: 10, successRefill: 1 });
    expect(budget.acquire('error')).toBe(5);
    expect(budget.acquire('error')).toBe(5);
    budget.succeeded(10);
    expect(budget.available).toBe(20);
    budget.succeeded(0);
    expect(budget.available).toBe(20);
    budget.acquire('timeout');
    budget.succeeded(0);
    expect(budget.available).toBe(11);
  });
});

describe('ApiClient under a RequestControl', () => {
  let server: FakeServer | undefined;
  afterEach(() => server?.close());

  function control(budget: RetryBudget, log: string[]): RequestControl {
    return {
      beforeAttempt: () => {
        log.push('attempt');
        return Promise.resolve();
      },
      allowRetry: (kind) => {
        const cost = budget.acquire(kind);
        log.push(`retry:${cost}`);
        return cost;
      },
      onAnswer: (status) => log.push(`answer:${status}`),
      retryWait: async (wait) => {
        log.push('wait');
        await wait;
      },
      onThrottle: (ms) => log.push(`throttle:${ms}`),
      onSettled: (cost) => log.push(`settled:${cost}`),
    };
  }

  it('asks before every attempt and retry, reports every answer and Retry-After (as it came), waits through the control, and settles with the retry cost', async () => {
    server = await startFakeServer();
    server.script(
      json(503, { errorType: 'OVERLOADED', errorCodes: [] }, { 'retry-after': '120' }),
      json(201, { id: 'a', actionType: 'APPROVE', totalRiskScore: 1 }),
    );
    const log: string[] = [];
    const client = new ApiClient({
      baseUrl: server.url,
      apiKey: 'k',
      describe: failureMessages(failureWords()),
      timeoutMs: 200_000,
      env: {},
      control: control(new RetryBudget(), log),
      sleep: () => Promise.resolve(),
    });
    const res = await client.submitEventText('{"id":"a","amount":1}', 'a');
    await client.close();
    expect(res.attempts).toBe(2);
    expect(log).toEqual([
      'attempt',
      'answer:503',
      'throttle:120000',
      'retry:5',
      'wait',
      'attempt',
      'answer:201',
      'settled:5',
    ]);
    expect(server.requests[1]!.body).toBe('{"id":"a","amount":1}');
  });

  it('gives up at once, as a budget failure, when the budget refuses a retry, keeping the attempts made', async () => {
    server = await startFakeServer();
    server.script(
      json(503, { errorType: 'OVERLOADED', errorCodes: [] }),
      json(503, { errorType: 'OVERLOADED', errorCodes: [] }),
    );
    const budget = new RetryBudget({ capacity: 5, retryCost: 5, timeoutCost: 10, successRefill: 1 });
    const client = new ApiClient({
      baseUrl: server.url,
      apiKey: 'k',
      describe: failureMessages(failureWords()),
      timeoutMs: 10_000,
      env: {},
      control: control(budget, []),
      sleep: () => Promise.resolve(),
    });
    const error = await client.getEvent('x').catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).failure).toBe('budget');
    expect((error as NetworkError).attempts).toBe(2);
    expect((error as NetworkError).message).toMatch(/retry budget is spent/);
    expect(server.requests).toHaveLength(2);
    expect(budget.spent).toBe(true);
  });
});
