import { Command, InvalidArgumentError, Option } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { UsageError } from '../../errors/cli-error.js';
import { withSession } from '../../session.js';
import { concurrencyOption, givenOnCommandLine, wholeNumber } from '../number-options.js';
import type { SubmitOptions } from './options.js';

export type { SubmitOptions } from './options.js';

/*
 * `submit FILE`: argv → one SubmitOptions value, the flag combinations checked here (--resume
 * needs --out); then the work (run.ts), import()ed when it runs, with its dependencies built from
 * the process and the session (deps.ts). `run` is injectable, so a test checks argv → options
 * without doing the work.
 */

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!(n > 0) || !Number.isFinite(n))
    throw new InvalidArgumentError('the rate is a positive number of events per second');
  return n;
}

/** The flags as commander gives them. */
interface SubmitFlags {
  concurrency: number;
  rate?: number;
  maxErrors?: number;
  out?: string;
  rejects?: string;
  resume?: boolean;
  quiet?: boolean;
}

/** Runs the work for the options parsed; replaced in tests. */
export type SubmitRun = (command: Command, options: SubmitOptions) => Promise<void>;

const BATCH_FLAGS = ['concurrency', 'rate', 'maxErrors', 'out', 'rejects', 'resume'] as const;

export function submitCommand(context: CliContext, run?: SubmitRun): Command {
  const runWork: SubmitRun =
    run ??
    (async (command, options) => {
      const [{ run: submit }, { submitDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return withSession(context, command, (session) => submit(options, submitDeps(context, session)));
    });
  return new Command('submit')
    .description(
      'screen one event and show its decision, or a batch of events (JSON Lines, a JSON array, gzip) with a results file',
    )
    .argument(
      '<file>',
      'a JSON file holding one event, a batch file (.jsonl, a JSON array, .gz of either), or - for stdin',
    )
    .addOption(concurrencyOption('batch: requests in flight at once').default(16))
    .addOption(new Option('--rate <n>', 'batch: at most this many requests per second').argParser(positiveNumber))
    .addOption(
      new Option('--max-errors <n>', 'batch: stop after this many lines without a decision').argParser(
        wholeNumber(1, Number.MAX_SAFE_INTEGER, '--max-errors'),
      ),
    )
    .option('--out <file>', 'batch: write one JSON result per input line to this file')
    .option('--rejects <file>', 'batch: write every line that got no decision to this file, as it was')
    .option('--resume', 'batch: continue the run whose results are in --out, skipping lines already settled')
    .option('-q, --quiet', 'batch: no progress display, and no summary unless something failed')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl submit examples/review.json
  $ cat event.json | fraudctl submit -
  $ fraudctl submit event.json --json | jq .actionType
  $ fraudctl submit orders.jsonl.gz --out results.jsonl --rejects rejects.jsonl
  $ fraudctl submit orders.jsonl.gz --out results.jsonl --rejects rejects.jsonl --resume   # after an interrupted run
  $ zcat day.jsonl.gz | fraudctl submit - --concurrency 32 --rate 500 --json > results.jsonl
`,
    )
    .addHelpText(
      'after',
      `
Batch mode is used for a JSON array, more than one line of JSON, a .jsonl/.ndjson name, or any
batch option. Every line gets one result: DECIDED, REJECTED (bad line or refused by the
service), FAILED (no answer; --resume tries it again) or UNKNOWN (sent without an id and the
answer was lost). Exit 0 when every line was decided, 1 when any was not, 130 on Ctrl-C.
A run that writes results (--out, --json) sends one request more: GET /event/{id} of its
first decided event, once, for the service's base currency (baseCurrency on each decided line,
and amountInBaseCurrency for events sent in it; fraudctl help results).
--resume continues the run recorded in --out, against the same service (another is refused,
exit 2) and with its --rejects (taken from the file when left out). --rejects never replaces a
file: not the input, not --out, not one that exists (except the run's own, with --resume).
`,
    )
    .action(async (file: string, flags: SubmitFlags, command: Command) => {
      if (flags.resume && flags.out === undefined)
        throw new UsageError('--resume needs --out: the results file of the run to continue');
      const globals = command.optsWithGlobals<{ json?: boolean; color?: boolean }>();
      await runWork(command, {
        source: file,
        // A batch option given makes a batch, whatever the input holds; without one, its content decides.
        batch: BATCH_FLAGS.some((name) => givenOnCommandLine(command, name)),
        concurrency: flags.concurrency,
        rate: flags.rate ?? null,
        maxErrors: flags.maxErrors ?? null,
        out: flags.out ?? null,
        rejects: flags.rejects ?? null,
        resume: flags.resume === true,
        quiet: flags.quiet === true,
        json: globals.json === true,
        noColor: globals.color === false,
      });
    });
}
