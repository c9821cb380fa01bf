import { Argument, Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import type { GlobalOptions } from '../../session.js';
import type { ConfigKey, SettingKey } from '../../profiles/stored-profiles.js';
import type { ConfigOptions, ConfigVerb } from './options.js';

export type { ConfigOptions } from './options.js';

/*
 * `fraudctl config …`: profiles (base URL, timeout, retries; keys come from `login`).
 * The profile acted on is --profile, else FRAUDCTL_PROFILE, else the active one. A profile's
 * stored key goes only to its URL: a new base-url moves it, asked for or with --yes.
 * Each verb: argv → one ConfigOptions value; then the work (run.ts), import()ed when it runs,
 * with its dependencies built from the process (deps.ts). `run` is injectable, so a test checks
 * argv → options in-process without doing the work.
 */

export type ConfigRun = (command: Command, options: ConfigOptions) => Promise<void>;

// As stored-profiles.ts's CONFIG_KEYS, written out: the command tree loads no settings code to be built.
const KEYS = [
  'base-url',
  'timeout',
  'retries',
  'insecure-http',
  'analyst',
  'reasons',
  'require-reason',
  'api-key',
] as const satisfies readonly ConfigKey[];
/** What `config set` takes: not the key, which never travels in argv. */
const SETTABLE: readonly string[] = KEYS.filter((k) => k !== 'api-key');

export function configCommand(context: CliContext, run?: ConfigRun): Command {
  const runWork: ConfigRun =
    run ??
    (async (command, options) => {
      const [{ run: config }, { configDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return config(options, configDeps(context, command.optsWithGlobals<GlobalOptions>()));
    });
  const verb = (command: Command, what: ConfigVerb) => {
    const { profile, json, color } = command.optsWithGlobals<GlobalOptions>();
    return runWork(command, { ...what, profile: profile ?? null, json: json === true, noColor: color === false });
  };
  const config = new Command('config')
    .description('list and change profiles: service URL, timeout, retries')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl config list
  $ fraudctl config set base-url https://fraud.example.com --profile prod
  $ fraudctl config set timeout 10 --profile prod
  $ fraudctl config get base-url --profile prod
  $ fraudctl config use prod
  $ fraudctl config delete old-staging
`,
    );
  config
    .command('list')
    .description('list the profiles (keys redacted), marking the active one')
    .addHelpText('before', 'Examples:\n  $ fraudctl config list\n  $ fraudctl config list --json\n')
    .action(async (_options: unknown, command: Command) => {
      await verb(command, { verb: 'list' });
    });
  config
    .command('get')
    .description('print one setting of a profile')
    .addHelpText(
      'before',
      'Examples:\n  $ fraudctl config get base-url --profile prod\n  $ fraudctl config get api-key                  # redacted: ****3f9a\n',
    )
    .addArgument(new Argument('<key>').choices(KEYS))
    .action(async (key: ConfigKey, _options: unknown, command: Command) => {
      await verb(command, { verb: 'get', key });
    });
  config
    .command('set')
    .description(
      'change one setting of a profile (setting base-url creates a new one); the API key is stored by fraudctl login',
    )
    .option('-y, --yes', 'move a stored key with its profile to a new base URL without asking (needed off a terminal)')
    .addHelpText(
      'before',
      'Examples:\n  $ fraudctl config set base-url https://fraud.example.com --profile prod   # makes prod if new\n  $ fraudctl config set base-url https://fraud-eu.example.com --profile prod --yes   # the stored key now goes there\n  $ fraudctl config set timeout 10 --profile prod\n  $ fraudctl config set insecure-http true --profile tunnel   # http:// to another machine: the key travels in clear\n  $ fraudctl config set analyst "Ann Lee" --profile prod   # who the --log lines of this profile name\n  $ fraudctl config set reasons stolen-card,friendly-fraud,customer-confirmed:APPROVED --profile prod   # set-state --reason CODE, review by number key\n  $ fraudctl config set require-reason true --profile prod   # every change of state needs a reason (set-state, review)\n',
    )
    .addArgument(
      new Argument('<key>', 'the setting (the key is stored by login)').choices(SETTABLE).argParser((key: string) => {
        // A key typed as an argument is already in the shell's history: refuse it, and say so.
        if (key === 'api-key')
          throw new InvalidArgumentError(
            'the API key is not set with config set (an argument ends up in shell history and process lists): run fraudctl login --profile NAME, which reads it hidden or from stdin; if you typed a real key here, consider rotating it',
          );
        if (!SETTABLE.includes(key)) throw new InvalidArgumentError(`Allowed choices are ${SETTABLE.join(', ')}.`);
        return key;
      }),
    )
    .argument('<value>')
    .action(async (key: SettingKey, value: string, options: { yes?: boolean }, command: Command) => {
      await verb(command, { verb: 'set', key, value, yes: options.yes === true });
    });
  config
    .command('unset')
    .description('remove one setting from a profile')
    .addHelpText(
      'before',
      'Examples:\n  $ fraudctl config unset timeout --profile prod   # back to the default (30 s)\n  $ fraudctl config unset api-key --profile prod   # forget the key, as fraudctl logout does\n',
    )
    .addArgument(new Argument('<key>').choices(KEYS))
    .action(async (key: ConfigKey, _options: unknown, command: Command) => {
      await verb(command, { verb: 'unset', key });
    });
  config
    .command('use')
    .description('make a profile the active one')
    .addHelpText(
      'before',
      'Examples:\n  $ fraudctl config use prod\n  $ fraudctl config use sandbox   # back to the embedded sandbox\n',
    )
    .argument('<profile>')
    .action(async (profile: string, _options: unknown, command: Command) => {
      await verb(command, { verb: 'use', name: profile });
    });
  config
    .command('delete')
    .description('delete a profile and its API key (from the credential store or the config file)')
    .option('-y, --yes', 'do not ask (needed off a terminal)')
    .addHelpText(
      'before',
      'Examples:\n  $ fraudctl config delete old-staging\n  $ fraudctl config delete ci --yes   # in a script\n',
    )
    .argument('<profile>')
    .action(async (profile: string, options: { yes?: boolean }, command: Command) => {
      await verb(command, { verb: 'delete', name: profile, yes: options.yes === true });
    });
  return config;
}
