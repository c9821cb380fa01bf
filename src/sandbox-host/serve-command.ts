import type { CliContext } from '../process/cli-context.js';
import { CliError } from '../errors/cli-error.js';
import { defaultSandboxDb } from '../paths/xdg-paths.js';
import { startHostedSandbox } from './start-sandbox.js';

/** `fraudctl sandbox serve`: start, say where, run until a signal, drain, stop. */
export async function serveSandbox(
  context: CliContext,
  options: { host: string; port: number; db?: string; config?: string; chaos?: string },
): Promise<void> {
  const sandbox = await startHostedSandbox({
    host: options.host,
    port: options.port,
    dbPath: options.db ?? defaultSandboxDb(context.env),
    dbInOwnDirectory: options.db === undefined,
    env: context.env,
    ...(options.config !== undefined ? { configFile: options.config } : {}),
    ...(options.chaos !== undefined ? { chaos: options.chaos } : {}),
    onUnexpectedError: (error) => {
      if (error instanceof CliError)
        context.stderr.write(`sandbox: ${error.message}${error.hint ? `; ${error.hint}` : ''}\n`);
      else
        context.stderr.write(
          `sandbox: internal error: ${context.debug ? (error.stack ?? error.message) : error.message}\n`,
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
  context.stdout.write(`${lines.join('\n')}\n`);

  const signal = await context.waitForShutdown();
  context.stderr.write(`${signal}: finishing requests in flight, then stopping\n`);
  await sandbox.close();
  context.stderr.write('sandbox stopped\n');
}
