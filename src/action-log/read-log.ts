import { ChainWalker, fileLines, type ChainBreak } from './log-chain.js';

/*
 * Reading action logs back (`history`, `report`): a file's lines one at a time (so a log of any
 * length takes the memory of one line), each checked against the file's hash chain as it is read
 * (log-chain.ts), and a line's fields as action-log.ts writes them. A line that is not a JSON
 * object with a time, an event id, an action and an outcome (torn by a crash, edited, another
 * program's) is not a log line: null, for the caller to count and skip. What a reader may
 * believe is the caller's to say: a line that breaks the chain comes with its break.
 */

/** A log line's fields; those an older build did not write are null. */
export interface LogLineFields {
  time: string;
  analyst: string | null;
  host: string | null;
  profile: string | null;
  service: string | null;
  session: string | null;
  eventId: string;
  action: string;
  from: string | null;
  to: string | null;
  comments: string | null;
  reason: string | null;
  requestId: string | null;
  outcome: string;
  status: number | null;
  message: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A log line's fields, or null when it is not one. */
export function logLineFields(text: string): LogLineFields | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const time = str(v.time);
  const eventId = str(v.eventId);
  const action = str(v.action);
  const outcome = str(v.outcome);
  if (time === null || Number.isNaN(Date.parse(time)) || eventId === null || action === null || outcome === null)
    return null;
  return {
    time,
    analyst: str(v.analyst),
    host: str(v.host),
    profile: str(v.profile),
    service: str(v.service),
    session: str(v.session),
    eventId,
    action,
    from: str(v.from),
    to: str(v.to),
    comments: str(v.comments),
    reason: str(v.reason),
    requestId: str(v.requestId),
    outcome,
    status: typeof v.status === 'number' ? v.status : null,
    message: str(v.message),
  };
}

/** One line of a log as read: its place, its text (no line ending), and how it breaks the chain, if it does. */
export interface ReadLine {
  n: number;
  text: string;
  broken: ChainBreak | null;
}

/** Every line of `file`, each with its place and its chain check. Throws the file's error. */
export async function* logFileLines(file: string): AsyncGenerator<ReadLine> {
  const walker = new ChainWalker();
  for await (const { bytes, ended } of fileLines(file)) {
    const broken = walker.step(bytes, ended);
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
    yield { n: walker.lines, text: bytes.toString('utf8', 0, end), broken };
  }
}
