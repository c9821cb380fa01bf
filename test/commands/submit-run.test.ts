import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/submit/run.js';
import type { SubmitDeps } from '../../src/commands/submit/deps.js';
import type { SubmitOptions } from '../../src/commands/submit/options.js';
import { outputStream } from '../../src/commands/room-deps.js';
import { serviceNamed } from '../../src/profiles/service-name.js';
import { makeLines, readResultsFile } from '../support/batch-events.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { ran, sessionFor, type PrintingDeps } from '../support/room-deps.js';
import { listen } from '../support/listen.js';

/*
 * submit's work through run(options, deps) against a real sandbox on port 0, with deps the test
 * builds: one event (its decision, --json), a batch with --out (the results file's lines, a
 * line rejected). The command as fraudctl runs it: submit.test.ts and the submit-batch files.
 */

const cli = useSandboxInProcess();
let fileNo = 0;
const path = (name: string) => join(cli.dir, `run-${++fileNo}-${name}`);
const file = (name: string, content: string) => {
  const at = path(name);
  writeFileSync(at, content);
  return at;
};

const options = (overrides: Partial<SubmitOptions>): SubmitOptions => ({
  source: '-',
  batch: false,
  concurrency: 4,
  rate: null,
  maxErrors: null,
  out: null,
  rejects: null,
  resume: false,
  quiet: false,
  json: false,
  noColor: false,
  ...overrides,
});

/** A stream that keeps what is written, as the process's stdout or stderr off a terminal. */
function sink(): Writable & { text: string } {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      stream.text += chunk.toString();
      done();
    },
  }) as Writable & { text: string };
  stream.text = '';
  return stream;
}

/**
 * The real deps' shape: the session of a sandbox on port 0 (or of `url`) behind every client and
 * setting; stdin holds `input`; a Ctrl-C comes when `shutdown` resolves (never, unless given).
 */
function deps(
  input = '',
  { url = cli.sb.url, shutdown = new Promise<never>(() => {}) }: { url?: string; shutdown?: Promise<unknown> } = {},
): SubmitDeps & PrintingDeps {
  const out = sink();
  const err = sink();
  const stdin = new PassThrough();
  stdin.end(input);
  const session = sessionFor(url);
  return {
    get written() {
      return { stdout: out.text, stderr: err.text };
    },
    stdout: outputStream(out),
    stderr: outputStream(err),
    env: {},
    streams: {
      stdin,
      stdout: out,
      stderr: err,
      waitForShutdown: () => shutdown.then(() => 'SIGINT' as const),
      onStdoutClosed: () => () => {},
    },
    client: (o) => session.client(o),
    poolClient: (o) => session.client(o),
    service: async () => serviceNamed((await session.settings()).baseUrl, session.context.env),
    retries: async () => (await session.settings()).retries,
    serviceFlags: ['--profile', 'staging'],
  };
}

const review = readFileSync('examples/review.json', 'utf8');

describe('submit: run(options, deps), one event', () => {
  it('shows the decision: its headline, score and the rules matched; nothing on stderr', async () => {
    const d = deps();
    const result = await ran(run(options({ source: file('review.json', review) }), d), d);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^REVIEW {2}score 50\/100 {2}event \S+ {2}state PENDING_REVIEW$/);
    expect(result.stdout).toContain('high_amount');
    expect(result.stdout).toContain('country_mismatch');
    expect(result.stderr).toBe('');
  });

  it('--json: exactly the service body, from stdin', async () => {
    const payload = { ...(JSON.parse(review) as Record<string, unknown>), id: 'run-json-1' };
    const d = deps(JSON.stringify(payload));
    await run(options({ json: true }), d);
    const replay = await cli.sb.call('POST', '/event', { body: payload });
    expect(replay.status).toBe(200);
    expect(JSON.parse(d.written.stdout)).toStrictEqual(replay.json);
    expect(d.written.stderr).toBe('');
  });

  it('an event the service refuses: exit 5 naming the field, nothing printed', async () => {
    const d = deps(JSON.stringify({ id: 'run-refused-1', currency: 'EUR' }));
    const result = await ran(run(options({}), d), d);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: .*422 VALIDATION_ERROR: .*amount:REQUIRED/);
  });
});

