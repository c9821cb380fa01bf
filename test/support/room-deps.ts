import { PassThrough } from 'node:stream';
import { onTestFinished } from 'vitest';
import type { CliContext } from '../../src/process/cli-context.js';
import type { ApiClient } from '../../src/api/api-client.js';
import type { EnvFacts, OutputStream } from '../../src/commands/room-deps.js';
import { Session } from '../../src/session.js';
import { CliError } from '../../src/errors/cli-error.js';
import { DEMO_KEY } from './sandbox.js';

/*
 * The dependencies a command's run(options, deps) takes, as a test builds them: streams that keep
 * what is written (a terminal of some width, or not), the environment facts of the case, and the
 * service's client for a real sandbox on port 0 (closed when the test ends).
 */

export interface Written {
  stdout: string;
  stderr: string;
}

export interface PrintingDeps {
  written: Written;
  stdout: OutputStream;
  stderr: OutputStream;
  env: EnvFacts;
}

export function printingDeps(options: { tty?: boolean; columns?: number; env?: EnvFacts } = {}): PrintingDeps {
  const written: Written = { stdout: '', stderr: '' };
  const tty = options.tty ?? false;
  const columns = tty ? (options.columns ?? 100) : null;
  return {
    written,
    stdout: { write: (t) => void (written.stdout += t), isTTY: tty, columns },
    stderr: { write: (t) => void (written.stderr += t), isTTY: false, columns: null },
    env: options.env ?? {},
  };
}

/** A context that takes nothing and keeps nothing: for a Session whose output is not looked at. */
export function quietContext(env: NodeJS.ProcessEnv = {}): CliContext {
  return {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env,
    debug: false,
    waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    onStdoutClosed: () => () => {},
  };
}

/** A session for the service at `url` with the demo key (and a --timeout, when given), closed when the test ends. */
export function sessionFor(url: string, globals: { timeout?: number } = {}): Session {
  const session = new Session(quietContext(), globals, { profile: 'test', baseUrl: url, apiKey: DEMO_KEY });
  onTestFinished(() => session.close());
  return session;
}

/** The service's client for the sandbox at `url`, made when asked for (as the real deps make it, with its signal). */
export function clientFor(
  url: string,
  globals: { timeout?: number } = {},
): (options?: { signal: AbortSignal }) => Promise<ApiClient> {
  const session = sessionFor(url, globals);
  return (options) => session.client(options);
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A command's run(options, deps), ended as main ends it: a CliError's message (and hint) on
 * stderr after what the run wrote there, and its exit code. Any other error fails the test.
 */
export async function ran(work: Promise<void>, deps: PrintingDeps): Promise<Ran> {
  try {
    await work;
    return { code: 0, ...deps.written };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    const hint = error.hint ? `\n${error.hint}` : '';
    return {
      code: error.exitCode,
      stdout: deps.written.stdout,
      stderr: `${deps.written.stderr}error: ${error.message}${hint}\n`,
    };
  }
}
