import { run } from '../../src/commands/report/run.js';
import type { ReportOptions } from '../../src/commands/report/options.js';
import { clientFor, printingDeps, ran, type Ran } from './room-deps.js';

/*
 * `report` through its run(options, deps), as its tests call it: the service at `service` (a
 * sandbox on port 0, or a server of the test's own), its output kept (stdout a terminal of `columns` when given), no Ctrl-C,
 * ended as main ends it.
 */

/** `how`: the flags that chose the service (as a hint repeats them), the client's --timeout. */
export function reportAt(service: string, how: { serviceFlags?: string[]; timeout?: number } = {}) {
  return (
    options: Partial<ReportOptions> & Pick<ReportOptions, 'files'>,
    terminal: { columns?: number } = {},
  ): Promise<Ran> => {
    const client = clientFor(service, how.timeout === undefined ? {} : { timeout: how.timeout });
    const deps = {
      // Without colour, as the suite's environment has it (cliEnv: NO_COLOR).
      ...printingDeps({
        env: { NO_COLOR: '1' },
        ...(terminal.columns === undefined ? {} : { tty: true, ...terminal }),
      }),
      serviceFlags: how.serviceFlags ?? [],
      serviceUrl: async () => service,
      client,
      waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    };
    const asked: ReportOptions = {
      since: null,
      until: null,
      slaMs: null,
      format: 'table',
      concurrency: 8,
      includeUnverified: false,
      readDeadlineSeconds: 300,
      noColor: false,
      ...options,
    };
    return ran(run(asked, deps), deps);
  };
}
