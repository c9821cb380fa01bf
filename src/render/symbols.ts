/*
 * The few marks beyond ASCII that fraudctl draws with (separators, arrows, the cut mark, table
 * borders, doctor's marks), and their ASCII stand-ins for a terminal whose locale is not UTF-8
 * (`LANG=C`, a Latin-1 locale), where those bytes would show as mojibake.
 *
 * main chooses for each command it runs, from the environment it was handed, before the command tree is
 * loaded (`useSymbolsFor`); every renderer reads `sym` when it renders, never at import, so the
 * choice reaches each string. Text from the service is not changed here: it is the service's.
 * Written by hand: is-unicode-supported, the package that answers this for ora and
 * log-symbols, ignores the locale on Linux and macOS, which is the case this exists for.
 */

export interface Symbols {
  /** Between items on one line: `a · b`. */
  readonly dot: string;
  /** A change from one value to another: `PENDING_REVIEW → APPROVED`. */
  readonly arrow: string;
  readonly left: string;
  readonly up: string;
  readonly down: string;
  /** What was cut: `user10@exa…`. */
  readonly ellipsis: string;
  /** An empty cell, a range `1–20`. */
  readonly dash: string;
  /** A horizontal rule, repeated across the screen. */
  readonly rule: string;
  readonly pass: string;
  readonly fail: string;
  readonly bullet: string;
  /** A quantity or a size: `2 × Laptop`, `80×24`. */
  readonly times: string;
  /** The comment line's cursor when there is no colour to draw it in reverse. */
  readonly cursor: string;
  /** A progress bar's done and not-done parts. */
  readonly barDone: string;
  readonly barLeft: string;
  /** cli-table3's border characters. */
  readonly tableChars: Readonly<Record<TableChar, string>>;
  /** asciichart's ten marks, in its order: ┼ ┤ ╶ ╴ ─ ╰ ╭ ╮ ╯ │. */
  readonly chartMarks: Readonly<ChartMarks>;
}

/** asciichart's marks: exactly ten. */
export type ChartMarks = [string, string, string, string, string, string, string, string, string, string];

export type TableChar =
  | 'top'
  | 'top-mid'
  | 'top-left'
  | 'top-right'
  | 'bottom'
  | 'bottom-mid'
  | 'bottom-left'
  | 'bottom-right'
  | 'left'
  | 'left-mid'
  | 'mid'
  | 'mid-mid'
  | 'right'
  | 'right-mid'
  | 'middle';

const UNICODE: Symbols = {
  dot: '·',
  arrow: '→',
  left: '←',
  up: '↑',
  down: '↓',
  ellipsis: '…',
  dash: '–',
  rule: '─',
  pass: '✓',
  fail: '✗',
  bullet: '•',
  times: '×',
  cursor: '▏',
  barDone: '█',
  barLeft: '░',
  // cli-table3's own defaults, written out so both sets are in one place.
  tableChars: {
    top: '─',
    'top-mid': '┬',
    'top-left': '┌',
    'top-right': '┐',
    bottom: '─',
    'bottom-mid': '┴',
    'bottom-left': '└',
    'bottom-right': '┘',
    left: '│',
    'left-mid': '├',
    mid: '─',
    'mid-mid': '┼',
    right: '│',
    'right-mid': '┤',
    middle: '│',
  },
  chartMarks: ['┼', '┤', '╶', '╴', '─', '╰', '╭', '╮', '╯', '│'],
};

const ASCII: Symbols = {
  dot: '-',
  arrow: '->',
  left: '<-',
  up: '^',
  down: 'v',
  ellipsis: '...',
  dash: '-',
  rule: '-',
  pass: 'ok',
  fail: 'x',
  bullet: '*',
  times: 'x',
  cursor: '|',
  barDone: '#',
  barLeft: '-',
  tableChars: {
    top: '-',
    'top-mid': '+',
    'top-left': '+',
    'top-right': '+',
    bottom: '-',
    'bottom-mid': '+',
    'bottom-left': '+',
    'bottom-right': '+',
    left: '|',
    'left-mid': '+',
    mid: '-',
    'mid-mid': '+',
    right: '|',
    'right-mid': '+',
    middle: '|',
  },
  chartMarks: ['+', '|', '-', '-', '-', '\\', '/', '\\', '/', '|'],
};

/**
 * One of the two sets, for output that decides by a locale of its own (a command given its
 * environment as a dependency) rather than the process's marks.
 */
export function symbolsFor(ascii: boolean): Symbols {
  return ascii ? ASCII : UNICODE;
}

/**
 * Whether the terminal's character set is UTF-8, as the C library decides it: the first of
 * LC_ALL, LC_CTYPE, LANG that is set and not empty names the locale (`C`, `POSIX`,
 * `en_US.ISO-8859-1` are not UTF-8). With none set: UTF-8 on Windows (the console takes UTF-16
 * from Node) and wherever the terminal is not the Linux kernel's console, as is-unicode-supported
 * decides it; locale-less containers and CI runners are UTF-8 in practice.
 */
export function localeIsUtf8(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  const locale = [env.LC_ALL, env.LC_CTYPE, env.LANG].find((value) => value !== undefined && value !== '');
  if (locale !== undefined) return /utf-?8/i.test(locale);
  return platform === 'win32' || env.TERM !== 'linux';
}

/** The marks to draw with now (UTF-8 unless main chose ASCII for this process; its fields change then). */
export const sym: Symbols = { ...UNICODE };

/** main's choice for the process, from its environment; returns whether ASCII was chosen. */
export function useSymbolsFor(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  const ascii = !localeIsUtf8(env, platform);
  Object.assign(sym, ascii ? ASCII : UNICODE);
  return ascii;
}
