import { run } from '../../src/commands/history/run.js';
import type { HistoryOptions } from '../../src/commands/history/options.js';
import { clientFor, printingDeps, ran, type Ran } from './room-deps.js';

/*
 * `history` through its run(options, deps), as its tests call it: the service at `service` (a
 * sandbox on port 0, or a port where nothing listens), its output kept, ended as main ends it.
 */

export function historyAt(service: string) {
  return (
    eventId: string,
    logs: string[],
    options: Partial<Pick<HistoryOptions, 'includeUnverified' | 'json'>> = {},
  ): Promise<Ran> => {
    const deps = {
      ...printingDeps(),
      serviceFlags: [],
      serviceUrl: async () => service,
      client: clientFor(service),
    };
    const asked: HistoryOptions = { eventId, logs, includeUnverified: false, json: false, noColor: false, ...options };
    return ran(run(asked, deps), deps);
  };
}
