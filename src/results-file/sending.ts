import { resultObject } from './lines.js';

/**
 * The record written before an item is sent that nothing could check afterwards (an event
 * without an id): the run may have sent the item once this is on disk, and had not before. Like
 * the header, a `fraudctl` line that is no result: `jq 'select(.fraudctl | not)'` skips both.
 */
export function sendingText(line: number, column: number): string {
  return `{"fraudctl":"sending","line":${line},"column":${column}}`;
}

/** The item a `sending` record names, or undefined for any other line. */
export function sendingRecord(text: string): { line: number; column: number } | undefined {
  if (!text.startsWith('{"fraudctl":"sending"')) return undefined;
  const value = resultObject(text);
  const { line, column } = (value ?? {}) as { line?: unknown; column?: unknown };
  if (!Number.isSafeInteger(line) || !Number.isSafeInteger(column)) return undefined;
  return { line: line as number, column: column as number };
}
