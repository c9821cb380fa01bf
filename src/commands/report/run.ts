import { statSync } from 'node:fs';
import { LineChecks } from '../../action-log/line-trust.js';
import { abortOnShutdown } from '../../process/cli-context.js';
import { stateIn } from '../../contract/states.js';
import { CliError, ExitCode, UsageError, type ExitCodeValue } from '../../errors/cli-error.js';
import { errorCode, fileFailure } from '../../files/file-errors.js';
import { classifyFailure } from '../../failures/failure-kind.js';
import { count, plural } from '../../render/counts.js';
import { shellCommand } from '../../render/shell-command.js';
import { terminalSafe } from '../../render/terminal-text.js';
import { outputOf } from '../room-deps.js';
import type { ReportDeps } from './deps.js';
import type { ReportOptions } from './options.js';
import { LogReadError, readLogRecords } from './log-records.js';
import { reportCsv, reportJson, reportText, type OtherService, type ReportFacts } from './render.js';
import { analystFigures, TeamTally, type EventNow } from './team-tally.js';

/*
 * `fraudctl report --log FILE…`: how the team is doing, from the action logs it keeps and a GET
 * of each decided event now. All files must be readable first (or nothing is read: exit 2
 * naming the file); then they are read a line at a time, merged by time (log-records.ts) and
 * tallied as they stream (team-tally.ts): memory grows with the decisions and decided events,
 * not with the lines (docs/review.md gives the figures).
 *
 * What is believed: each line is checked against its file's hash chain as it is read
 * (action-log/line-trust.ts). A line that breaks it stops the report before any event is read
 * (exit 1, each line named, `log verify` in the hint), unless --include-unverified, when the
 * figures say how many such lines they include.
 *
 * Which service: a decision is compared only with the state on the service its line names. The
 * lines of another service than this run's (a `--profile staging` run in the prod team's log)
 * are left out of the figures, and said apart: how many, at which service, and the command that
 * counts them there. Lines of an older build name no service: they are taken as this run's.
 *
 * The reads: each decided event once, `concurrency` at a time, through the client of deps.ts (the
 * embedded sandbox when nothing is configured), within one deadline for all of them
 * (--read-deadline). A failure every read would meet (a refused key, not the service) ends the
 * report (src/failures/); reads that keep failing (as many in a row as run at once: a service
 * down or hanging) end the reading early. The figures are printed either way, then an event not
 * read makes the exit non-zero, saying how many and why: overturned and age leave those out.
 */

const GIVE_LOGS = 'give report the --log files that review and set-state wrote';

function checkReadable(file: string): void {
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    const { message, hint } = fileFailure(file, error, 'log', GIVE_LOGS);
    throw new UsageError(message, hint);
  }
  if (stat.isDirectory()) {
    const { message, hint } = fileFailure(file, { code: 'EISDIR' }, 'log', GIVE_LOGS);
    throw new UsageError(message, hint);
  }
}

/** A base URL as two lines may spell it (a trailing slash or not); null is the embedded sandbox. */
const sameService = (url: string | null) => (url === null ? null : url.replace(/\/+$/, ''));
export const serviceName = (url: string | null) => (url === null ? 'the embedded sandbox' : terminalSafe(url));

/** `1d12h`, `4h`, `30m`: --sla as the flag takes it back. */
function slaFlag(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const [d, h, m] = [Math.floor(minutes / 1440), Math.floor((minutes % 1440) / 60), minutes % 60];
  return `${d > 0 ? `${d}d` : ''}${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}`;
}

/** This report's command line with `extra` flags, for a hint (the service flags of this run kept). */
function reportCommand(
  deps: Pick<ReportDeps, 'serviceFlags'>,
  options: ReportOptions,
  extra: readonly string[],
  flags = deps.serviceFlags,
): string {
  const iso = (ms: number) => new Date(ms).toISOString();
  return shellCommand([
    'fraudctl',
    'report',
    '--log',
    ...options.files,
    ...(options.since === null ? [] : ['--since', iso(options.since)]),
    ...(options.until === null ? [] : ['--until', iso(options.until)]),
    ...(options.slaMs === null ? [] : ['--sla', slaFlag(options.slaMs)]),
    ...(options.format === 'json' ? ['--json'] : options.format === 'csv' ? ['--csv'] : []),
    ...(options.includeUnverified ? ['--include-unverified'] : []),
    ...extra,
    ...flags,
  ]);
}

/** What was read of the decided events now, by their index in the tally. */
interface EventsNow {
  get(event: number): EventNow | undefined;
  read: number;
  /** Why events were not read: a few words each, and how many. */
  notRead: { why: string; count: number }[];
  exitCode: ExitCodeValue;
  hint: string | undefined;
}

