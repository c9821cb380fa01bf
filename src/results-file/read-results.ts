import { bomError, isHeaderObject, parseHeader, type RunHeader } from './header.js';
import { boundedLines, MAX_RESULT_LINE_BYTES, resultObject } from './lines.js';
import { sendingRecord } from './sending.js';

/*
 * The one reader of a results file's lines, whoever reads them: resume (prior-run.ts), the
 * header a resume is bound by (run-binding.ts), evaluate (submit's results), and, line by line
 * from wherever its list comes, `--from` (id-lists/). It tells the run's own records (its
 * header, `sending` marks) from the lines that may be results; what a result holds is the
 * reader's (submit-result.ts, change-result.ts).
 */

/** What a line of a results file is, before anyone reads its result. */
export type LineKind =
  /** Not JSON, or JSON that is not an object: no line fraudctl wrote. */
  | { kind: 'not-json' }
  | { kind: 'not-an-object' }
  /** One of the run's own records (`"fraudctl"` set: its header, a `sending` mark): no event. */
  | { kind: 'run-record'; value: Record<string, unknown> }
  | { kind: 'result'; value: Record<string, unknown> };

/** A line read as what it is: the same words for `--from`, evaluate and resume. */
export function lineKind(text: string): LineKind {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'not-json' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'not-an-object' };
  const record = value as Record<string, unknown>;
  return record.fraudctl !== undefined ? { kind: 'run-record', value: record } : { kind: 'result', value: record };
}

export interface ResultsReading {
  /**
   * A byte order mark before the first line, which fraudctl never writes: `refuse` (resume:
   * the file is the record of a run, and an editor changed it) or `look-past` (evaluate: the
   * header is recognised behind it).
   */
  byteOrderMark: 'refuse' | 'look-past';
  /**
   * The header (the first line, only there): `checked` parses it, a damaged or foreign-version
   * header a UsageError; `as-found` gives its object as it is.
   */
  header: 'checked' | 'as-found';
}

/** A line of a results file: its header, a `sending` mark, or any other line (a result, or what the reader refuses). */
export type ResultsLine =
  | { kind: 'header'; lineNo: number; text: string; header: RunHeader | Record<string, unknown> }
  | { kind: 'sending'; lineNo: number; text: string; line: number; column: number }
  /** `ended`: false for a last line without a line break (a run cut off while writing it). */
  | { kind: 'line'; lineNo: number; text: string; ended: boolean };

/**
 * The lines of the results file at `path`, streamed (bounded in length: boundedLines), blank
 * lines left out. A header is only the first line: one further on is a `line` like any other.
 */
export function readResults(
  path: string,
  reading: ResultsReading & { header: 'checked' },
): AsyncGenerator<ResultsLine & ({ kind: 'header'; header: RunHeader } | { kind: 'sending' | 'line' })>;
export function readResults(path: string, reading: ResultsReading): AsyncGenerator<ResultsLine>;
export async function* readResults(path: string, reading: ResultsReading): AsyncGenerator<ResultsLine> {
  for await (const { text, lineNo, ended } of boundedLines(path, MAX_RESULT_LINE_BYTES)) {
    if (lineNo === 1) {
      if (text.startsWith('\uFEFF') && reading.byteOrderMark === 'refuse') throw bomError(path);
      const value = resultObject(reading.byteOrderMark === 'look-past' ? text.replace(/^\uFEFF/, '') : text);
      if (value && isHeaderObject(value)) {
        const header = reading.header === 'checked' ? parseHeader(path, text) : value;
        yield { kind: 'header', lineNo, text, header };
        continue;
      }
    }
    if (text.trim() === '') continue;
    const sending = sendingRecord(text);
    if (sending) yield { kind: 'sending', lineNo, text, ...sending };
    else yield { kind: 'line', lineNo, text, ended };
  }
}

/** The first line of a results file, parsed: its header, or null for a file written before headers (or empty). */
export async function readRunHeader(path: string): Promise<RunHeader | null> {
  for await (const line of readResults(path, { byteOrderMark: 'refuse', header: 'checked' })) {
    return line.kind === 'header' ? line.header : null;
  }
  return null;
}
