import { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { KNOWN_STATES, TRANSITIONS } from '../../contract/states.js';
import { UsageError } from '../../errors/cli-error.js';
import { withSession } from '../../session.js';
import { idArguments } from '../../id-lists/id-arguments.js';
import { concurrencyOption, givenOnCommandLine } from '../number-options.js';
import { sym } from '../../render/symbols.js';
import type { SetStateOptions } from './options.js';

export type { SetStateOptions } from './options.js';

const transitions = KNOWN_STATES.map(
  (s) => `  ${s.padEnd(16)}${sym.arrow} ${TRANSITIONS[s].join(', ') || '(final)'}`,
).join('\n');

/*
 * `set-state`: argv → one SetStateOptions value, of one event or of many (decided here, with the
 * flag combinations checked before any work); then the work (run.ts), import()ed when it runs,
 * with its dependencies built from the process and the session (deps.ts). `run` is injectable,
 * so a test checks argv → options in-process without doing the work.
 */

/** The flags as commander gives them. */
interface SetStateFlags {
  state?: string;
  comments?: string;
  dryRun?: boolean;
  yes?: boolean;
  forceState?: boolean;
  verbose?: boolean;
  appendComment?: boolean;
  replaceComment?: boolean;
  from?: string;
  ifState?: string;
  out?: string;
  resume?: boolean;
  concurrency: number;
  log?: string;
  reason?: string;
  includeClaimed?: boolean;
}

/** Runs the work; replaced in tests. */
export type SetStateRun = (command: Command, options: SetStateOptions) => Promise<void>;

/** The options that make a run one of many events. */
const MANY_FLAGS = ['from', 'ifState', 'out', 'resume', 'concurrency'] as const;

export function setStateCommand(context: CliContext, run?: SetStateRun): Command {
  const runWork: SetStateRun =
    run ??
    (async (command, options) => {
      const [{ run: setState }, { setStateDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return withSession(context, command, (session) => setState(options, setStateDeps(context, session)));
    });
  return new Command('set-state')
    .description(
      'change the state of events and/or add a comment: one event (manual review), or many at once with a plan and a confirmation',
    )
    .argument('[eventIds...]', 'event ids (more than one, or --from, changes many at once)')
    .option('--state <state>', 'the new state (asked with a list on a terminal when missing, for one event)')
    .option('--comments <text>', 'a comment to record (asked on a terminal when missing, for one event)')
    .option(
      '--reason <code>',
      "one of the profile's reason codes (fraudctl config set reasons): sent at the head of the comment as [reason: CODE], logged as reason",
    )
    .option('--append-comment', 'when an event has a comment, keep it and add --comments after it')
    .option('--replace-comment', 'when an event has a comment, replace it with --comments')
    .option(
      '--from <file>',
      'many: also the ids in FILE (one per line; # comments) or a submit --out results file; - for stdin',
    )
    .option('--if-state <states>', 'many: change only events now in one of these states (comma-separated)')
    .option(
      '--include-claimed',
      'also change an event IN_REVIEW, held in a review session ' +
        '(without it: asked on a terminal, default no; else not sent, exit 1)',
    )
    .option('--force-state', 'send --state as typed, even a state or transition this build does not know or allow')
    .option('--out <file>', 'many: write one JSON result per id to this file (as soon as each is settled)')
    .option('--resume', 'many: continue the run whose results are in --out, skipping ids already settled')
    .addOption(concurrencyOption('many: events read and changed at once (at most 256)').default(8))
    .option(
      '--log <file>',
      'append JSON lines for each change sent, before and after (as review --log does; see fraudctl help log)',
    )
    .option('--verbose', 'one event: print the updated summary as tables instead of one line')
    .option(
      '--dry-run',
      'one event: print the request it would send; many: read them, print the plan and a line per id; send nothing',
    )
    .option('-y, --yes', 'do not ask for confirmation (needed for many events off a terminal)')
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl set-state --from ring.txt --state fraud-confirmed --comments "ring 2026-11-20" --out ring.jsonl
  $ fraudctl set-state --from held.txt --state approved --if-state pending-review --dry-run
  $ fraudctl set-state --from results.jsonl --state declined --yes --out declined.jsonl   # a submit --out file
  $ fraudctl set-state --from ring.txt --state fraud-confirmed --comments "ring 2026-11-20" --out ring.jsonl --resume  # after Ctrl-C or a crash
  $ fraudctl set-state ord-1002 ord-1003 --state declined --comments "same card as ord-1001"
  $ fraudctl set-state ord-1002                     # one event: asks for the state and a comment
  $ fraudctl set-state ord-1002 --state approved --comments "customer confirmed by phone"
  $ fraudctl set-state ord-1002 --comments "customer called back" --append-comment   # keeps the note it has
  $ fraudctl set-state ord-1002 --state ESCALATED --dry-run
  $ fraudctl set-state ord-1002 --state declined --comments "stolen card" --log team.log
  $ fraudctl set-state ord-1002 --state declined --reason stolen-card --comments "card reported" --log team.log
  $ fraudctl set-state --from ring.txt --state fraud-confirmed --reason account-takeover --out ring.jsonl --yes
`,
    )
    .addHelpText(
      'after',
      `
One event: it is read, and read again just before the change; if it changed in between (a
colleague's decision or note), a terminal says what changed and asks again; off one (or with
--yes) it is a CONFLICT, exit 1, and nothing is sent. --comments on an event that has a comment
(the service keeps one): a terminal asks whether to keep it (yours after it) or replace it; off
one, say which with --append-comment or --replace-comment, or nothing is sent (exit 2).

Many events (more than one id, --from, or any "many" option): every event is read first; one
already in the state, outside --if-state, whose state does not allow the change, or that has a
comment of its own while --comments comes without --append-comment or --replace-comment is
skipped and says why. On a terminal the plan is shown and one question asked (default no); each event is
read again just before its change, and one whose state moved since the plan is a CONFLICT. Off a
terminal add --yes (or --dry-run). Exit 0 when every id was changed or skipped as asked, 4 when
some were not found or invalid, else the worst: 5 refused, 6 unavailable, 1 other; 3 a refused
key (stops at once); 130 on Ctrl-C (--resume continues).

An event IN_REVIEW is held in a review session: a change of its state says who
holds it and since when (from --log, the team's action log), and asks (default
no); off a terminal, or with --yes, it is not sent (one event: exit 1; many:
outcome CLAIMED, exit 1) unless --include-claimed.

--reason CODE: one of the profile's codes (fraudctl config set reasons; a code
may be for some states only); the service gets the comment as "[reason: CODE] "
followed by --comments (or "[reason: CODE]" alone), the log a field "reason".
An unknown code, or one not for --state, is exit 2 and nothing is sent; so is a
change of state without --reason when the profile has require-reason true.

--resume continues the run recorded in --out: the same service and the same --state, --comments,
--reason, --if-state and --force-state (an option left out is taken from the file, and said so; one that
differs, or another service, is refused with exit 2 before anything is sent).

States and the transitions the sandbox allows (a real service may differ):
${transitions}
`,
    )
    .action(async (typed: string[], flags: SetStateFlags, command: Command) => {
      const ids = idArguments(typed);
      const globals = command.optsWithGlobals<{ json?: boolean; color?: boolean }>();
      const json = globals.json === true;
      const many = ids.length > 1 || MANY_FLAGS.some((name) => givenOnCommandLine(command, name));
      if (!many) {
        if (ids.length === 0)
          throw new UsageError(
            'set-state needs an event id, or --from FILE (- for stdin)',
            'e.g. fraudctl set-state ord-1002 --state approved, or fraudctl set-state --from ids.txt --state declined',
          );
        if (flags.appendComment && flags.replaceComment)
          throw new UsageError(
            '--append-comment and --replace-comment cannot be used together',
            "keep the event's comment (--append-comment) or replace it (--replace-comment)",
          );
        return runWork(command, {
          form: 'one',
          eventId: ids[0]!,
          state: flags.state ?? null,
          comments: flags.comments ?? null,
          dryRun: flags.dryRun === true,
          yes: flags.yes === true,
          forceState: flags.forceState === true,
          verbose: flags.verbose === true,
          appendComment: flags.appendComment === true,
          replaceComment: flags.replaceComment === true,
          log: flags.log ?? null,
          reason: flags.reason ?? null,
          includeClaimed: flags.includeClaimed === true,
          json,
          noColor: globals.color === false,
        });
      }
      if (flags.verbose) throw new UsageError('--verbose is for one event: many events print a line each');
      if (flags.appendComment && flags.replaceComment)
        throw new UsageError('--append-comment and --replace-comment: one or the other');
      if (flags.resume && flags.out === undefined)
        throw new UsageError('--resume needs --out: the results file of the run to continue');
      if (flags.dryRun && flags.out !== undefined)
        throw new UsageError(
          '--dry-run changes nothing and keeps no results file: leave out --out (the plan and a line per id are printed)',
        );
      // A --resume may leave --state out: the results file records it.
      if (flags.state === undefined && flags.resume !== true)
        throw new UsageError(
          'set-state for many events needs --state',
          `e.g. --state declined --comments "fraud ring"; states: ${KNOWN_STATES.join(', ')}`,
        );
      const commentMode = flags.appendComment ? 'append' : flags.replaceComment ? 'replace' : null;
      if (commentMode !== null && flags.comments === undefined && flags.reason === undefined && !flags.resume)
        throw new UsageError(
          `--${commentMode}-comment goes with --comments`,
          'e.g. --comments "ring 2026-11" --append-comment',
        );
      return runWork(command, {
        form: 'many',
        ids,
        from: flags.from ?? null,
        state: flags.state ?? null,
        comments: flags.comments ?? null,
        commentMode,
        ifState: flags.ifState ?? null,
        force: flags.forceState === true,
        dryRun: flags.dryRun === true,
        yes: flags.yes === true,
        out: flags.out ?? null,
        resume: flags.resume === true,
        concurrency: flags.concurrency,
        log: flags.log ?? null,
        reason: flags.reason ?? null,
        includeClaimed: flags.includeClaimed === true,
        json,
      });
    });
}
