import { Command } from 'commander';
import type { CliContext } from '../process/cli-context.js';
import { withSession } from '../session.js';

export function doctorCommand(context: CliContext): Command {
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
      const { runDoctor } = await import('../doctor/run-doctor.js');
      await withSession(context, command, (session) => runDoctor(session));
    });
}
