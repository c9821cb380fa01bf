import { CliError } from '../../errors/cli-error.js';
import { defaultSandboxDb } from '../../paths/xdg-paths.js';
import type { SandboxDeps } from './deps.js';
import type { SandboxOptions } from './options.js';

/*
 * `sandbox serve`: start (src/sandbox-host/, shared with the embedded sandbox), say where, run
 * until a signal, drain the requests in flight, stop. `sandbox default-config`: the built-in
 * configuration as JSON. Each loads only its own part of the sandbox.
 */

export async function run(options: SandboxOptions, deps: SandboxDeps): Promise<void> {
  if (options.verb === 'default-config') {
    const { defaultSandboxConfig } = await import('../../sandbox/config/sandbox-config.js');
    deps.stdout.write(`${JSON.stringify(defaultSandboxConfig(), null, 2)}\n`);
    return;
  }
  const { startHostedSandbox } = await import('../../sandbox-host/start-sandbox.js');
  const sandbox = await startHostedSandbox({
    host: options.host,
    port: options.port,
    dbPath: options.db ?? defaultSandboxDb(deps.env),
    dbInOwnDirectory: options.db === null,
    env: deps.env,
    ...(options.config !== null ? { configFile: options.config } : {}),
    ...(options.chaos !== null ? { chaos: options.chaos } : {}),
    onUnexpectedError: (error) => {
      if (error instanceof CliError)
        deps.stderr.write(`sandbox: ${error.message}${error.hint ? `; ${error.hint}` : ''}\n`);
      else
        deps.stderr.write(
          `sandbox: internal error: ${options.debug ? (error.stack ?? error.message) : error.message}\n`,
        );
    },
  });
  const lines = [
    `fraudctl sandbox listening on ${sandbox.url}`,
    `  data:    ${sandbox.dbPath === ':memory:' ? 'in memory (gone when it stops)' : sandbox.dbPath}`,
    `  config:  ${sandbox.configSource}`,
    `  openapi: ${sandbox.url}/openapi.json`,
    ...(options.chaos ? [`  chaos:   ${options.chaos}`] : []),
    'Press Ctrl-C to stop.',
  ];
  deps.stdout.write(`${lines.join('\n')}\n`);

  const signal = await deps.waitForShutdown();
  deps.stderr.write(`${signal}: finishing requests in flight, then stopping\n`);
  await sandbox.close();
  deps.stderr.write('sandbox stopped\n');
}
