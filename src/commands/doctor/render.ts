import type { Style } from '../../render/colours.js';
import { sym } from '../../render/symbols.js';
import type { CheckResult } from './checks.js';

const marks = () => ({ pass: sym.pass, fail: sym.fail, skip: sym.dash, info: sym.bullet });

/** One line a check, its mark and title aligned; a hint on the line below. */
export function renderChecks(checks: CheckResult[], style: Style): string {
  const width = Math.max(...checks.map((c) => c.title.length));
  return checks
    .map((c) => {
      const mark =
        c.status === 'pass'
          ? style.approve(marks().pass)
          : c.status === 'fail'
            ? style.decline(marks().fail)
            : style.dim(marks()[c.status]);
      const line = `${mark} ${c.title.padEnd(width)}  ${c.detail}`;
      return c.hint ? `${line}\n  ${' '.repeat(width)}  ${style.dim(`${sym.arrow} ${c.hint}`)}` : line;
    })
    .join('\n');
}
