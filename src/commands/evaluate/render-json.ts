import { jsonForTerminal } from '../../render/terminal-text.js';
import type { EvaluationReport } from './report.js';

/** `--json`: the report as one object (its fields: fraudctl help evaluate), terminal controls escaped. */
export function renderJson(report: EvaluationReport): string {
  return `${jsonForTerminal(report, true)}\n`;
}
