import { CliError, ExitCode, type ExitCodeValue } from '../../errors/cli-error.js';
import { plural } from '../../render/counts.js';
import type { EvaluateDeps } from './deps.js';
import type { EvaluateOptions } from './options.js';
import { openInput } from './input-files.js';
import { claim, readOutcomes } from './read-outcomes.js';
import { BaseCurrency, EventSources } from './read-results.js';
import { classifyFailure } from '../../failures/failure-kind.js';
import { baseCurrencyOf } from '../../contract/currency.js';
import { readEvents } from './read-events.js';
import { ReportTally, type EvaluationReport } from './report.js';
import { renderTerminal } from './render-terminal.js';
import { renderJson } from './render-json.js';
import { renderCsv } from './render-csv.js';

/*
 * `evaluate`: every input opened first (a missing file is one line, exit 2, before anything),
 * the outcomes read whole (an id → fraud map), then the results streamed through the figures;
 * events a line cannot tell enough of are read from the service. Then one rendering of the
 * report. Events that could not be read are counted in it and end the run with their exit code:
 * a report that lacks them never looks whole.
 */

export async function run(options: EvaluateOptions, deps: EvaluateDeps): Promise<void> {
  for (const file of options.results) await (await openInput(file, 'a results file of fraudctl submit --out')).close();
  if (options.from !== null && options.from !== '-')
    await (await openInput(options.from, 'a list of event ids')).close();
  for (const file of options.events) await (await openInput(file, 'an events file of --events')).close();
  const outcomes = await readOutcomes(options.labels, options.mapping);
  const replay = options.rules === null ? null : await (await import('./replay-run.js')).prepareReplay(options.rules);
  const tally = new ReportTally(
    outcomes,
    { ...options, now: deps.now() },
    replay ? (event) => replay.add(event) : undefined,
  );
  const base = new BaseCurrency(options.baseCurrency, async (id) => {
    try {
      return baseCurrencyOf((await (await deps.events(options.concurrency)).getEvent(id)).body);
    } catch (error) {
      const failure = classifyFailure(error);
      if (failure.stopsRun) throw failure.error;
      return null;
    }
  });
  const sources = new EventSources(
    (id) => claim(outcomes, id),
    (facts) => tally.add(facts),
    base,
  );
  for (const file of options.results) await sources.readResultsFile(file);
  if (options.from !== null) await sources.readIds(options.from, deps);
  const unread = await readEvents(sources.toRead, deps, options.concurrency, (facts) => tally.add(facts));
  const replayed = replay ? await replay.finish(deps, options) : null;
  const report = tally.report(options.labels, sources.counts, unread, replayed, {
    baseCurrency: base.known,
    read: sources.toRead.length,
  });
  await render(report, options, deps);
  if (unread.length > 0) {
    const worst = unread.reduce<ExitCodeValue>(
      (code, u) => Math.max(code, u.exitCode) as ExitCodeValue,
      ExitCode.FAILURE,
    );
    throw new CliError(
      `${plural(unread.length, 'event', 'events')} could not be read: the figures above leave them out`,
      worst,
      'they are listed in the report (--json: events.unread)',
    );
  }
}

async function render(report: EvaluationReport, options: EvaluateOptions, deps: EvaluateDeps): Promise<void> {
  if (options.html !== null) {
    const { writeHtmlReport } = await import('./render-html.js');
    await writeHtmlReport(options.html, report);
  }
  if (options.format === 'json') deps.stdout.write(renderJson(report));
  else if (options.format === 'csv') deps.stdout.write(renderCsv(report, options.csvFigure ?? 'decisions'));
  else deps.stdout.write(renderTerminal(report, options, deps));
  if (options.html !== null) deps.stderr.write(`report written to ${options.html}\n`);
}
