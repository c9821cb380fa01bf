import type { CliContext } from '../../process/cli-context.js';
import { outputStream, type OutputStream } from '../room-deps.js';

/*
 * All that `sandbox` takes from outside: its two output streams, the environment (the data
 * directory, FRAUDCTL_SANDBOX_KEY and whatever variables a --config names for merchants' keys),
 * and the wait for Ctrl-C, SIGTERM or a hang-up that ends `serve`. sandboxDeps builds the real
 * ones; a test gives its own streams and ends the wait when it chooses.
 */

export interface SandboxDeps {
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
  /** Resolves with the signal that asks `serve` to stop. */
  waitForShutdown(): Promise<NodeJS.Signals>;
}

export function sandboxDeps(context: CliContext): SandboxDeps {
  return {
    stdout: outputStream(context.stdout),
    stderr: outputStream(context.stderr),
    env: context.env,
    waitForShutdown: () => context.waitForShutdown(),
  };
}
