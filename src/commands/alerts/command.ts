import { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { withSession } from '../../session.js';
import { checkIdArguments } from '../../id-lists/id-arguments.js';
import type { AlertsOptions } from './options.js';

export type { AlertsOptions } from './options.js';

/*
 * `alerts ID`: argv → one AlertsOptions value (the id checked here); then the work (run.ts),
 * import()ed when it runs, with its dependencies built from the process and the session
 * (deps.ts). `run` is injectable, so a test checks argv → options without doing the work.
 */

export type AlertsRun = (command: Command, options: AlertsOptions) => Promise<void>;

export function alertsCommand(context: CliContext, run?: AlertsRun): Command {
  const runWork: AlertsRun =
    run ??
    (async (command, options) => {
      const [{ run: alerts }, { alertsDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return withSession(context, command, (session) => alerts(options, alertsDeps(context, session)));
    });
  return new Command('alerts')
    .description("show an event's risk assessment: decision, score, alerts by score, list matches")
    .argument('<eventId>', 'the event id')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl alerts ord-1002
  $ fraudctl alerts ord-1002 --json | jq '.alerts[].ruleId'
`,
    )
    .action(async (eventId: string, _options: unknown, command: Command) => {
      checkIdArguments([eventId]);
      const globals = command.optsWithGlobals<{ json?: boolean; color?: boolean }>();
      await runWork(command, { eventId, json: globals.json === true, noColor: globals.color === false });
    });
}
