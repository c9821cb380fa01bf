import type { CliContext } from '../../process/cli-context.js';
import type { ApiClient } from '../../api/api-client.js';
import type { PoolClientOptions } from '../../batch/run-pool.js';
import type { LogContext } from '../../action-log/action-log.js';
import type { ChangeLog } from '../../action-log/logged-change.js';
import type { Prompter } from '../../prompter/prompter.js';
import type { Settings } from '../../profiles/settings.js';
import { logContextFor } from '../../action-log/log-context.js';
import { serviceNamed } from '../../profiles/service-name.js';
import type { Session } from '../../session.js';
import { envFacts, outputStream, type PrintDeps } from '../room-deps.js';

/*
 * All that `set-state` takes from outside, for one event and for many: the output streams and
 * the environment facts it prints by; the process the pool of many runs in (stdin for --from -,
 * Ctrl-C, stdout's reader gone); whether a person is there to ask, and the prompter; the
 * settings values it reads (reason codes, retries, what a dry run shows); the service's client;
 * the service as a results file names it; who and where the --log lines name; the flags a
 * hint's command repeats; a clock. setStateDeps builds the real ones from the process and the
 * session; a test builds its own (streams that keep what is written, a sandbox on port 0).
 */

export interface SetStateDeps extends PrintDeps {
  context: CliContext;
  /** A terminal on both ends, and no --no-input. */
  canPrompt: boolean;
  prompter(): Promise<Prompter>;
  settings(): Promise<
    Pick<Settings, 'profile' | 'reasons' | 'requireReason' | 'retries' | 'baseUrl' | 'apiKey' | 'apiKeySource'>
  >;
  /** The service's client, made at the first call (for many: with the pool's options). */
  client(options?: PoolClientOptions): Promise<ApiClient>;
  /** The service as a results file's header records it. */
  service(): Promise<string>;
  logContext(): Promise<LogContext>;
  /** Opens one event's --log file, before anything is read. */
  openLog(path: string): Promise<ChangeLog>;
  /** The global flags a hint's command repeats (the service's, --timeout, --json, --no-input). */
  hintFlags: readonly string[];
  /** The flags that chose the service (--profile, --base-url, --insecure-http). */
  serviceFlags: readonly string[];
  now(): number;
}

export function setStateDeps(context: CliContext, session: Session): SetStateDeps {
  const { timeout, input } = session.globals;
  const serviceFlags = session.serviceFlags();
  const logContext = async () => logContextFor(await session.settings(), context.env);
  return {
    stdout: outputStream(context.stdout),
    stderr: outputStream(context.stderr),
    env: envFacts(context.env),
    context,
    canPrompt: session.canPrompt,
    prompter: () => session.prompter(),
    settings: () => session.settings(),
    client: (options) => session.client(options),
    service: async () => serviceNamed((await session.settings()).baseUrl, context.env),
    logContext,
    openLog: async (path) => {
      const { openChangeLog } = await import('../../action-log/logged-change.js');
      return openChangeLog(path, await logContext(), (line) => context.stderr.write(line));
    },
    hintFlags: [
      ...serviceFlags,
      ...(timeout !== undefined ? ['--timeout', String(timeout)] : []),
      ...(session.json ? ['--json'] : []),
      ...(input === false ? ['--no-input'] : []),
    ],
    serviceFlags,
    now: () => Date.now(),
  };
}
