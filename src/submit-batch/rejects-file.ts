import { existsSync, fstatSync, statSync, type Stats } from 'node:fs';
import { resolve } from 'node:path';
import { LineFile } from '../results-file/line-file.js';
import { boundedLines } from '../results-file/lines.js';
import type { PriorRun } from '../results-file/prior-run.js';
import { UsageError } from '../errors/cli-error.js';
import { rewriteForResume } from '../files/rewrite-for-resume.js';
import { MAX_BODY_BYTES } from '../contract/limits.js';

/*
 * submit's --rejects file: the text of every line without a decision, as it was, so that
 * `fraudctl submit rejects.jsonl` retries them. It never destroys a file the user did not ask
 * to replace: the input, the results file, or any file that exists when a run starts afresh is
 * refused (exit 2) before anything is read. On --resume it is the file the earlier run wrote
 * (the results file's header records it), brought in line with the results: it always holds
 * exactly the lines whose result has no decision, in the order of those results (each line is
 * written just before its result, so a crash between the two leaves a line resume drops).
 */

/** The same file, by device and inode when both exist, else by absolute path. */
function sameFile(a: string, b: string, bStats?: Stats): boolean {
  try {
    const sa = statSync(a);
    const sb = bStats ?? statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return resolve(a) === resolve(b);
  }
}

/** Standard input's file when it is one (`< events.jsonl`), for the check that --rejects is not the input. */
function stdinStats(stdin: NodeJS.ReadableStream): Stats | undefined {
  const fd = (stdin as { fd?: unknown }).fd;
  if (typeof fd !== 'number') return undefined;
  try {
    const stats = fstatSync(fd);
    return stats.isFile() ? stats : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Refuses a --rejects that would destroy a file: the input (also as stdin), the --out file, or
 * an existing file when the run starts afresh. Called before the input is opened.
 */
export function checkRejectsPath(
  rejects: string,
  run: { input: string; out: string | null; resume: boolean; stdin: NodeJS.ReadableStream },
): void {
  const other = 'give --rejects a file of its own';
  const inputStats = run.input === '-' ? stdinStats(run.stdin) : undefined;
  if (
    (run.input !== '-' && sameFile(rejects, run.input)) ||
    (inputStats && existsSync(rejects) && sameFile(rejects, '', inputStats))
  ) {
    throw new UsageError(
      `--rejects ${rejects} is the input: writing the rejects there would destroy the events being read`,
      other,
    );
  }
  if (run.out !== null && sameFile(rejects, run.out))
    throw new UsageError(
      `--rejects and --out name the same file (${rejects}): the rejects would be mixed into the results`,
      other,
    );
  if (!run.resume && existsSync(rejects)) {
    throw new UsageError(
      `${rejects} already exists: --rejects never replaces a file`,
      'remove it, or choose another --rejects (with --resume, the rejects file of the run it continues is kept)',
    );
  }
}

/**
 * Opens the rejects file for this run: created (a fresh run), or on --resume rewritten
 * (atomically) to the lines of the earlier run's results that stay without a decision, then
 * appended to. `warn` says when the file cannot be brought in line (gone, or not the one the
 * results were written with).
 */
export async function openRejects(
  path: string,
  prior: PriorRun | null,
  warn: (text: string) => void,
): Promise<LineFile> {
  if (prior === null) return LineFile.open(path, 'create', '--rejects');
  // A results file from before headers does not say which rejects file its run kept: the one
  // given may be another file, so it is only appended to, as that version did.
  if (prior.header === null) {
    if (existsSync(path))
      warn(
        `${path} is only added to: the results file, from an older fraudctl, does not record that it belongs to its run, so lines decided since stay listed in it`,
      );
    return LineFile.open(path, 'append', '--rejects');
  }
  if (!existsSync(path)) {
    if (prior.undecidedCount > 0)
      warn(
        `${path} is gone: it holds only the lines without a decision from this run on (the results file has them all)`,
      );
    return LineFile.open(path, 'append', '--rejects');
  }
  // Rewritten to the lines whose results stay undecided, whole or not at all (rewrite-for-resume.ts).
  await rewriteForResume(path, async (write) => {
    let n = 0;
    // A line is one event as it was read (a rejected one up to the 16 MiB the reader holds), its line breaks folded.
    for await (const { text, ended } of boundedLines(path, MAX_BODY_BYTES * 32)) {
      if (!ended && n >= prior.undecidedCount) break; // cut off by a crash: its result was never written
      if (prior.keptUndecided.has(n)) write(`${text}\n`);
      n++;
    }
    if (n >= prior.undecidedCount) return true;
    warn(
      `${path} has ${n} ${n === 1 ? 'line' : 'lines'} for ${prior.undecidedCount} results without a decision: it was not written with these results; this run adds its lines to it as they are`,
    );
    return false;
  });
  return LineFile.open(path, 'append', '--rejects');
}
