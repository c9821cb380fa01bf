import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { CliContext } from '../process/cli-context.js';
import { UsageError } from '../errors/cli-error.js';
import { checkIdArguments } from './id-arguments.js';
import { sym } from '../render/symbols.js';

/*
 * The ids a command works through (`show ID…`, `review`): ids given as arguments, then those of
 * `--from FILE` or `--from -` (stdin). The file is recognised from its content:
 *   - a results file written by `submit --out` (JSON Lines, each a line's result): its ids,
 *     all of them or only those whose decision the caller asked for;
 *   - otherwise a list of ids, one per line; blank lines and `#` comments are skipped.
 * Streamed a line at a time, so a list of a million ids costs no more memory than ten.
 */

/** Where an entry came from, for messages: `argument 2`, `ids.txt:14`, `stdin:3`. */
export interface IdListEntry {
  where: string;
  /** The id, or null when the line names none. */
  id: string | null;
  /** Why the line gives no id (a results line that is not JSON, or has no id); null when id is set. */
  problem: string | null;
  /** The same as a code for machines (`show --json`'s errorCodes), with the problem; absent when id is set. */
  problemCode?: IdProblemCode;
  /** The score a results line recorded (its `totalRiskScore`), so `review --sort score` need not read the event; absent otherwise. */
  score?: number;
}

export type IdProblemCode = 'NOT_JSON' | 'NOT_AN_OBJECT' | 'NO_ID';

/**
 * Which lines of a results file to take:
 * - `every`: every line (a line without an id is an entry with a problem, so it is counted);
 * - `review`: the lines decided `REVIEW`;
 * - `decided`: every decided line.
 * Lines left out are skipped silently: they were not asked for. A line that cannot be read (not
 * JSON, not an object) is always an entry with its problem, so that it is never dropped unseen.
 */
export type ResultsSelection = 'every' | 'review' | 'decided';

export interface IdListOptions {
  args: readonly string[];
  /** A path, `-` for stdin, or undefined for arguments only. */
  from?: string | undefined;
  results: ResultsSelection;
  /**
   * Stops the reading: the list ends at once (after what was already read), even while waiting
   * for a line that may never come (ids trickling in on stdin), and stdin is no longer read.
   */
  signal?: AbortSignal;
}

export type IdListFormat = 'ids' | 'results';

/** The ids of the arguments, then of `--from`, in order. Closes the file when the caller stops early. */
export async function* readIdList(options: IdListOptions, context: Pick<CliContext, 'stdin'>): AsyncGenerator<IdListEntry> {
  checkIdArguments(options.args);
  for (const [i, arg] of options.args.entries()) yield { where: `argument ${i + 1}`, id: arg.trim(), problem: null };
  if (options.from === undefined) return;
  const source = options.from;
  const name = source === '-' ? 'stdin' : source;
  let stream: NodeJS.ReadableStream;
  let close = async () => {};
  if (source === '-') {
    if (context.stdin.isTTY) throw new UsageError('reading ids from stdin, but stdin is a terminal', `pipe the ids in (${sym.ellipsis} | fraudctl show --from -) or give a file`);
    stream = context.stdin;
  } else {
    const handle = await open(source, 'r').catch((e: NodeJS.ErrnoException) => {
      throw openFailure(source, e);
    });
    try {
      if ((await handle.stat()).isDirectory()) throw new UsageError(`${source} is a directory, not a list of ids`);
    } catch (e) {
      await handle.close();
      throw e instanceof UsageError ? e : openFailure(source, e as NodeJS.ErrnoException);
    }
    // The handle is ours to close (never left to the garbage collector).
    stream = handle.createReadStream({ autoClose: false });
    close = () => handle.close();
  }
  // readline splits lines; a list of ids has short ones, so its unbounded line length is no worry here.
  const lines = createInterface({ input: stream, crlfDelay: Infinity, ...(options.signal ? { signal: options.signal } : {}) });
  let format: IdListFormat | null = null;
  let n = 0;
  try {
    for await (const raw of lines) {
      n++;
      const line = n === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      const text = line.trim();
      if (text === '' || text.startsWith('#')) continue;
      format ??= text.startsWith('{') ? 'results' : 'ids';
      const where = `${name}:${n}`;
      if (format === 'ids') {
        yield { where, id: text, problem: null };
        continue;
      }
      const entry = resultsEntry(text, where, options.results);
      if (entry) yield entry;
    }
  } finally {
    lines.close();
    await close();
  }
}

/** One line of a results file as an entry, or null when the selection leaves it out. */
function resultsEntry(text: string, where: string, selection: ResultsSelection): IdListEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { where, id: null, problem: 'not JSON (a results file holds one JSON object per line)', problemCode: 'NOT_JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { where, id: null, problem: 'not a JSON object', problemCode: 'NOT_AN_OBJECT' };
  const record = value as { id?: unknown; outcome?: unknown; actionType?: unknown; fraudctl?: unknown; totalRiskScore?: unknown };
  // The results file's header (its first line: which run wrote it) names no event.
  if (record.fraudctl === 'results') return null;
  const decided = record.outcome === undefined ? typeof record.actionType === 'string' : record.outcome === 'DECIDED';
  if (selection === 'review' && !(decided && record.actionType === 'REVIEW')) return null;
  if (selection === 'decided' && !decided) return null;
  if (typeof record.id !== 'string' || record.id === '') return { where, id: null, problem: 'no id (an event that was never stored has none)', problemCode: 'NO_ID' };
  const score = typeof record.totalRiskScore === 'number' && Number.isFinite(record.totalRiskScore) ? { score: record.totalRiskScore } : {};
  return { where, id: record.id, problem: null, ...score };
}

function openFailure(path: string, e: NodeJS.ErrnoException): UsageError {
  if (e.code === 'ENOENT') return new UsageError(`no such file: ${path}`);
  if (e.code === 'EISDIR') return new UsageError(`${path} is a directory, not a list of ids`);
  if (e.code === 'EACCES' || e.code === 'EPERM') return new UsageError(`cannot read ${path}: permission denied (${e.code})`, "check the file's permissions");
  return new UsageError(`cannot read ${path}: ${e.code ?? e.message}`);
}
