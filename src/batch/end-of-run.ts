import type { CliContext } from '../process/cli-context.js';
import { CliError, ExitCode } from '../errors/cli-error.js';
import { jsonForTerminal } from '../render/terminal-text.js';
import { count } from '../render/counts.js';
import type { PoolRun } from './run-pool.js';

/*
 * How every job on the pool ends, alike: stdout closed under its results, then the summary (JSON
 * to stdout when a results file holds the results, else to stderr; text to stderr), then the
 * run's own failure — the input, a stop of the whole pool, an interrupt. What is left (items
 * without the result asked for) is the job's to word, after this returns.
 */

export interface RunEnding {
  /** What an item is called in counts: `events`, `ids`. */
  unit: string;
  /** What the stdout-closed error says stopped and what its unwritten items were: `the batch` and `sent`. */
  stopped: string;
  unwrittenWere: string;
  /** What a --resume after a stdout-closed stop finds: `what was stored`. */
  resumeFinds: string;
  /** Items settled (recorded or skipped) in the run. */
  done: number;
  /** The results file, or null. */
  out: string | null;
  json: boolean;
  /** Whether the text summary is printed (--quiet leaves it out unless something failed). */
  showSummary: boolean;
  summaryJson(): unknown;
  summaryText(): string;
}

/** The singular of a unit of counts: `events` → `event`. */
const one = (unit: string) => unit.replace(/s$/, '');

/** Prints the summary and throws the run's own failure, if it had one; returns when the job's own counts are what is left to say. */
export function endOfRun(context: Pick<CliContext, 'stdout' | 'stderr'>, run: PoolRun, ending: RunEnding): void {
  const { unit } = ending;
  if (run.stopped === 'output-closed') {
    throw new CliError(
      `stdout was closed after ${count(ending.done - run.unwritten)} results: ${ending.stopped} stopped; ${count(run.unwritten)} ${run.unwritten === 1 ? `${one(unit)} was` : `${unit} were`} ${ending.unwrittenWere} whose results could not be written`,
      ExitCode.FAILURE,
      `to keep every result, write them to a file with --out FILE (then --resume finds ${ending.resumeFinds})`,
    );
  }
  if (ending.json) {
    // The summary goes to stdout unless stdout already carries the results.
    const text = `${jsonForTerminal(ending.summaryJson(), true)}\n`;
    if (ending.out !== null) context.stdout.write(text);
    else context.stderr.write(text);
  } else if (ending.showSummary) {
    context.stderr.write(`${ending.summaryText()}\n`);
  }
  if (run.inputError) throw run.inputError;
  if (run.fatal) throw run.fatal;
  if (run.stopped === 'interrupted' || run.stopped === 'aborted') {
    throw new CliError(
      `interrupted after ${count(ending.done)} ${unit}`,
      ExitCode.INTERRUPTED,
      ending.out !== null ? 'continue with the same command and --resume' : undefined,
    );
  }
}
