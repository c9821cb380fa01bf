import { isDeepStrictEqual } from 'node:util';
import { UsageError } from '../errors/cli-error.js';
import { terminalSafe } from '../render/terminal-text.js';
import type { CliContext } from '../process/cli-context.js';
import { headerText } from './header.js';
import type { ResultReader } from './prior-run.js';
import { readResults, readRunHeader } from './read-results.js';

/*
 * What binds a results file to the run that wrote it, so that --resume continues that run and
 * no other: the service it sent to (the URL, never the key) and the options that decided what
 * was sent (set-state: the state, comment, --if-state, --force-state; submit: --rejects, the
 * file its lines without a decision go to). They are the header, the first line of the results
 * file (header.ts). A resume that differs in any of them is refused before anything is
 * read or sent (exit 2), naming the difference; an option the resume leaves out is taken from
 * the record, and said so on stderr. A file written before headers existed cannot be checked:
 * it is resumed as before, with a warning (refusing it would leave an interrupted batch no way
 * to go on without sending everything again), and gets this run's header.
 */

/** What a run is, for its header: the command, its service, and the options that decide what it sends. */
export interface RunIntent {
  command: string;
  service: string;
  /** Every option, with its value for this run (null / false when not given). */
  options: Record<string, unknown>;
}

/**
 * For --resume: checks the results file's header against this run and returns the options to
 * use (those given, and those taken from the record), with this run's header. `given`: the
 * options the command line set; `show(key, value)`: an option as the user would type it
 * (`--state DECLINED`, `no --comments`).
 */
export async function bindResume(
  context: Pick<CliContext, 'stderr'>,
  out: string,
  intent: RunIntent,
  given: ReadonlySet<string>,
  show: (key: string, value: unknown) => string,
  read: ResultReader,
): Promise<{ options: Record<string, unknown>; header: string }> {
  const stderr = context.stderr;
  let recorded;
  try {
    recorded = await readRunHeader(out);
  } catch (error) {
    // No file: the pool says what that means for --resume.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { options: intent.options, header: headerText(intent) };
    throw error;
  }
  if (recorded === null) {
    stderr.write(
      `warning: ${out} was written by an older fraudctl, which did not record the service and options of its run: they cannot be checked. Resuming against ${terminalSafe(intent.service)}; make sure it is the service and the options of the first run (the file records them from now on)\n`,
    );
    // Its run left no sending records: this file cannot tell a send it never made, from now on either.
    return { options: intent.options, header: headerText({ ...intent, marksSends: false }) };
  }
  const fresh = 'give a new --out without --resume to start another run';
  if (recorded.command !== intent.command) {
    throw new UsageError(
      `${out} holds the results of fraudctl ${terminalSafe(recorded.command)}, not of ${intent.command}`,
      fresh,
    );
  }
  if (recorded.service !== intent.service) {
    // A first run that reached nothing there (its URL was not the service: every result FAILED,
    // none that may have been stored, and it ended with nothing in flight) binds to nothing.
    if (recorded.closed && !(await anythingDone(out, read))) {
      stderr.write(
        `note: ${out} was written for ${terminalSafe(recorded.service)}, where nothing was done; this run goes to ${terminalSafe(intent.service)}\n`,
      );
    } else
      throw new UsageError(
        `${out} was written for ${terminalSafe(recorded.service)}, this run goes to ${terminalSafe(intent.service)}: the batch would be split between two services`,
        `resume against ${terminalSafe(recorded.service)} (the --profile or --base-url of the first run), or ${fresh}`,
      );
  }
  const options: Record<string, unknown> = { ...intent.options };
  for (const key of Object.keys(intent.options)) {
    const before = Object.hasOwn(recorded.options, key) ? recorded.options[key] : undefined;
    if (!given.has(key)) {
      if (before === undefined) continue;
      options[key] = before;
      if (!isDeepStrictEqual(before, intent.options[key]))
        stderr.write(`note: ${show(key, before)} taken from ${out} (the run it continues)\n`);
      continue;
    }
    if (!isDeepStrictEqual(before ?? null, intent.options[key])) {
      throw new UsageError(
        `${out} was written with ${show(key, before ?? null)}, this run has ${show(key, intent.options[key])}: the resumed ${intent.command === 'submit' ? 'batch' : 'change'} would not be the one that was started`,
        `resume with the options of the first run (leave one out to take it from the file), or ${fresh}`,
      );
    }
  }
  // Sending records tell which items were sent only if every send was recorded: so from an earlier
  // run that recorded them, or one that left nothing unrecorded (closed).
  const marksSends = recorded.marksSends === true || recorded.closed;
  return { options, header: headerText({ ...intent, options, marksSends }) };
}

/** Whether any result of the file may have had an effect at its service: one settled, or failed in a way that may have been stored. */
async function anythingDone(path: string, read: ResultReader): Promise<boolean> {
  for await (const line of readResults(path, { byteOrderMark: 'refuse', header: 'as-found' })) {
    if (line.kind !== 'line') continue; // the header, a send marked
    const result = read(line.text);
    if (result && (result.settled || result.unsure)) return true;
  }
  return false;
}
