import { startSandbox, type RunningSandbox, type SandboxOptions } from '../sandbox/serve.js';
import { cliErrorOf } from './sandbox-errors.js';

/**
 * startSandbox for fraudctl: what it throws, and a database fault it hands on while serving, in
 * fraudctl's words (CliError, exit code and hint). `sandbox serve` and the embedded sandbox use it.
 */
export async function startHostedSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const { onUnexpectedError } = options;
  try {
    return await startSandbox({
      ...options,
      ...(onUnexpectedError ? { onUnexpectedError: (error: Error) => onUnexpectedError(cliErrorOf(error)) } : {}),
    });
  } catch (error) {
    throw cliErrorOf(error);
  }
}
