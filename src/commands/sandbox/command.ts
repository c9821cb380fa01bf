import { Command, InvalidArgumentError, Option } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import type { SandboxOptions } from './options.js';

export type { SandboxOptions } from './options.js';

/*
 * `fraudctl sandbox …`: each verb's argv → one SandboxOptions value; then the work (run.ts),
 * import()ed when it runs, so other commands never pay for Fastify or SQLite at start-up, with
 * its dependencies built from the process (deps.ts). `run` is injectable, so a test checks
 * argv → options in-process without starting a server.
 */

export type SandboxRun = (command: Command, options: SandboxOptions) => Promise<void>;

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0: any free port)');
  return port;
}

interface ServeFlags {
  host: string;
  port: number;
  db?: string;
  config?: string;
  chaos?: string;
}

export function sandboxCommand(context: CliContext, run?: SandboxRun): Command {
  const runWork: SandboxRun =
    run ??
    (async (_command, options) => {
      const [{ run: sandbox }, { sandboxDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return sandbox(options, sandboxDeps(context));
    });
  const sandbox = new Command('sandbox')
    .description('run the local implementation of the fraud-screening service')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl sandbox serve                                   # http://127.0.0.1:8787, until Ctrl-C
  $ fraudctl login --profile local --base-url http://127.0.0.1:8787   # then, in another terminal (key: sandbox-demo-key)
  $ fraudctl sandbox serve --port 0 --db :memory:            # any free port, nothing kept
  $ fraudctl sandbox default-config > sandbox.json           # rules, lists and thresholds to edit for --config
`,
    );

  sandbox
    .command('serve')
    .description('serve the sandbox over HTTP until Ctrl-C or SIGTERM')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl sandbox serve
  $ fraudctl sandbox serve --port 0 --db :memory:
  $ fraudctl sandbox serve --config my-rules.json --chaos 503=0.1,reset-after=0.02,latency=10-50
  $ fraudctl sandbox serve --chaos 503=0.05,reset-after=0.02,seed=42   # the same faults per event id on every run
  $ FRAUDCTL_SANDBOX_KEY=$(openssl rand -hex 16) fraudctl sandbox serve --host 0.0.0.0
`,
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', parsePort, 8787)
    .option('--db <path>', 'SQLite file for events, or :memory: (default: sandbox.db under the XDG data dir)')
    .option(
      '--config <file>',
      'JSON file with merchants, rules, lists, thresholds and rates (see `sandbox default-config`)',
    )
    .addOption(
      new Option(
        '--chaos <spec>',
        'inject faults: 503=P,504=P,reset-before=P,reset-after=P,latency=MIN-MAX,retry-after=S,seed=N (seed=N: each event id meets the same faults on its 1st, 2nd, ... request in every run; the ids seen are kept in memory, ~150 bytes each)',
      ),
    )
    .action(async (flags: ServeFlags, command: Command) => {
      const { debug } = command.optsWithGlobals<{ debug?: boolean }>();
      await runWork(command, {
        verb: 'serve',
        host: flags.host,
        port: flags.port,
        db: flags.db ?? null,
        config: flags.config ?? null,
        chaos: flags.chaos ?? null,
        debug: debug === true,
      });
    });

  sandbox
    .command('default-config')
    .description('print the built-in sandbox configuration, to copy and edit for --config')
    .addHelpText(
      'before',
      'Examples:\n  $ fraudctl sandbox default-config > sandbox.json\n  $ fraudctl sandbox serve --config sandbox.json\n\n',
    )
    .action(async (_options: unknown, command: Command) => {
      await runWork(command, { verb: 'default-config' });
    });

  return sandbox;
}
