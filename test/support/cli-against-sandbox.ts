import { afterAll, beforeAll } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/serve.js';
import { cliEnv, runCli, type CliResult } from './cli.js';
import { DEMO_KEY, startTestSandbox, tempDir, type TestSandbox } from './sandbox.js';

/*
 * For command tests: real sandboxes for the file (one, or several side by side: staging and
 * prod, a plain one and one under --chaos), and a way to run `fraudctl` against them as a
 * separate process, with config and data directories of the test's own.
 */

interface RunOptions {
  input?: string | Buffer;
  env?: Record<string, string>;
  timeoutMs?: number;
}

export interface CliSandboxes<N extends string> {
  /** Each named sandbox; its fields are there from the first `beforeAll` on. */
  sandboxes: Record<N, TestSandbox>;
  /** The test's home: config in `config/`, data in `data/`; removed after the file. */
  dir: string;
  /** A fraudctl environment in `dir` (nothing else inherited but PATH), with `extra` on top. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  run(args: string[], options?: RunOptions): Promise<CliResult>;
}

/**
 * Several sandboxes for the file, started side by side before its tests and closed after them.
 * The options may be made from the test's directory (a database file there: `dbPath`).
 */
export function useCli<N extends string>(
  sandboxes: Record<N, Partial<SandboxOptions>> | ((dir: string) => Record<N, Partial<SandboxOptions>>),
): CliSandboxes<N> {
  const tmp = tempDir('fraudctl-cli-');
  const options = typeof sandboxes === 'function' ? sandboxes(tmp.dir) : sandboxes;
  const names = Object.keys(options) as N[];
  const started = Object.fromEntries(names.map((name) => [name, {} as TestSandbox])) as Record<N, TestSandbox>;
  const env = (extra: Record<string, string> = {}) =>
    cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: `${tmp.dir}/config`, XDG_DATA_HOME: `${tmp.dir}/data`, ...extra });
  beforeAll(async () => {
    const running = await Promise.all(names.map((name) => startTestSandbox(options[name])));
    names.forEach((name, i) => Object.assign(started[name], running[i]));
  });
  afterAll(async () => {
    await Promise.all(names.map((name) => started[name].close?.()));
    await tmp.remove();
  });
  return {
    sandboxes: started,
    dir: tmp.dir,
    env,
    run: (args, { input, env: extra, timeoutMs } = {}) =>
      runCli(args, {
        env: env(extra),
        ...(input !== undefined ? { input } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      }),
  };
}

export interface CliHarness {
  sb: TestSandbox;
  dir: string;
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  run(args: string[], options?: { input?: string | Buffer; env?: Record<string, string> }): Promise<CliResult>;
}

/** One sandbox for the file, and fraudctl pointed at it with the demo key. */
export function useSandboxForCli(): CliHarness {
  const cli = useCli({ sb: {} });
  const sb = cli.sandboxes.sb;
  const env = (extra: Record<string, string> = {}) =>
    cli.env({ FRAUDCTL_BASE_URL: sb.url, FRAUDCTL_API_KEY: DEMO_KEY, ...extra });
  return {
    sb,
    dir: cli.dir,
    env,
    run: (args, options = {}) =>
      runCli(args, { env: env(options.env), ...(options.input !== undefined ? { input: options.input } : {}) }),
  };
}

export { TERMINAL_CONTROLS } from './terminal-controls.js';
