/*
 * What a command may use of the outside world, handed out by main: streams, environment,
 * and a way to wait for Ctrl-C or SIGTERM. Commands and the modules they call take it
 * instead of reaching for `process`, so tests can run them with their own.
 */
export interface CliContext {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** `columns` and `rows`: the terminal's size, when the stream is one (process.stdout has them). */
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  env: NodeJS.ProcessEnv;
  debug: boolean;
  /** Resolves with the signal's name at the first SIGINT or SIGTERM. */
  waitForShutdown(): Promise<NodeJS.Signals>;
}

/** All of stdin as text (for `submit -` and a piped `login`). */
export async function readAllStdin(context: Pick<CliContext, 'stdin'>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of context.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
