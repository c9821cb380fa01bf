/*
 * What a command may use of the outside world, handed out by main: streams, environment,
 * and a way to wait for Ctrl-C or SIGTERM. Commands and the modules they call take it
 * instead of reaching for `process`, so tests can run them with their own.
 */
export interface CliContext {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  debug: boolean;
  /** Resolves with the signal's name at the first SIGINT or SIGTERM. */
  waitForShutdown(): Promise<NodeJS.Signals>;
}
