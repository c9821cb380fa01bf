import type { CliContext } from '../../process/cli-context.js';
import { envFacts, outputStream, type PrintDeps } from '../room-deps.js';

/*
 * All that `log verify` takes from outside: the output streams and the environment facts it prints
 * by. It reads the files it is given and asks no service: no client, no settings.
 */

export type LogVerifyDeps = PrintDeps;

export function logVerifyDeps(context: CliContext): LogVerifyDeps {
  return { stdout: outputStream(context.stdout), stderr: outputStream(context.stderr), env: envFacts(context.env) };
}
