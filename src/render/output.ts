import type { CliContext } from '../process/cli-context.js';
import { colourLevel, createStyle, type Style } from './colours.js';
import { jsonForTerminal } from './terminal-text.js';

/*
 * Where a command's results go: human text or JSON to stdout, notes to stderr, with colour
 * decided once from the flag, the environment and whether stdout is a terminal.
 */
export interface Output {
  readonly json: boolean;
  readonly style: Style;
  /** The width of the terminal stdout is, in columns; null off a terminal (then nothing is cut to fit). */
  readonly columns: number | null;
  /** Human output, to stdout. The text must already be rendered (sanitised) by this room. */
  print(text: string): void;
  /** A value from the service, as JSON on stdout: equal when parsed, with terminal controls escaped. */
  printJson(value: unknown): void;
  /** A diagnostic or progress note, to stderr. */
  note(text: string): void;
}

export function createOutput(
  context: Pick<CliContext, 'stdout' | 'stderr' | 'env'>,
  options: { json: boolean; noColorFlag: boolean },
): Output {
  const columns = context.stdout.isTTY ? context.stdout.columns || 80 : null;
  const style = createStyle(
    colourLevel({ flagNoColor: options.noColorFlag, env: context.env, isTTY: Boolean(context.stdout.isTTY) }),
    columns,
  );
  return {
    json: options.json,
    style,
    columns,
    print: (text) => context.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    printJson: (value) => context.stdout.write(`${jsonForTerminal(value, true)}\n`),
    note: (text) => context.stderr.write(`${text}\n`),
  };
}
