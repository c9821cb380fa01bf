import type { LogVerdict } from '../../action-log/verify-log.js';
import type { Output } from '../../render/output.js';
import { terminalSafe } from '../../render/terminal-text.js';

/*
 * `log verify`'s verdicts: every file's, with every break (--json), or a line per file (an intact
 * one's last hash, to keep for --expect; a broken one's first break or its count and each break),
 * then what --expect found in it.
 */

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const range = (a: number, b: number) => (a === b ? `line ${a}` : `lines ${a}-${b}`);

/** What holds before the first break: the chained lines, and any unchained ones at the start. */
function intactBefore(verdict: LogVerdict): string {
  const bad = verdict.firstBad ?? verdict.lines + 1;
  return bad > 1 ? ` (${range(1, bad - 1)} intact)` : '';
}

/** The words for a file's verdict on stdout. */
function verdictText(v: LogVerdict): string[] {
  const name = terminalSafe(v.file);
  if (v.intact) {
    const hash = v.lastHash ? ` (last line's hash ${v.lastHash})` : '';
    const out = [`${name}: ${plural(v.lines, 'line', 'lines')} intact${hash}`];
    if (v.join !== null) out.push(`${name}: ${v.join.problem}`);
    return out;
  }
  if (v.breaks.length === 1) return [`${name}: NOT INTACT: ${v.problem}${intactBefore(v)}`];
  const head = `${name}: NOT INTACT: ${v.breaks.length} breaks in ${plural(v.lines, 'line', 'lines')}`;
  return [head + intactBefore(v), ...v.breaks.map((b) => `  ${b.problem}`)];
}

/** `notes`: what --expect found, said after the file it found it in. */
export function renderVerdicts(
  verdicts: readonly LogVerdict[],
  notes: ReadonlyMap<LogVerdict, string>,
  output: Output,
): void {
  if (output.json) return output.printJson(verdicts);
  for (const v of verdicts) {
    for (const text of verdictText(v)) output.print(text);
    const note = notes.get(v);
    if (note !== undefined) output.print(note);
  }
}
