import { PassThrough, Writable } from 'node:stream';
import type { CliContext } from '../../src/process/cli-context.js';
import { Session } from '../../src/session.js';
import { DEMO_KEY } from './sandbox.js';

/*
 * For running a command's work in-process against a service (a sandbox on port 0): a context
 * whose stdout and stderr collect what is written (no terminal, no stdin, no signal ever
 * comes), and a session for it with the service's URL and key, as a profile would give them.
 */

export interface InProcess {
  session: Session;
  /** What the work wrote so far. */
  written: { stdout: string; stderr: string };
}

export function inProcess(url: string, key = DEMO_KEY): InProcess {
  const written = { stdout: '', stderr: '' };
  const collect = (name: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        written[name] += chunk.toString();
        done();
      },
    });
  const context: CliContext = {
    stdin: new PassThrough(),
    stdout: collect('stdout'),
    stderr: collect('stderr'),
    env: {},
    debug: false,
    waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    onStdoutClosed: () => () => {},
  };
  return { session: new Session(context, {}, { profile: 'test', baseUrl: url, apiKey: key }), written };
}

/** Runs `work` (a work function given a session, not argv: for that, in-process-cli.ts runInProcess) to its end: the exit code main would give (0, or the CliError's), its message, and what it wrote. */
export async function runWithSession(
  url: string,
  work: (session: Session) => Promise<void>,
): Promise<{ code: number; message: string; stdout: string; stderr: string }> {
  const { session, written } = inProcess(url);
  try {
    await work(session);
    return { code: 0, message: '', ...written };
  } catch (error) {
    const exitCode = (error as { exitCode?: number }).exitCode;
    if (exitCode === undefined) throw error;
    return { code: exitCode, message: (error as Error).message, ...written };
  } finally {
    await session.close();
  }
}
