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

/** The environment variables output is rendered by: colour (NO_COLOR, FORCE_COLOR, TERM, COLORTERM) and the locale's marks. */
export type EnvFacts = Partial<Record<(typeof ENV_FACTS)[number], string>>;

const ENV_FACTS = ['NO_COLOR', 'FORCE_COLOR', 'TERM', 'COLORTERM', 'LANG', 'LC_ALL', 'LC_CTYPE'] as const;

export const outputStream = (s: CliContext['stdout']): OutputStream => ({
  write: (text) => void s.write(text),
  isTTY: Boolean(s.isTTY),
  columns: s.isTTY ? s.columns || 80 : null,
});

export function envFacts(env: NodeJS.ProcessEnv): EnvFacts {
  return Object.fromEntries(ENV_FACTS.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
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
