import { Chalk, type ChalkInstance } from 'chalk';

/*
 * Colour: how much the terminal gets (decided once, from what main hands down, never by
 * sniffing `process`), and the few styles the tables use.
 */

/** 0 none, 1 basic 16 colours, 2 256 colours, 3 truecolor (chalk's levels). */
export type ColourLevel = 0 | 1 | 2 | 3;

export interface ColourOptions {
  /** `--no-color` was given. */
  flagNoColor: boolean;
  env: NodeJS.ProcessEnv;
  /** Whether the stream the output goes to is a terminal. */
  isTTY: boolean;
}

/**
 * In order: `--no-color`; `NO_COLOR` non-empty (no-color.org); `FORCE_COLOR` (wins over TERM
 * and a pipe); `TERM=dumb`; then what the terminal says it can do. A FORCE_COLOR value other
 * than the documented ones (`0`, `false`, ``, `1`, `true`, `2`, `3`) still forces colour: a
 * number is clamped to 0-3, anything else gives 1.
 */
export function colourLevel(opts: ColourOptions): ColourLevel {
  const { env } = opts;
  if (opts.flagNoColor) return 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  if (env.FORCE_COLOR !== undefined) return forcedLevel(env.FORCE_COLOR);
  if (env.TERM === 'dumb') return 0;
  if (!opts.isTTY) return 0;
  const colorterm = env.COLORTERM?.toLowerCase();
  if (colorterm === 'truecolor' || colorterm === '24bit') return 3;
  if (env.TERM?.includes('256')) return 2;
  return 1;
}

function forcedLevel(value: string): ColourLevel {
  const v = value.trim().toLowerCase();
  if (v === 'false') return 0;
  if (v === '' || v === 'true') return 1;
  const n = Number.parseInt(v, 10);
  if (Number.isNaN(n)) return 1;
  return Math.min(3, Math.max(0, n)) as ColourLevel;
}

/**
 * Styles only add colour: every method returns its text unchanged at level 0 and never
 * sanitises. Text from the service must go through terminalSafe before it gets here.
 */
export interface Style {
  readonly level: ColourLevel;
  /** The terminal's width in columns, that tables fit into; null off a terminal (nothing is cut). */
  readonly columns: number | null;
  /** An APPROVE decision: green bold. */
  approve(s: string): string;
  /** A REVIEW decision: yellow bold. */
  review(s: string): string;
  /** A DECLINE decision: red bold. */
  decline(s: string): string;
  /** The colour of an actionType (APPROVE, REVIEW, DECLINE); plain for any other value. */
  action(actionType: string, s: string): string;
  dim(s: string): string;
  bold(s: string): string;
  /** A section heading. */
  heading(s: string): string;
  /** `s` in the colour of an alert severity: HIGH red, MEDIUM yellow, LOW cyan, others plain. */
  severity(level: string, s: string): string;
  /** Marks output that comes from the sandbox rather than a real service. */
  sandboxBadge(s: string): string;
}

export function createStyle(level: ColourLevel, columns: number | null = null): Style {
  // Our own instance: the global chalk decides its level from process.stdout and the env.
  const c: ChalkInstance = new Chalk({ level });
  const approve = (s: string) => c.green.bold(s);
  const review = (s: string) => c.yellow.bold(s);
  const decline = (s: string) => c.red.bold(s);
  return {
    level,
    columns,
    approve,
    review,
    decline,
    action(actionType, s) {
      if (actionType === 'APPROVE') return approve(s);
      if (actionType === 'REVIEW') return review(s);
      if (actionType === 'DECLINE') return decline(s);
      return s;
    },
    dim: (s) => c.dim(s),
    bold: (s) => c.bold(s),
    heading: (s) => c.bold.underline(s),
    severity(severity, s) {
      if (severity === 'HIGH') return c.red(s);
      if (severity === 'MEDIUM') return c.yellow(s);
      if (severity === 'LOW') return c.cyan(s);
      return s;
    },
    sandboxBadge: (s) => c.inverse.yellow.bold(s),
  };
}
