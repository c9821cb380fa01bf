import type { EvaluationReport } from './report.js';
import { CliError } from '../../errors/cli-error.js';

export async function writeHtmlReport(path: string, report: EvaluationReport): Promise<void> {
  void report;
  throw new CliError(`--html ${path}: not built yet`);
}
