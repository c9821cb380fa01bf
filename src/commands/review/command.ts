import { Command } from 'commander';
import type { CliContext } from '../../process/cli-context.js';
import { withSession } from '../../session.js';
import { checkIdArguments } from '../../id-lists/id-arguments.js';
import { keySummary, reasonKeySummary } from '../../review-queue/keymap.js';
import { parseSla, parseSort, type ReviewOptions } from './options.js';

export type { ReviewOptions } from './options.js';

/*
 * `review`: argv → one ReviewOptions value, every flag bound once here and its value checked
 * (a bad --sort or --sla is exit 2 before anything is read); then the work (run.ts), import()ed
 * when it runs, with its dependencies built from the process and the session (deps.ts). `run`
 * is injectable, so a test checks argv → options in-process without doing the work.
 */

export type ReviewRun = (command: Command, options: ReviewOptions) => Promise<void>;

interface ReviewFlags {
  from?: string;
  allDecisions?: boolean;
  claim: boolean;
  includeClaimed?: boolean;
  includeDecided?: boolean;
  log?: string;
  sort?: string;
  sla?: string;
  allIds?: boolean;
}

export function reviewCommand(context: CliContext, run?: ReviewRun): Command {
  const runWork: ReviewRun =
    run ??
    (async (command, options) => {
      const [{ run: review }, { reviewDeps }] = await Promise.all([import('./run.js'), import('./deps.js')]);
      return withSession(context, command, (session) => review(options, reviewDeps(context, session)));
    });
  return new Command('review')
    .description('work a queue of events in REVIEW on the terminal: one screen per event, one key per decision')
    .argument('[ids...]', 'the events to review (or --from)')
    .option(
      '--from <file>',
      'read ids from a file (one per line, # comments) or a submit --out results file; - for stdin',
    )
    .option('--all-decisions', 'with a results file: every decided line, not only REVIEW')
    .option('--no-claim', 'do not move events to IN_REVIEW while they are on screen')
    .option('--include-claimed', 'also take events IN_REVIEW that another session claimed (and left)')
    .option('--include-decided', 'also show events no longer awaiting review')
    .option('--log <file>', 'append one JSON line per action to this file (for audit)')
    .option(
      '--sort <order>',
      'the order of the queue: age (oldest eventDate first), score (highest first) or amount (largest first); the events are read first',
    )
    .option(
      '--all-ids',
      'the summary at the end lists every id not reached too (by default: how many, and from which id on)',
    )
    .option(
      '--sla <duration>',
      'how long an event may wait for a decision (4h, 30m, 2d, 1d12h): each screen shows the time left or how long it is overdue, the summary the overdue count',
    )
    .addHelpText(
      'before',
      `Examples:
  $ fraudctl review ord-1002 ord-1003
  $ fraudctl review --from results.jsonl --log review.log     # the REVIEW lines of submit --out
  $ grep REVIEW results.jsonl | fraudctl review --from -      # keys are read from the terminal
  $ fraudctl review --from results.jsonl --sort score         # highest score first (the file's scores)
  $ fraudctl review --from ids.txt --sort age --sla 4h        # oldest first, overdue ones marked
`,
    )
    .addHelpText(
      'after',
      `\nKeys: ${keySummary()}.\n${reasonKeySummary()}\n` +
        'On the comment line, Tab keeps the comment the event has (yours after it; c keeps it unless Tab);\n' +
        'an empty line never erases it (a reason alone goes after it). A paste is taken only there, as text.\n' +
        'A window too small for every key takes none but q until it is resized.\n' +
        'Without a terminal it exits 2: scripts use fraudctl set-state.\n',
    )
    .action(async (ids: string[], flags: ReviewFlags, command: Command) => {
      checkIdArguments(ids);
      const globals = command.optsWithGlobals<{ color?: boolean; input?: boolean }>();
      // The values first: a mistyped one is a usage error whatever else is wrong (no terminal included).
      const sort = flags.sort === undefined ? null : parseSort(flags.sort);
      const slaMs = flags.sla === undefined ? null : parseSla(flags.sla);
      await runWork(command, {
        ids,
        from: flags.from ?? null,
        allDecisions: flags.allDecisions === true,
        claim: flags.claim,
        includeClaimed: flags.includeClaimed === true,
        includeDecided: flags.includeDecided === true,
        log: flags.log ?? null,
        sort,
        slaMs,
        allIds: flags.allIds === true,
        noInput: globals.input === false,
        noColor: globals.color === false,
      });
    });
}