const KIND_WORDS: Readonly<Record<string, string>> = {
  'not-found': 'not found (deleted, or not at this service)',
  network: 'no usable answer',
  unavailable: 'the service unavailable',
  throttled: 'rate limited',
  invalid: 'refused as invalid',
  refused: 'refused',
};

async function readEventsNow(deps: ReportDeps, options: ReportOptions, ids: readonly string[]): Promise<EventsNow> {
  const states: (string | null)[] = new Array<string | null>(ids.length);
  const dates = new Float64Array(ids.length).fill(NaN);
  const done = new Uint8Array(ids.length);
  const failed = new Map<string, { count: number; message: string; exitCode: ExitCodeValue }>();
  let read = 0;
  let stop: 'deadline' | 'failing' | null = null;
  const controller = new AbortController();
  // Made once, before the reads: concurrent first calls would each start an embedded sandbox. The
  // signal ends the reads in flight at the deadline (the client destroys its pool).
  const client = await deps.client({ signal: controller.signal });
  const shutdown = abortOnShutdown(deps, controller);
  const end = (why: 'deadline' | 'failing') => {
    stop ??= why;
    controller.abort();
  };
  const deadline = setTimeout(() => end('deadline'), options.readDeadlineSeconds * 1000);
  const streakLimit = Math.max(3, Math.min(options.concurrency, ids.length));
  let streak = 0;
  let next = 0;
  const worker = async () => {
    while (stop === null && !controller.signal.aborted) {
      const i = next++;
      if (i >= ids.length) return;
      try {
        const { body } = await client.getEvent(ids[i]!);
        const date =
          typeof body === 'object' && body !== null ? (body as { eventDate?: unknown }).eventDate : undefined;
        states[i] = stateIn(body);
        dates[i] = typeof date === 'string' ? Date.parse(date) : NaN;
        done[i] = 1;
        read++;
        streak = 0;
      } catch (error) {
        // Ended by the deadline, a run of failures or Ctrl-C: counted with what was never asked.
        if (controller.signal.aborted) return;
        const failure = classifyFailure(error);
        if (failure.stopsRun) throw failure.error;
        done[i] = 2;
        const seen = failed.get(failure.kind) ?? {
          count: 0,
          message: failure.error.message,
          exitCode: failure.exitCode,
        };
        seen.count++;
        failed.set(failure.kind, seen);
        // An event deleted says nothing of the next; a service that fails every read does.
        if (failure.kind !== 'not-found' && ++streak >= streakLimit) end('failing');
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, ids.length) }, worker));
  } catch (error) {
    controller.abort();
    throw error;
  } finally {
    clearTimeout(deadline);
    shutdown.done();
  }
  if (shutdown.interrupted) throw new CliError('interrupted: the report was not finished', ExitCode.INTERRUPTED);
  const notRead = [...failed].map(([kind, f]) => ({
    why: `${KIND_WORDS[kind] ?? kind}: ${terminalSafe(f.message)}`,
    count: f.count,
  }));
  const failedCount = notRead.reduce((sum, r) => sum + r.count, 0);
  const unasked = ids.length - read - failedCount;
  let hint: string | undefined;
  if (unasked > 0) {
    notRead.push({
      why:
        stop === 'deadline'
          ? `not read within --read-deadline ${options.readDeadlineSeconds}s`
          : `not asked: ${count(streakLimit)} reads in a row had failed`,
      count: unasked,
    });
    const longer = options.readDeadlineSeconds * 4;
    hint =
      stop === 'deadline'
        ? `give the reads longer: ${reportCommand(deps, options, ['--read-deadline', String(longer)])}`
        : `check the service: ${shellCommand(['fraudctl', 'doctor', ...deps.serviceFlags])}`;
  }
  const codes = new Set([...failed.values()].map((f) => f.exitCode));
  if (unasked > 0) codes.add(ExitCode.UNAVAILABLE);
  const exitCode = codes.size === 1 ? [...codes][0]! : ExitCode.FAILURE;
  return {
    get: (i) =>
      done[i] === 1
        ? { state: states[i] ?? null, eventDate: Number.isFinite(dates[i]!) ? dates[i]! : null }
        : done[i] === 2
          ? { failed: 'failed' }
          : undefined,
    read,
    notRead,
    exitCode,
    hint,
  };
}

