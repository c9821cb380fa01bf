/*
 * What a command may use of the outside world, handed out by main: streams, environment,
 * and a way to wait for Ctrl-C (or Ctrl-Break on Windows), SIGTERM or a hang-up. Commands and the modules they call take it
 * instead of reaching for `process`, so tests can run them with their own.
 */
export interface CliContext {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** `columns` and `rows`: the terminal's size, when the stream is one (process.stdout has them). */
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  env: NodeJS.ProcessEnv;
  /** The operating system, when not this process's (process.platform): tests take Windows' branches on Linux with it. */
  platform?: NodeJS.Platform;
  debug: boolean;
  /**
   * Resolves with the signal's name at the first SIGINT, SIGTERM, SIGHUP (a terminal hung up, or
   * on Windows the console window closed) or SIGBREAK (Ctrl-Break on Windows).
   */
  waitForShutdown(): Promise<NodeJS.Signals>;
  /**
   * Takes over what happens when stdout's reader goes away (`| head`). By default the process
   * ends at once, quietly (main.ts); a command that must finish what it started (a batch with
   * requests in flight) handles it itself until it calls the function returned.
   */
  onStdoutClosed(handler: () => void): () => void;
}

/**
 * Ctrl-C, Ctrl-Break, SIGTERM or a hang-up aborts `controller`, until `done()` says the work is over (a
 * signal after that is left to whatever comes next). `interrupted` says whether one came in time.
 */
export function abortOnShutdown(
  context: Pick<CliContext, 'waitForShutdown'>,
  controller: AbortController,
): { readonly interrupted: boolean; done(): void } {
  let finished = false;
  let interrupted = false;
  void context.waitForShutdown().then(() => {
    if (finished) return;
    interrupted = true;
    controller.abort();
  });
  return {
    get interrupted() {
      return interrupted;
    },
    done() {
      finished = true;
    },
  };
}

/** All of stdin as text (for `submit -` and a piped `login`). */
export async function readAllStdin(context: Pick<CliContext, 'stdin'>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of context.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
