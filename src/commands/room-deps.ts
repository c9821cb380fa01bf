import type { CliContext } from '../process/cli-context.js';
import { colourLevel, createStyle } from '../render/colours.js';
import type { Output } from '../render/output.js';
import { jsonForTerminal } from '../render/terminal-text.js';

/*
 * What the commands' rooms take of the outside to print: a stream as a room sees it, the
 * environment facts output is rendered by, and the Output (colour decided once, JSON escaped for a
 * terminal) made from them and the run's --json and --no-color. The real ones come from the
 * process's context (each room's deps.ts); a test gives streams that keep what is written.
 */

export interface OutputStream {
  write(text: string): void;
  readonly isTTY: boolean;
  /** The terminal's width; null off a terminal. */
  readonly columns: number | null;
}

/** The environment variables output is rendered by: colour (NO_COLOR, FORCE_COLOR, TERM, COLORTERM). */
export type EnvFacts = Partial<Record<'NO_COLOR' | 'FORCE_COLOR' | 'TERM' | 'COLORTERM', string>>;

export const outputStream = (s: CliContext['stdout']): OutputStream => ({
  write: (text) => void s.write(text),
  isTTY: Boolean(s.isTTY),
  columns: s.isTTY ? s.columns || 80 : null,
});

export function envFacts(env: NodeJS.ProcessEnv): EnvFacts {
  const { NO_COLOR, FORCE_COLOR, TERM, COLORTERM } = env;
  return Object.fromEntries(
    Object.entries({ NO_COLOR, FORCE_COLOR, TERM, COLORTERM }).filter(([, v]) => v !== undefined),
  ) as EnvFacts;
}

export interface PrintDeps {
  stdout: OutputStream;
  stderr: OutputStream;
  env: EnvFacts;
}

/** As createOutput (src/render/output.ts) makes it from a context, made from a room's deps. */
export function outputOf(deps: PrintDeps, options: { json: boolean; noColor: boolean }): Output {
  const { stdout, stderr } = deps;
  const style = createStyle(
    colourLevel({ flagNoColor: options.noColor, env: deps.env, isTTY: stdout.isTTY }),
    stdout.columns,
  );
  return {
    json: options.json,
    style,
    columns: stdout.columns,
    print: (text) => stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    printJson: (value) => stdout.write(`${jsonForTerminal(value, true)}\n`),
    note: (text) => stderr.write(`${text}\n`),
  };
}
