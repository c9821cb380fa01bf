import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Session } from '../../../src/session.js';
import type { EvaluateDeps, EventReader } from '../../../src/commands/evaluate/deps.js';
import type { EnvFacts } from '../../../src/commands/room-deps.js';
import type { EvaluateOptions } from '../../../src/commands/evaluate/options.js';
import { DEMO_KEY } from '../../support/sandbox.js';

/*
 * evaluate's tests build its dependencies themselves: streams that keep what is written, a fixed
 * clock, the environment facts of the case, and a client of a real sandbox on port 0 (or one that
 * fails the test when anything is read, for the files that need no request).
 */

export interface Written {
  stdout: string;
  stderr: string;
}

export interface TestDeps extends EvaluateDeps {
  written: Written;
  /** How many clients were asked for (0: nothing was read). */
  clientsMade: number;
  /** The requests the clients sent, by call. */
  reads: { getEvent: number; getRiskAssessment: number };
  close(): Promise<void>;
}

export const NOW = Date.parse('2026-12-01T00:00:00Z');

export function testDeps(
  options: { service?: string; tty?: boolean; columns?: number; env?: EnvFacts; now?: number } = {},
): TestDeps {
  const written: Written = { stdout: '', stderr: '' };
  const tty = options.tty ?? false;
  const columns = tty ? (options.columns ?? 100) : null;
  const sessions: Session[] = [];
  const deps: TestDeps = {
    written,
    clientsMade: 0,
    reads: { getEvent: 0, getRiskAssessment: 0 },
    stdout: { write: (t) => void (written.stdout += t), isTTY: tty, columns },
    stderr: { write: (t) => void (written.stderr += t), isTTY: tty, columns },
    stdin: new PassThrough(),
    env: options.env ?? {},
    platform: 'linux',
    now: () => options.now ?? NOW,
    events: async (connections): Promise<EventReader> => {
      deps.clientsMade++;
      if (options.service === undefined) throw new Error('this case must read nothing from the service');
      const context = {
        stdin: new PassThrough(),
        stdout: new PassThrough(),
        stderr: new PassThrough(),
        env: {},
        debug: false,
        waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
        onStdoutClosed: () => () => {},
      };
      const session = new Session(context, {}, { profile: 'test', baseUrl: options.service, apiKey: DEMO_KEY });
      sessions.push(session);
      const client = await session.client({ connections });
      return {
        getEvent: (id) => (deps.reads.getEvent++, client.getEvent(id)),
        getRiskAssessment: (id) => (deps.reads.getRiskAssessment++, client.getRiskAssessment(id)),
      };
    },
    close: async () => {
      await Promise.all(sessions.map((s) => s.close()));
    },
  };
  return deps;
}

export function options(overrides: Partial<EvaluateOptions> & Pick<EvaluateOptions, 'labels'>): EvaluateOptions {
  return {
    results: [],
    from: null,
    mapping: { idColumn: null, labelColumn: null, fraudWhen: [] },
    maturityMs: null,
    by: null,
    thresholds: { review: 30, decline: 70 },
    format: 'json',
    csvFigure: null,
    html: null,
    baseCurrency: null,
    rules: null,
    events: [],
    concurrency: 4,
    noColor: false,
    ...overrides,
  };
}

/** A results line as submit writes it now, with what evaluate needs. */
export function resultLine(
  line: number,
  id: string,
  actionType: string,
  score: number,
  ruleIds: string[],
  amount: number,
  eventDate = '2026-11-20T10:00:00Z',
): string {
  return JSON.stringify({
    line,
    id,
    outcome: 'DECIDED',
    status: 201,
    actionType,
    totalRiskScore: score,
    errorType: null,
    errorCodes: [],
    attempts: 1,
    latencyMs: 5,
    column: 1,
    idAssigned: false,
    alreadyExisted: false,
    stateNow: null,
    ruleIds,
    eventDate,
    amount,
    currency: 'EUR',
    amountInBaseCurrency: amount,
  });
}

export const HEADER = JSON.stringify({
  fraudctl: 'results',
  version: 1,
  command: 'submit',
  service: 'http://127.0.0.1:1',
  options: { rejects: null },
  closed: true,
});

export function writeFile(dir: string, name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