describe('submit: run(options, deps), a Ctrl-C while the event is on its way', () => {
  it('ends at once, exit 130: the event may or may not be stored, and the command that checks it', async () => {
    let arrived!: () => void;
    const atServer = new Promise<void>((resolve) => (arrived = resolve));
    // A service that takes the event and never answers: the Ctrl-C comes while it is on its way.
    const silent = await listen((req) => {
      req.resume();
      req.on('end', arrived);
    });
    const d = deps(JSON.stringify({ id: 'run-int-1', amount: 10, currency: 'EUR' }), {
      url: silent.url,
      shutdown: atServer,
    });
    const result = await ran(run(options({}), d), d);
    expect(result).toStrictEqual({
      code: 130,
      stdout: '',
      stderr:
        'error: interrupted: the event was sent, or about to be, and may or may not have been stored\n' +
        'check with: fraudctl show run-int-1\n',
    });
  });
});

describe('submit: run(options, deps), a batch', () => {
  it('--out: a header naming the service, then one result per line in input order; summary on stderr; exit 0', async () => {
    const out = path('results.jsonl');
    const d = deps();
    const input = file('batch.jsonl', `${makeLines('run-batch', 3).join('\n')}\n`);
    const result = await ran(run(options({ source: input, batch: true, out }), d), d);
    expect(result.code, result.stderr).toBe(0);
    const { header, results } = readResultsFile(out);
    expect(header).toStrictEqual({
      fraudctl: 'results',
      version: 1,
      command: 'submit',
      service: new URL(cli.sb.url).origin,
      options: { rejects: null },
      marksSends: true,
      closed: true,
    });
    expect(results.map((r) => [r.line, r.column, r.id, r.outcome, r.status])).toStrictEqual([
      [1, 1, 'run-batch-1', 'DECIDED', 201],
      [2, 1, 'run-batch-2', 'DECIDED', 201],
      [3, 1, 'run-batch-3', 'DECIDED', 201],
    ]);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/Batch done: 3 events/);
  });

  it('a line that is not JSON and one the service refuses: REJECTED each, kept in --rejects as they were, exit 1 saying where to look', async () => {
    const out = path('results.jsonl');
    const rejects = path('rejects.jsonl');
    const [first, third] = makeLines('run-rejected', 3).filter((_, i) => i !== 1);
    const refused = JSON.stringify({ id: 'run-rejected-4', currency: 'EUR' });
    const input = file('batch.jsonl', `${first}\n{"id": "run-rejected-2",\n${third}\n${refused}\n`);
    const d = deps();
    const result = await ran(run(options({ source: input, batch: true, out, rejects }), d), d);
    expect(result.code).toBe(1);
    const lines = readResultsFile(out).results.map((r) => [r.line, r.outcome, r.status, r.errorCodes]);
    expect(lines.sort((a, b) => (a[0] as number) - (b[0] as number))).toStrictEqual([
      [1, 'DECIDED', 201, []],
      [2, 'REJECTED', null, ['NOT_JSON']],
      [3, 'DECIDED', 201, []],
      [4, 'REJECTED', 422, ['amount:REQUIRED']],
    ]);
    expect(readFileSync(rejects, 'utf8')).toBe(`{"id": "run-rejected-2",\n${refused}\n`);
    // The hint to send them again reaches the same service: the run's flags that chose it.
    expect(result.stderr).toMatch(
      /to send them again: fraudctl submit \S*run-\d+-rejects\.jsonl'? --profile staging\n/,
    );
    expect(result.stderr.trimEnd().split('\n').slice(-2)).toStrictEqual([
      'error: 2 of 4 events got no decision',
      `see ${out}; ${rejects} holds those lines to send again`,
    ]);
  });
});
