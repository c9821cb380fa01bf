import { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { withSession, type GlobalOptions } from '../../session.js';
import type { DoctorOptions } from './options.js';

export type { DoctorOptions } from './options.js';

/*
 * `doctor`: argv → one DoctorOptions value; then the work (run.ts), import()ed when it runs, with
 * its dependencies built from the process and the session (deps.ts). `run` is injectable, so a
 * test checks argv → options in-process without doing the work.
 */

export type DoctorRun = (command: Command, options: DoctorOptions) => Promise<void>;

export function doctorCommand(context: CliContext, run?: DoctorRun): Command {
  const runWork: DoctorRun =
    run ??
    (async (command, options) => {
      const [{ run: doctor }, { doctorDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return withSession(context, command, (session) => doctor(options, doctorDeps(context, session)));
    });
  return new Command('doctor')
    .description('check the set-up: settings and where they come from, network, TLS, the service, the key, the clock')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl doctor
  $ fraudctl doctor --profile prod
  $ fraudctl doctor --json | jq '.checks[] | select(.status == "fail")'
`,
    )
    .addHelpText('after', '\nExit 0 only when every check passes; 1 when any fails. The API key is never printed.\n')
    .action(async (_options: unknown, command: Command) => {
      const { json, color } = command.optsWithGlobals<GlobalOptions>();
      return runWork(command, { json: json === true, noColor: color === false });
    });
}
