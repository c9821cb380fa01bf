import { Command, Option } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { UsageError } from '../../errors/cli-error.js';
import { withSession } from '../../session.js';
import { concurrencyOption, wholeNumber } from '../number-options.js';
import { parseSla, parseTimeBound, type ReportOptions } from './options.js';

export type { ReportOptions } from './options.js';

/** The default of --read-deadline: 5 minutes for the reads of all decided events. */
const READ_DEADLINE_SECONDS = 300;

/*
 * `report`: argv → one ReportOptions value, the flags parsed strictly here (a bad --since,
 * --until or --sla is exit 2 naming it); then the work (run.ts), import()ed when it runs, with
 * its deps built from the process and the session (deps.ts). `run` is injectable so the flag
 * parsing is tested in-process.
 */

interface ReportFlags {
  log: string[];
  since?: number;
  until?: number;
  sla?: number;
  csv?: boolean;
  concurrency: number;
  includeUnverified?: boolean;
  readDeadline: number;
}

export type ReportRun = (command: Command, options: ReportOptions) => Promise<void>;

export function reportCommand(context: CliContext, run?: ReportRun): Command {
  const runWork: ReportRun =
    run ??
    (async (command, options) => {
      const [{ run: report }, { reportDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return withSession(context, command, (session) => report(options, reportDeps(context, session)));
    });
  return new Command('report')
    .description(
      'how the team is doing, by analyst, from the --log files of review and set-state: decisions by kind and reason, time to decision, age at decision, decisions overturned since',
    )
    .addOption(
      new Option(
        '--log <files...>',
        'the action logs to read (review --log, set-state --log); several files, or a shared one',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--since <time>',
        'only decisions at or after this ISO date or time (UTC unless an offset is given)',
      ).argParser((v) => parseTimeBound('--since', v)),
    )
    .addOption(
      new Option(
        '--until <time>',
        'only decisions before this ISO time; a date alone: through the end of that day',
      ).argParser((v) => parseTimeBound('--until', v)),
    )
    .addOption(
      new Option(
        '--sla <duration>',
        'also count decisions made when the event was older than this (as review --sla: 4h, 30m, 2d, 1d12h)',
      ).argParser(parseSla),
    )
    .option('--csv', 'one CSV row per analyst, for a spreadsheet (RFC 4180)')
    .addOption(
      concurrencyOption('events read at once for their state now and their eventDate (at most 256)').default(8),
    )
    .addOption(
      new Option(
        '--read-deadline <seconds>',
        'the most time the reads of the decided events may take together; ' +
          'events not read by then make the exit non-zero',
      )
        .argParser(wholeNumber(1, 86_400, 'the read deadline (seconds)'))
        .default(READ_DEADLINE_SECONDS),
    )
    .option(
      '--include-unverified',
      "also count lines that break the log's hash chain (edited, inserted, written before lines were chained), " +
        'saying so in every output',
    )
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl report --log team.log
  $ fraudctl report --log monday.log tuesday.log --since 2026-11-24 --until 2026-11-24
  $ fraudctl report --log team.log --since 2026-11-25T08:00Z --sla 4h
  $ fraudctl report --log team.log --json
  $ fraudctl report --log team.log --csv > team.csv
`,
    )
    .addHelpText(
      'after',
      `
A decision is an "ok" line of approve, decline, escalate, fraud or set-state (set-state counted
by the state it set); a "sending" line with no outcome after it counts as an unknown outcome.
Time to decision runs from the analyst's claim of the event in review to the decision (median
and p90, nearest rank). Each decided event is read once (GET) now: its eventDate gives the age
at decision, and a state now other than the one the decision set counts as overturned; only
decisions made at the service this run reads: lines that name another service (a run with
another --profile in the same log) are left out, said with how many and the command that counts
them there. The reads share one --read-deadline; reads that fail as many times in a row as run
at once end them early. The figures are printed either way; an event not read is exit 6 when the
service did not answer, 4 when all were not found, else 1, with why on stderr.

Each line is checked against its log's hash chain (as fraudctl log verify does): a line that
breaks it (edited, removed, reordered, inserted, or written by a fraudctl that did not chain its
lines) is named (file:line and kind) and the report stops, exit 1, before any event is read;
--include-unverified counts it, and every output says how many such lines the figures include
(--json: unverified; --csv: the unverified column; a note on stderr). CR LF line endings and a
missing last line feed are read, with a note; a line cut short or of NUL bytes (a crash) is
skipped with a note. On a terminal: tables fitted to its width and bar charts of the time from
claim to decision and of decisions per hour; --json: one object; --csv: one row per analyst.
The log's fields: fraudctl help log.
`,
    )
    .action(async (flags: ReportFlags, command: Command) => {
      const globals = command.optsWithGlobals<{ json?: boolean; color?: boolean }>();
      const json = Boolean(globals.json);
      if (json && flags.csv) throw new UsageError('--json and --csv: one or the other');
      if (flags.since !== undefined && flags.until !== undefined && flags.since >= flags.until)
        throw new UsageError(
          '--since is not before --until: nothing could be counted',
          'give a --since earlier than --until',
        );
      return runWork(command, {
        files: flags.log,
        since: flags.since ?? null,
        until: flags.until ?? null,
        slaMs: flags.sla ?? null,
        format: json ? 'json' : flags.csv ? 'csv' : 'table',
        concurrency: flags.concurrency,
        includeUnverified: flags.includeUnverified === true,
        readDeadlineSeconds: flags.readDeadline,
        noColor: globals.color === false,
      });
    });
}
