import { closeSync, fstatSync, fsyncSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../errors/cli-error.js';
import { writeFully } from '../files/write-fully.js';
import { stripByteOrderMarkCommand } from '../render/shell-command.js';
import { jsonForTerminal, terminalSafe } from '../render/terminal-text.js';
import { resultObject } from './lines.js';

/**
 * The first line of every results file: which run wrote it. A JSON object, so that `jq` over
 * the file still reads every line; `"fraudctl":"results"` marks it, and no result has that
 * field. `service` is where the run sent its requests (a URL, never the key), `options` what
 * decided what was sent: a --resume that differs in any of them is refused, one that leaves an
 * option out takes it from here. `closed` turns true (rewritten in place, same length) when the
 * run ends with every item it took recorded, so that a resume knows that nothing was left in
 * flight; a run killed with `kill -9` leaves it false. `marksSends`: before each send that
 * nothing can check afterwards (an event without an id), the run wrote a `sending` record
 * (sendingText), so such an item without one was never sent; absent in older files, and false
 * in a file resumed from one that was left unclosed without them.
 */
export interface RunHeader {
  fraudctl: 'results';
  version: 1;
  command: string;
  service: string;
  options: Record<string, unknown>;
  marksSends?: boolean;
  closed: boolean;
}

export const HEADER_VERSION = 1;

/** The header line as written (without the newline): `closed` last, false, so that marking it closed keeps the length. */
export function headerText(header: Omit<RunHeader, 'fraudctl' | 'version' | 'closed'>): string {
  const { command, service, options, marksSends = true } = header;
  const line = { fraudctl: 'results', version: HEADER_VERSION, command, service, options, marksSends, closed: false };
  return jsonForTerminal(line, false);
}

const CLOSED_FALSE = '"closed":false}';
const CLOSED_TRUE = '"closed":true }';

/** True for a line that is a results file's header (whatever it holds). */
export function isHeaderObject(value: Record<string, unknown>): boolean {
  return value.fraudctl === 'results';
}

/** A header line read back, or a UsageError saying what is wrong with it. */
export function parseHeader(path: string, text: string): RunHeader {
  const value = resultObject(text);
  const h = value as Partial<RunHeader> | undefined;
  if (!h || !isHeaderObject(h as Record<string, unknown>))
    throw new UsageError(`${path} line 1 is not a fraudctl results header`);
  if (h.version !== HEADER_VERSION) {
    throw new UsageError(
      `${path} was written by another version of fraudctl (results format ${terminalSafe(String(h.version))}; this one reads ${HEADER_VERSION})`,
      'resume it with the fraudctl that wrote it, or give a new --out without --resume',
    );
  }
  if (
    typeof h.command !== 'string' ||
    typeof h.service !== 'string' ||
    typeof h.options !== 'object' ||
    h.options === null ||
    typeof h.closed !== 'boolean'
  ) {
    throw new UsageError(
      `${path} line 1: the run's header is damaged (command, service, options or closed missing)`,
      'give a new --out without --resume',
    );
  }
  return h as RunHeader;
}

/** A file that starts with a byte order mark, which an editor put there. */
export function bomError(path: string): UsageError {
  return new UsageError(
    `${path} starts with a byte order mark (U+FEFF), which fraudctl never writes: an editor saved the file`,
    `remove it: ${stripByteOrderMarkCommand(path)}`,
  );
}

/**
 * Marks the run's header closed (every item it took recorded): the header's last bytes are
 * rewritten in place, the same length, through a descriptor without O_APPEND (Linux appends a
 * pwrite on an O_APPEND one wherever it is aimed).
 */
export function markClosed(path: string, header: string): void {
  const fd = openSync(path, 'r+');
  try {
    if (!fstatSync(fd).isFile()) return;
    const head = Buffer.alloc(Buffer.byteLength(header));
    readSync(fd, head, 0, head.length, 0);
    // Only the header this run wrote: never a file someone replaced meanwhile.
    if (head.toString('utf8') !== header || !header.endsWith(CLOSED_FALSE)) return;
    writeFully(fd, CLOSED_TRUE, head.length - CLOSED_TRUE.length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
