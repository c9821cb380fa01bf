import { readFile } from 'node:fs/promises';
import { readAllStdin, type CliContext } from '../cli-context.js';
import { UsageError } from '../errors/cli-error.js';

/*
 * Reads the event to submit: one JSON object from a file, or from stdin for `-`.
 * (Batch input — JSON Lines, arrays, gzip — grows from here.)
 */

async function readStdin(context: CliContext): Promise<string> {
  if (context.stdin.isTTY) {
    throw new UsageError('reading the event from stdin, but stdin is a terminal', 'pipe the event in (fraudctl submit - < event.json) or give a file');
  }
  return readAllStdin(context);
}

export async function readEvent(source: string, context: CliContext): Promise<Record<string, unknown>> {
  const name = source === '-' ? 'stdin' : source;
  let text: string;
  if (source === '-') {
    text = await readStdin(context);
  } else {
    try {
      text = await readFile(source, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new UsageError(`no such file: ${source}`);
      if (code === 'EISDIR') throw new UsageError(`${source} is a directory, not an event file`);
      throw new UsageError(`cannot read ${source}: ${code ?? (e as Error).message}`);
    }
  }
  if (text.trim() === '') throw new UsageError(`${name} is empty: expected one JSON object (an event)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${name} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${name} must hold one JSON object (an event), not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
  }
  return value as Record<string, unknown>;
}
