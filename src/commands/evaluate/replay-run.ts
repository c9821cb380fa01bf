import type { EvaluateDeps } from './deps.js';
import type { EvaluateOptions } from './options.js';
import type { EvaluatedEvent } from './figures/evaluated-event.js';
import type { ReplayReport } from './figures/replay.js';
import { CliError } from '../../errors/cli-error.js';

export interface PreparedReplay {
  add(event: EvaluatedEvent): void;
  finish(deps: EvaluateDeps, options: EvaluateOptions): Promise<ReplayReport>;
}

export async function prepareReplay(file: string): Promise<PreparedReplay> {
  throw new CliError(`--rules ${file}: replay is not built yet`);
}
