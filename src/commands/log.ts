import { Command } from 'commander';
import type { CliContext } from '../process/cli-context.js';
import { withSession } from '../session.js';

/*
 * `fraudctl log …`: the action logs that review --log and set-state --log write. `verify`
 * checks each file's hash chain (src/action-log/verify-log.ts).
 */

export function logCommand(context: CliContext): Command {
  const log = new Command('log').description('check the action logs (--log) of review and set-state').addHelpText(
    'before',
    `Examples:
  $ fraudctl log verify team.log
  $ fraudctl log verify logs/*.log --json
`,
  );
  log
    .command('verify')
    .description('check that each log is whole: no line edited, removed, reordered or cut since it was written')
    .argument('<files...>', 'the --log files to check')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl log verify team.log                # team.log: 42 lines intact (last line's hash ...)
  $ fraudctl log verify monday.log tuesday.log
  $ fraudctl log verify team.log --json
`,
    )
    .addHelpText(
      'after',
      `
Exit 0 when every file is intact; 1 naming the first line that is not (edited, removed,
reordered, cut, or lines written before fraudctl chained its log lines); 2 for a file that
cannot be read. What a whole chain proves, and what it does not: fraudctl help log.
`,
    )
    .action(async (files: string[], _options: unknown, command: Command) => {
      const { verifyLogs } = await import('../action-log/verify-log.js');
      await withSession(context, command, (session) => verifyLogs(session, files));
    });
  return log;
}
