import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/process/cli-context.js';
import { CliError, ExitCode, UsageError } from '../../src/errors/cli-error.js';
import { endOfRun, type RunEnding } from '../../src/batch/end-of-run.js';
import type { PoolRun } from '../../src/batch/run-pool.js';

/* How both jobs on the pool end (submit's batch, many-id set-state), as one table of runs. */

function streams() {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c: Buffer) => out.push(c.toString()));
  stderr.on('data', (c: Buffer) => err.push(c.toString()));
  const context = {
    stdin: new PassThrough(),
    stdout,
    stderr,
    env: {},
    debug: false,
    waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    onStdoutClosed: () => () => {},
  } satisfies CliContext;
  return { context, out: () => out.join(''), err: () => err.join('') };
}

const run = (over: Partial<PoolRun> = {}): PoolRun => ({
  stopped: null,
  fatal: undefined,
  inputError: undefined,
  unwritten: 0,
  retries: 0,
  throttled: 0,
  resumed: false,
  ...over,
});
const ending = (over: Partial<RunEnding> = {}): RunEnding => ({
  unit: 'events',
  stopped: 'the batch',
  unwrittenWere: 'sent',
  resumeFinds: 'what was stored',
  done: 10,
  out: null,
  json: false,
  showSummary: true,
  summaryJson: () => ({ done: 10 }),
  summaryText: () => 'Batch done: 10 events',
  ...over,
});

describe('endOfRun', () => {
  it('a run that went through: the text summary on stderr, nothing thrown', () => {
    const s = streams();
    endOfRun(s.context, run(), ending());
    expect(s.err()).toBe('Batch done: 10 events\n');
    expect(s.out()).toBe('');
  });

  it('--json: the summary on stdout when a results file holds the results, else on stderr', () => {
    const toFile = streams();
    endOfRun(toFile.context, run(), ending({ json: true, out: 'r.jsonl' }));
    expect(JSON.parse(toFile.out())).toEqual({ done: 10 });
    const toStdout = streams();
    endOfRun(toStdout.context, run(), ending({ json: true }));
    expect(JSON.parse(toStdout.err())).toEqual({ done: 10 });
    expect(toStdout.out()).toBe('');
  });

  it('stdout closed: says how many results were lost, before any summary', () => {
    const s = streams();
    const thrown = (() => {
      try {
        endOfRun(
          s.context,
          run({ stopped: 'output-closed', unwritten: 1 }),
          ending({ unit: 'ids', stopped: 'the change', unwrittenWere: 'done', resumeFinds: 'what was done' }),
        );
      } catch (error) {
        return error as CliError;
      }
    })();
    expect(thrown?.message).toBe(
      'stdout was closed after 9 results: the change stopped; 1 id was done whose results could not be written',
    );
    expect(thrown?.hint).toBe(
      'to keep every result, write them to a file with --out FILE (then --resume finds what was done)',
    );
    expect(s.err()).toBe('');
  });

  it('after the summary: the input error, then a fatal stop, then an interrupt (130, --resume with a results file)', () => {
    const input = new UsageError('bad input');
    expect(() =>
      endOfRun(
        streams().context,
        run({ inputError: input, fatal: new CliError('refused key', ExitCode.AUTH) }),
        ending(),
      ),
    ).toThrow(input);
    expect(() =>
      endOfRun(streams().context, run({ fatal: new CliError('refused key', ExitCode.AUTH) }), ending()),
    ).toThrow('refused key');
    const s = streams();
    try {
      endOfRun(s.context, run({ stopped: 'interrupted' }), ending({ out: 'r.jsonl', showSummary: false }));
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({
        message: 'interrupted after 10 events',
        exitCode: ExitCode.INTERRUPTED,
        hint: 'continue with the same command and --resume',
      });
    }
    expect(s.err()).toBe('');
  });
});