export async function run(options: ReportOptions, deps: ReportDeps): Promise<void> {
  for (const file of options.files) checkReadable(file);
  const here = sameService(await deps.serviceUrl());
  const tally = new TeamTally(options.since ?? -Infinity, options.until ?? Infinity);
  /** Other services' records, each in a tally of its own: to say how many decisions were left out. */
  const elsewhere = new Map<string | null, { tally: TeamTally; lines: number; profiles: Set<string> }>();
  const checks = new LineChecks();
  let read;
  try {
    read = await readLogRecords(options.files, checks, (record) => {
      const service = record.service === undefined ? here : sameService(record.service);
      if (service === here) return tally.add(record);
      let other = elsewhere.get(service);
      if (other === undefined)
        elsewhere.set(
          service,
          (other = {
            tally: new TeamTally(options.since ?? -Infinity, options.until ?? Infinity),
            lines: 0,
            profiles: new Set(),
          }),
        );
      other.lines++;
      if (record.profile !== null) other.profiles.add(record.profile);
      other.tally.add(record);
    });
  } catch (error) {
    const file = error instanceof LogReadError ? error.file : options.files[0]!;
    throw new CliError(
      `cannot read the log ${terminalSafe(file)}: ${errorCode(error instanceof LogReadError ? error.cause : error)}`,
      ExitCode.FAILURE,
    );
  }
  tally.finish();
  const output = outputOf(deps, { json: options.format === 'json', noColor: options.noColor });
  for (const note of checks.notes()) output.note(note);
  const unreadable = [...read.unreadable.values()].reduce((sum, n) => sum + n, 0);
  if (checks.unverified > 0 && !options.includeUnverified) {
    output.note(checks.breakLines().join('\n'));
    throw checks.refusal(
      'report',
      shellCommand(['fraudctl', 'log', 'verify', ...checks.unverifiedFiles()]),
      reportCommand(deps, options, ['--include-unverified']),
    );
  }
  if (unreadable > 0) {
    const where = [...read.unreadable].map(([file, n]) => `${terminalSafe(file)} ${count(n)}`).join(', ');
    const verify = terminalSafe(shellCommand(['fraudctl', 'log', 'verify', ...read.unreadable.keys()]));
    output.note(
      `note: ${plural(unreadable, 'line is', 'lines are')} not a log line this can read (skipped: ${where}); ` +
        `${verify} says which`,
    );
  }
  const others: OtherService[] = [...elsewhere].map(([service, other]) => {
    other.tally.finish();
    const profiles = [...other.profiles].sort();
    // The profile the lines name, if there is one, reaches that service again.
    const again = profiles.length === 1 ? reportCommand(deps, options, [], ['--profile', profiles[0]!]) : null;
    return { service, profiles, lines: other.lines, decisions: other.tally.decisions, command: again };
  });
  if (options.format !== 'table') {
    for (const o of others) output.note(otherServiceNote(o, here));
    if (options.includeUnverified && checks.unverified > 0) output.note(checks.includedNote());
  }
  const now = tally.events.length > 0 ? await readEventsNow(deps, options, tally.events) : null;
  const facts: ReportFacts = {
    files: options.files,
    service: here,
    since: options.since,
    until: options.until,
    slaMs: options.slaMs,
    lines: read.lines,
    unreadable: unreadable + read.crash,
    unverified: options.includeUnverified
      ? {
          lines: checks.unverified,
          byKind: checks.kindCounts(),
          note: checks.unverified > 0 ? checks.includedNote().replace(/^note: /, '') : null,
        }
      : null,
    eventsDecided: tally.events.length,
    eventsRead: now?.read ?? 0,
    notRead: now?.notRead ?? [],
    otherServices: others,
    analysts: analystFigures(tally, (i) => now?.get(i), options.slaMs),
  };
  if (options.format === 'json') output.printJson(reportJson(facts));
  else if (options.format === 'csv') output.print(reportCsv(facts));
  else output.print(reportText(facts, tally, output.style, (o) => otherServiceNote(o, here).replace(/^note: /, '')));
  if (now !== null && now.read < tally.events.length) {
    const missing = tally.events.length - now.read;
    const why = now.notRead.map((r) => `${count(r.count)} ${r.why}`).join('; ');
    const decided = plural(tally.events.length, 'decided event was', 'decided events were');
    throw new CliError(
      `the figures are incomplete: ${count(missing)} of ${decided} not read now, ` +
        `so overturned and age at decision leave them out (${why})`,
      now.exitCode,
      now.hint,
    );
  }
}

/** What was left out for being of another service, and the command that counts it there. */
function otherServiceNote(o: OtherService, here: string | null): string {
  const profiles =
    o.profiles.length === 0
      ? ''
      : ` (${o.profiles.length === 1 ? 'profile' : 'profiles'} ${o.profiles.map(terminalSafe).join(', ')})`;
  const again = o.command === null ? '' : `; to count them there: ${terminalSafe(o.command)}`;
  const what = `${plural(o.decisions, 'decision', 'decisions')} (${plural(o.lines, 'line', 'lines')})`;
  const where = `at ${serviceName(o.service)}${profiles}, not at ${serviceName(here)} which this run reads`;
  return `note: left out: ${what} ${where}${again}`;
}
