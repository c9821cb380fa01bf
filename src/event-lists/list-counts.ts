import { ExitCode, type ExitCodeValue } from '../errors/cli-error.js';
import { count } from '../render/counts.js';
import { terminalSafe } from '../render/terminal-text.js';
import { exitCodeOf, worse, type EventRow } from './event-row.js';
import { sym } from '../render/symbols.js';

/* What a list of ids came to: the count line (`198 found · 2 not found`) and the exit code. */

export class ListCounts {
  found = 0;
  notFound = 0;
  invalid = 0;
  errors = 0;
  /** The worst failure so far, as its exit code (event-row.ts ranks them). */
  worst: ExitCodeValue = ExitCode.OK;
  private readonly byType = new Map<string, number>();

  get total(): number {
    return this.found + this.notFound + this.invalid + this.errors;
  }

  add(row: EventRow): void {
    this.worst = worse(this.worst, exitCodeOf(row));
    if (row.kind === 'found') this.found++;
    else if (row.kind === 'not-found') this.notFound++;
    else if (row.kind === 'invalid') this.invalid++;
    else {
      this.errors++;
      // Error types are few (the service's and fraudctl's own); safe text, since some came from the service.
      const type = terminalSafe(row.error.errorType);
      this.byType.set(type, (this.byType.get(type) ?? 0) + 1);
    }
  }

  /** `198 found · 2 not found · 1 invalid · 3 errors (SERVICE_UNAVAILABLE 2, TIMEOUT 1)`; parts that are 0 are left out, except found. */
  text(): string {
    const parts = [`${count(this.found)} found`];
    if (this.notFound > 0) parts.push(`${count(this.notFound)} not found`);
    if (this.invalid > 0) parts.push(`${count(this.invalid)} invalid`);
    if (this.errors > 0) {
      const types = [...this.byType].sort((a, b) => b[1] - a[1]).map(([type, n]) => `${type} ${count(n)}`);
      parts.push(`${count(this.errors)} ${this.errors === 1 ? 'error' : 'errors'} (${types.join(', ')})`);
    }
    return parts.join(` ${sym.dot} `);
  }
}
