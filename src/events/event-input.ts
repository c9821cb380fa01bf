import { UsageError } from '../errors/cli-error.js';

/*
 * One event given whole (a file or stdin holding a single JSON object), as submit's
 * one-event mode reads it. Batch input is streamed by src/submit-batch/input-records/, which also
 * decides between the two.
 */

export function parseEvent(text: string, name: string): Record<string, unknown> {
  if (text.trim() === '') throw new UsageError(`${name} is empty: expected one JSON object (an event)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(
      `${name} is not valid JSON: ${(e as Error).message}`,
      'for many events, give one JSON object per line (JSON Lines)',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${name} must hold one JSON object (an event), not ${value === null ? 'null' : typeof value}`);
  }
  return value as Record<string, unknown>;
}
