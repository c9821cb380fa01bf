import { Argument, Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli-context.js';
import { withSession } from '../session.js';
import { getConfig, listConfig, setConfig, unsetConfig, useConfig } from '../profiles/config-output.js';

/*
 * `fraudctl config …`: profiles (base URL, timeout, retries; keys come from `login`).
 * The profile acted on is --profile, else FRAUDCTL_PROFILE, else the active one.
 */

const KEYS = ['base-url', 'timeout', 'retries', 'insecure-http', 'api-key'];
/** What `config set` takes: not the key, which never travels in argv. */
const SETTABLE = KEYS.filter((k) => k !== 'api-key');

export function configCommand(context: CliContext): Command {
  const config = new Command('config').description('list and change profiles: service URL, timeout, retries').addHelpText(
    'before',
    `Examples:
  $ fraudctl config list
  $ fraudctl config set base-url https://fraud.example.com --profile prod
  $ fraudctl config set timeout 10 --profile prod
  $ fraudctl config get base-url --profile prod
  $ fraudctl config use prod
`,
  );
  config
    .command('list')
    .description('list the profiles (keys redacted), marking the active one')
    .action(async (_options: unknown, command: Command) => {
      await withSession(context, command, (session) => listConfig(session));
    });
  config
    .command('get')
    .description('print one setting of a profile')
    .addArgument(new Argument('<key>').choices(KEYS))
    .action(async (key: string, _options: unknown, command: Command) => {
      await withSession(context, command, (session) => getConfig(session, key));
    });
  config
    .command('set')
    .description('change one setting of a profile (created if new); the API key is stored by fraudctl login')
    .addArgument(
      new Argument('<key>', 'the setting (the key is stored by login)').choices(SETTABLE).argParser((key: string) => {
        // A key typed as an argument is already in the shell's history: refuse it, and say so.
        if (key === 'api-key') throw new InvalidArgumentError('the API key is not set with config set (an argument ends up in shell history and process lists): run fraudctl login --profile NAME, which reads it hidden or from stdin; if you typed a real key here, consider rotating it');
        if (!SETTABLE.includes(key)) throw new InvalidArgumentError(`Allowed choices are ${SETTABLE.join(', ')}.`);
        return key;
      }),
    )
    .argument('<value>')
    .action(async (key: string, value: string, _options: unknown, command: Command) => {
      await withSession(context, command, (session) => setConfig(session, key, value));
    });
  config
    .command('unset')
    .description('remove one setting from a profile')
    .addArgument(new Argument('<key>').choices(KEYS))
    .action(async (key: string, _options: unknown, command: Command) => {
      await withSession(context, command, (session) => unsetConfig(session, key));
    });
  config
    .command('use')
    .description('make a profile the active one')
    .argument('<profile>')
    .action(async (profile: string, _options: unknown, command: Command) => {
      await withSession(context, command, (session) => useConfig(session, profile));
    });
  return config;
}
