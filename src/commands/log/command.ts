import { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { UsageError } from '../../errors/cli-error.js';
import { terminalSafe } from '../../render/terminal-text.js';
import type { LogVerifyOptions } from './options.js';

export type { LogVerifyOptions } from './options.js';

/*
 * `fraudctl log …`: the action logs that review --log and set-state --log write. `verify`: argv →
 * one LogVerifyOptions value (--expect checked here); then the work (run.ts, which checks each
 * file's hash chain with src/action-log/verify-log.ts), import()ed when it runs, with the deps
 * built from the process (deps.ts). `run` is injectable: a test checks argv → options alone.
 */

export type LogVerifyRun = (command: Command, options: LogVerifyOptions) => Promise<void>;

const HASH = /^[0-9a-f]{64}$/;

export function logCommand(context: CliContext, run?: LogVerifyRun): Command {
  const runWork: LogVerifyRun =
    run ??
    (async (_command, options) => {
      const [{ run: verify }, { logVerifyDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return verify(options, logVerifyDeps(context));
    });
  const log = new Command('log').description('check the action logs (--log) of review and set-state').addHelpText(
    'before',
    `Examples:
  $ fraudctl log verify team.log
  $ fraudctl log verify logs/*.log --json
`,
  );
  log
    .command('verify')
    .description('check that each log is whole: name every line edited, removed, moved, inserted or cut')
    .argument('<files...>', 'the --log files to check; several: one log in order (oldest first, as after a rotation)')
    .option('--expect <hash>', "the last line's hash a verify printed: fail if that line is no longer in the log")
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl log verify team.log                # team.log: 42 lines intact (last line's hash H)
  $ fraudctl log verify team.log --expect H     # ... and line 42 is still there (or lines were removed)
  $ fraudctl log verify team.log.1 team.log     # a rotated log: each file, and how they join
  $ fraudctl log verify team.log --json
`,
    )
    .addHelpText(
      'after',
      `
Every break is named, with what it looks like: a line edited, lines removed,
a pair swapped or a line moved, lines inserted or copied from another line, a
line cut short, NUL bytes (a crash or power cut), lines written before fraudctl
chained its lines; CR LF endings or a missing last line feed (saved by an
editor) are said once for the file. The summary counts the breaks; --json gives
each file's verdict with every break.

Lines removed from the end leave a shorter whole chain: keep the hash verify
prints somewhere else, and give it back as --expect HASH. That line must still
be in the log, whole; lines after it are said as added since.

Files given together are one log in order: a line that says which line of the
file before its writer last knew (after the file was rotated or cut short) is
checked against that file, and lines in neither file are named as lost.

Exit 0 when every file is intact; 1 when any break is found, or the expected
line is gone; 2 for a file that cannot be read or is not a regular file (a FIFO,
a device). What a whole chain proves, and what it does not: fraudctl help log.
`,
    )
    .action(async (files: string[], flags: { expect?: string }, command: Command) => {
      const expect = flags.expect?.toLowerCase();
      if (expect !== undefined && !HASH.test(expect)) {
        throw new UsageError(
          `--expect takes a line's hash, 64 hex digits, as log verify prints it (got ` +
            `${JSON.stringify(terminalSafe(flags.expect!))})`,
        );
      }
      const globals = command.optsWithGlobals<{ json?: boolean; color?: boolean }>();
      await runWork(command, {
        files,
        expect: expect ?? null,
        json: globals.json === true,
        noColor: globals.color === false,
      });
    });
  return log;
}
