import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { KNOWN_STATES, TRANSITIONS } from '../contract/states.js';
import { withSession } from '../session.js';
import { setState } from '../review/set-state.js';
import { checkIdArguments } from '../id-lists/id-arguments.js';

const transitions = KNOWN_STATES.map((s) => `  ${s.padEnd(16)}→ ${TRANSITIONS[s].join(', ') || '(final)'}`).join('\n');

export function setStateCommand(context: CliContext): Command {
  return new Command('set-state')
    .description('change the state of an event and/or add a comment (manual review)')
    .argument('<eventId>', 'the event id')
    .option('--state <state>', 'the new state (asked with a list on a terminal when missing)')
    .option('--comments <text>', 'a comment to record (asked on a terminal when missing)')
    .option('--force-state', 'send --state as typed, even a state this build does not know')
    .option('--verbose', 'print the updated summary as tables instead of one line')
    .option('--dry-run', 'print the request it would send, and send nothing')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl set-state ord-1002                     # asks for the state and a comment
  $ fraudctl set-state ord-1002 --state approved --comments "customer confirmed by phone"
  $ fraudctl set-state ord-1002 --comments "waiting for documents"
  $ fraudctl set-state ord-1002 --state ESCALATED --dry-run
`,
    )
    .addHelpText('after', `\nStates and the transitions the sandbox allows (a real service may differ):\n${transitions}\n`)
    .action(async (eventId: string, options: { state?: string; comments?: string; dryRun?: boolean; yes?: boolean; forceState?: boolean; verbose?: boolean }, command: Command) => {
      checkIdArguments([eventId]);
      await withSession(context, command, (session) => setState(session, eventId, options));
    });
}
