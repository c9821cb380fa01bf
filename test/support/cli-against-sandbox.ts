import { afterAll, beforeAll } from 'vitest';
import { cliEnv, runCli, type CliResult } from './cli.js';
import { DEMO_KEY, startTestSandbox, tempDir, type TestSandbox } from './sandbox.js';

/*
 * For command tests: a real sandbox for the file, and a way to run `fraudctl` against it as a
 * separate process, with config and data directories of the test's own.
 */
export interface CliHarness {
  sb: TestSandbox;
  dir: string;
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  run(args: string[], options?: { input?: string | Buffer; env?: Record<string, string> }): Promise<CliResult>;
}

export function useSandboxForCli(): CliHarness {
  const tmp = tempDir('fraudctl-cli-');
  const harness = {
    dir: tmp.dir,
    env: (extra: Record<string, string> = {}) =>
      cliEnv({
        HOME: tmp.dir,
        XDG_CONFIG_HOME: `${tmp.dir}/config`,
        XDG_DATA_HOME: `${tmp.dir}/data`,
        FRAUDCTL_BASE_URL: harness.sb.url,
        FRAUDCTL_API_KEY: DEMO_KEY,
        ...extra,
      }),
    run: (args: string[], options: { input?: string | Buffer; env?: Record<string, string> } = {}) =>
      runCli(args, { env: harness.env(options.env), ...(options.input !== undefined ? { input: options.input } : {}) }),
  } as CliHarness;
  beforeAll(async () => {
    harness.sb = await startTestSandbox();
  });
  afterAll(async () => {
    await harness.sb.close();
    tmp.remove();
  });
  return harness;
}

export { TERMINAL_CONTROLS } from './terminal-controls.js';
