import { statSync } from 'node:fs';
import pMap from 'p-map';
import type { ApiClient } from '../api/api-client.js';
import { abortOnShutdown } from '../process/cli-context.js';
import { stateIn } from '../contract/states.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { errorCode } from '../files/file-errors.js';
import { classifyFailure } from '../failures/failure-kind.js';
import { count, plural } from '../render/counts.js';
import { shellCommand } from '../render/shell-command.js';
import { terminalSafe } from '../render/terminal-text.js';
import type { Session } from '../session.js';
import { readLogRecords, type LogRecord } from './log-records.js';
import { reportCsv, reportJson, reportText, type ReportFacts } from './report-render.js';
import { analystFigures, TeamTally, type EventNow } from './team-tally.js';

/*
 * `fraudctl report --log FILE…`: how the team is doing, from the action logs it keeps and a GET
 * of each decided event now (issue 29, point 6). The files are read whole first (all must be
 * readable, or nothing is sent: exit 2 naming the file), their records put in time order (two
 * analysts' files interleave), tallied (team-tally.ts), then each decided event is read once,
 * `concurrency` at a time through the session's client (the embedded sandbox when nothing is
 * configured), for its state and eventDate. A failure every read would meet (a refused key, not
 * the service) ends the report (src/failures/); an event that cannot be read (deleted, an
 * error) is counted as unchecked. Memory: the records of the logs, a few fields each.
 */

export interface ReportOptions {
  files: readonly string[];
  since: number | null;
  until: number | null;
  slaMs: number | null;
  format: 'table' | 'json' | 'csv';
  concurrency: number;
}

function checkReadable(file: string): void {
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    throw new UsageError(`cannot read the log ${terminalSafe(file)}: ${errorCode(error) === 'ENOENT' ? 'no such file' : errorCode(error)}`, 'give report the --log files that review and set-state wrote');
  }
  if (stat.isDirectory()) throw new UsageError(`${terminalSafe(file)} is a directory`, 'give report the --log files that review and set-state wrote');
}

/** The event's state and eventDate, or why it could not be read; a failure that stops a run is thrown. */
async function eventNow(client: ApiClient, id: string, signal: AbortSignal): Promise<EventNow> {
  try {
    const { body } = await client.getEvent(id);
    const date = typeof body === 'object' && body !== null ? (body as { eventDate?: unknown }).eventDate : undefined;
    const eventDate = typeof date === 'string' ? Date.parse(date) : NaN;
    return { state: stateIn(body), eventDate: Number.isFinite(eventDate) ? eventDate : null };
  } catch (error) {
    if (signal.aborted) throw error;
    const failure = classifyFailure(error);
    if (failure.stopsRun) throw failure.error;
    return { failed: failure.kind };
  }
}

export async function runReport(session: Session, options: ReportOptions): Promise<void> {
  for (const file of options.files) checkReadable(file);
  const records: LogRecord[] = [];
  let lines = 0;
  let unreadable = 0;
  const unreadableIn: string[] = [];
  const withUnreadable: string[] = [];
  for (const file of options.files) {
    let read;
    try {
      read = await readLogRecords(file, (record) => records.push(record));
    } catch (error) {
      throw new CliError(`cannot read the log ${terminalSafe(file)}: ${errorCode(error)}`, ExitCode.FAILURE);
    }
    lines += read.lines;
    unreadable += read.unreadable;
    if (read.unreadable > 0) {
      unreadableIn.push(`${terminalSafe(file)} ${count(read.unreadable)}`);
      withUnreadable.push(file);
    }
  }
  const output = await session.output();
  if (unreadable > 0) output.note(`note: ${plural(unreadable, 'line is', 'lines are')} not a log line this can read (skipped: ${unreadableIn.join(', ')}); ${terminalSafe(shellCommand(['fraudctl', 'log', 'verify', ...withUnreadable]))} says which`);
  // Stable: lines of one time keep the order of their files.
  records.sort((a, b) => a.time - b.time);
  const tally = new TeamTally(options.since ?? -Infinity, options.until ?? Infinity);
  for (const record of records) tally.add(record);
  tally.finish();

  const ids = [...new Set(tally.decisions.map((d) => d.eventId))];
  const now = new Map<string, EventNow>();
  if (ids.length > 0) {
    // Made once, before the reads: concurrent first calls would each start an embedded sandbox.
    const client = await session.client();
    const controller = new AbortController();
    const shutdown = abortOnShutdown(session.context, controller);
    try {
      await pMap(ids, async (id) => now.set(id, await eventNow(client, id, controller.signal)), { concurrency: options.concurrency, signal: controller.signal });
    } catch (error) {
      if (shutdown.interrupted) throw new CliError('interrupted: the report was not finished', ExitCode.INTERRUPTED);
      throw error;
    } finally {
      shutdown.done();
    }
  }
  const facts: ReportFacts = {
    files: options.files,
    since: options.since,
    until: options.until,
    slaMs: options.slaMs,
    lines,
    unreadable,
    eventsRead: [...now.values()].filter((e) => !('failed' in e)).length,
    analysts: analystFigures(tally, now, options.slaMs),
  };
  if (options.format === 'json') output.printJson(reportJson(facts));
  else if (options.format === 'csv') output.print(reportCsv(facts));
  else output.print(reportText(facts, tally.decisions, output.style));
}
