import type { ApiClient } from '../api/api-client.js';
import { failureFields } from '../api/api-error.js';
import { classifyFailure } from '../failures/failure-kind.js';
import { CliError, ExitCode, type ExitCodeValue } from '../errors/cli-error.js';
import type { IdListEntry } from '../id-lists/id-list.js';

/*
 * One id of a list, from its entry to its row: the event (its summary, and its risk assessment
 * for the decision), "not found", or why there is no answer. Every id gives exactly one row,
 * so a list of 500 lines gives 500 rows, whatever happened to each.
 */

/** What went wrong for one id, in the error shape the service uses, plus fraudctl's own words. */
export interface RowError {
  /** The HTTP status, or null when no answer came (or the input line named no id). */
  status: number | null;
  errorType: string;
  errorCodes: readonly string[];
  requestId: string | null;
  /** The failure in words (already safe to print), for the table. */
  message: string;
}

/**
 * - found: the summary (and the risk assessment, when asked for);
 * - not-found: the service does not know the id (404);
 * - invalid: the id names no event at all: the service refused it as malformed (400, 422
 *   `eventId:INVALID_FORMAT`), or the input line has no id (a results line of an event never
 *   stored, a line that is not JSON). Like not-found, the list's answer for that line;
 * - error: no answer (unavailable, network, a body fraudctl cannot read): try again later.
 */
export type EventRow =
  | { kind: 'found'; id: string; summary: unknown; assessment: unknown }
  | { kind: 'not-found'; id: string; error: RowError }
  | { kind: 'invalid'; id: string | null; where: string; error: RowError }
  | { kind: 'error'; id: string; where: string; error: RowError; exitCode: ExitCodeValue };

/** A row that ends the list: the key was refused, the URL is not the service's, or the proxy failed. */
export interface FatalRow {
  kind: 'fatal';
  error: CliError;
}

/** The fetch was abandoned (Ctrl-C): the list stops before this row. */
export interface InterruptedRow {
  kind: 'interrupted';
}

export interface FetchOptions {
  /** Also GET the risk assessment, for the decision (the table and CSV show it; --json prints the summary alone). */
  withDecision: boolean;
  /** True once the list was interrupted: a failure then is the abort, not the service's. */
  aborted(): boolean;
}

function problemRow(entry: IdListEntry): EventRow {
  const problem = entry.problem ?? 'no id';
  const code = entry.problemCode;
  return {
    kind: 'invalid',
    id: null,
    where: entry.where,
    error: {
      status: null,
      errorType: 'INVALID_LINE',
      errorCodes: code ? [code] : [],
      requestId: null,
      message: `${entry.where}: ${problem}`,
    },
  };
}

/** GET the event (and its risk assessment) for one entry of the list; never rejects for a failure of the service. */
export async function fetchRow(
  client: Pick<ApiClient, 'getEvent' | 'getRiskAssessment'>,
  entry: IdListEntry,
  options: FetchOptions,
): Promise<EventRow | FatalRow | InterruptedRow> {
  if (options.aborted()) return { kind: 'interrupted' };
  if (entry.id === null) return problemRow(entry);
  const id = entry.id;
  // Both requests at once: the pool sends the second as soon as a connection is free, instead of
  // after a turn through this code. The event's failure, if any, is the row's (an unknown id
  // fails both); then the assessment's.
  const [summary, assessment] = await Promise.allSettled([
    client.getEvent(id),
    options.withDecision ? client.getRiskAssessment(id) : undefined,
  ]);
  if (summary.status === 'rejected' || assessment.status === 'rejected') {
    if (options.aborted()) return { kind: 'interrupted' };
    return failedRow(
      entry,
      id,
      summary.status === 'rejected' ? summary.reason : (assessment as PromiseRejectedResult).reason,
    );
  }
  return { kind: 'found', id, summary: summary.value.body, assessment: assessment.value?.body };
}

function failedRow(entry: IdListEntry, id: string, error: unknown): EventRow | FatalRow {
  // Every other id would get the same answer (a refused key, an answer that is not the
  // service's, a proxy that fails): stop at once, as a batch does (src/failures/ decides).
  const failure = classifyFailure(error);
  if (failure.stopsRun) return { kind: 'fatal', error: failure.error };
  const fields = failureFields(error);
  if (failure.kind === 'not-found') return { kind: 'not-found', id, error: fields };
  if (failure.kind === 'invalid') return { kind: 'invalid', id, where: entry.where, error: fields };
  return { kind: 'error', id, where: entry.where, error: fields, exitCode: failure.exitCode };
}

/**
 * How bad a row's failure is, for the exit code of the list: the worst one wins. Not found (and
 * invalid: no event by that name either) is the mildest, the list's answer for that id; then
 * another refusal by the service; no answer (unavailable, network); an answer fraudctl could
 * not read. A refused key never gets here: it stops the list (exit 3).
 */
const SEVERITY: readonly ExitCodeValue[] = [
  ExitCode.OK,
  ExitCode.NOT_FOUND,
  ExitCode.REJECTED,
  ExitCode.UNAVAILABLE,
  ExitCode.FAILURE,
];

export function exitCodeOf(row: EventRow): ExitCodeValue {
  if (row.kind === 'found') return ExitCode.OK;
  if (row.kind === 'not-found' || row.kind === 'invalid') return ExitCode.NOT_FOUND;
  return row.exitCode;
}

export function worse(a: ExitCodeValue, b: ExitCodeValue): ExitCodeValue {
  const rank = (code: ExitCodeValue) => {
    const i = SEVERITY.indexOf(code);
    return i === -1 ? SEVERITY.length : i;
  };
  return rank(b) > rank(a) ? b : a;
}
