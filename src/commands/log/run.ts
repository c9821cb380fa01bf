import { statSync } from 'node:fs';
import { CliError, ExitCode, UsageError } from '../../errors/cli-error.js';
import { errorCode, fileFailure } from '../../files/file-errors.js';
import { terminalSafe } from '../../render/terminal-text.js';
import { addBreak, joinOf, verifyLog, type LogVerdict } from '../../action-log/verify-log.js';
import { outputOf } from '../room-deps.js';
import type { LogVerifyDeps } from './deps.js';
import type { LogVerifyOptions } from './options.js';
import { renderVerdicts } from './render.js';

/*
 * `fraudctl log verify FILE…`: every file checked to be one that can be read to its end (else
 * exit 2, before any is judged), each judged by the verifier (src/action-log/verify-log.ts), the
 * joins of files given in order and --expect's line placed, then a line per file on stdout (or
 * --json); exit 1 when any is not intact.
 */

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const HINT = 'give log verify the --log files to check';

export async function run(options: LogVerifyOptions, deps: LogVerifyDeps): Promise<void> {
  const { expect } = options;
  for (const file of options.files) {
    let stat;
    try {
      stat = statSync(file);
    } catch (error) {
      const { message, hint } = fileFailure(file, error, 'log', 'give log verify the --log files to check');
      throw new UsageError(message, hint);
    }
    if (stat.isDirectory()) {
      const { message, hint } = fileFailure(
        file,
        { code: 'EISDIR' },
        'log',
        'give log verify the --log files to check',
      );
      throw new UsageError(message, hint);
    }
    if (!stat.isFile()) {
      const what = `${terminalSafe(file)} is not a regular file (a FIFO or a device has no end to check)`;
      throw new UsageError(what, HINT);
    }
  }
  const verdicts: LogVerdict[] = [];
  for (const file of options.files) {
    let verdict: LogVerdict;
    try {
      verdict = await verifyLog(file, expect === null ? {} : { expect });
    } catch (error) {
      if (errorCode(error) === 'ENOTREG') throw new UsageError(`${terminalSafe(file)} is not a regular file`, HINT);
      throw new CliError(`cannot read ${terminalSafe(file)}: ${errorCode(error)}`, ExitCode.FAILURE);
    }
    verdicts.push(verdict);
  }
  for (const [i, v] of verdicts.entries()) {
    v.join = await joinOf(i > 0 ? verdicts[i - 1]! : null, v);
    if (v.join !== null && (v.join.kind === 'gap' || v.join.kind === 'unjoined')) {
      addBreak(v, { line: v.join.line, kind: v.join.kind, problem: v.join.problem });
    }
  }
  const notes = new Map<LogVerdict, string>();
  if (expect !== null) {
    const at = verdicts.findIndex((v) => v.expected?.line != null);
    if (at === -1) {
      const last = verdicts[verdicts.length - 1]!;
      const where = verdicts.length === 1 ? 'is not in it' : 'is in none of the files';
      const problem =
        `the expected line (hash ${expect}) ${where}: lines were removed from the end (it ends at ` +
        `line ${last.lines} now), or that line was edited`;
      // Placed after the last line, where the lines removed from the end were: every line there is counted intact.
      addBreak(last, { line: last.lines + 1, kind: 'removed', problem });
    } else {
      const v = verdicts[at]!;
      const line = v.expected!.line!;
      const added = v.lines - line + verdicts.slice(at + 1).reduce((sum, later) => sum + later.lines, 0);
      v.expected!.added = added;
      const grown = `${plural(added, 'line was', 'lines were')} added after it since`;
      const since = added === 0 ? 'nothing was added after it' : grown;
      notes.set(v, `${terminalSafe(v.file)}: the expected line is line ${line}, as it was; ${since}`);
    }
  }
  renderVerdicts(verdicts, notes, outputOf(deps, options));
  const broken = verdicts.filter((v) => !v.intact);
  if (broken.length > 0) {
    const where = (v: LogVerdict) =>
      v.breaks.length === 1 ? `line ${v.firstBad}` : `${v.breaks.length} breaks, the first at line ${v.firstBad}`;
    throw new CliError(
      broken.length === 1 && verdicts.length === 1
        ? `${terminalSafe(broken[0]!.file)} is not intact (${where(broken[0]!)})`
        : `${broken.length} of ${verdicts.length} logs are not intact: ` +
            `${broken.map((v) => `${terminalSafe(v.file)} (${where(v)})`).join(', ')}`,
      ExitCode.FAILURE,
    );
  }
}
