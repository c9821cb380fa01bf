import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { readIdList } from '../id-lists/id-list.js';
import type { Session } from '../session.js';
import type { ApiClient } from '../api/api-client.js';
import { stateIn } from '../contract/states.js';
import { runEffect } from './queue-effects.js';
import { runQueueLoop } from './queue-loop.js';
import { initialModel, type Model, type QueueEntry } from './queue-model.js';
import { groupsOf } from './queue-outcomes.js';
import { MAX_RECHECKED, renderSessionSummary, withClaimsRechecked } from './queue-summary.js';
import { openSessionLog, type SessionLog } from '../action-log/action-log.js';
import { logContextOf } from '../action-log/log-context.js';
import { openKeyStream, openTerminal } from './terminal-screen.js';
import { orderQueue, SORT_KEYS, type SortInput, type SortKey } from './queue-order.js';
import { parseDuration } from '../render/ages.js';
import { count } from '../render/counts.js';

/*
 * `fraudctl review`: checks there is a person at a terminal, reads the ids, opens the log, then
 * runs the queue on the terminal and prints the session's summary. The terminal is given back
 * (raw mode off, cursor, main screen) on every way out, an error included.
 */

export interface ReviewOptions {
  from?: string;
  allDecisions?: boolean;
  claim: boolean;
  includeClaimed?: boolean;
  includeDecided?: boolean;
  log?: string;
  /** `--sort`: the order of the queue (the events are read first); absent: the list's order. */
  sort?: SortKey;
  /** `--sla`, as given (`4h`): checked here, before anything is read. */
  sla?: string;
  /** `--all-ids`: the summary lists the ids not reached too (by default: how many, and from which on). */
  allIds?: boolean;
}

const NOT_A_TERMINAL_HINT =
  'review is for a person at a terminal; scripts change states with set-state (one id or many): fraudctl set-state --help';

async function readQueue(
  session: Session,
  ids: readonly string[],
  options: ReviewOptions,
): Promise<{ entries: SortInput[]; unreadable: string[] }> {
  const entries: SortInput[] = [];
  const unreadable: string[] = [];
  const seen = new Set<string>();
  for await (const entry of readIdList(
    { args: ids, from: options.from, results: options.allDecisions ? 'decided' : 'review' },
    session.context,
  )) {
    if (entry.id === null) {
      unreadable.push(entry.where);
      continue;
    }
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    entries.push(entry.score === undefined ? { id: entry.id } : { id: entry.id, score: entry.score });
  }
  return { entries, unreadable };
}

export async function runReview(session: Session, ids: readonly string[], options: ReviewOptions): Promise<void> {
  const { context } = session;
  // The values of the options first: a mistyped one is a usage error whatever else is wrong.
  if (options.sort !== undefined && !(SORT_KEYS as readonly string[]).includes(options.sort))
    throw new UsageError(`--sort ${JSON.stringify(options.sort)} is not an order: use ${SORT_KEYS.join(', ')}`);
  const sla = options.sla === undefined ? null : parseDuration(options.sla);
  if (options.sla !== undefined && sla === null)
    throw new UsageError(
      `--sla ${JSON.stringify(options.sla)} is not a duration: give whole days, hours or minutes, like 4h, 30m, 2d or 1d12h`,
    );
  // At once, before reading anything: without a terminal to draw on and read keys from, nothing to do.
  if (!context.stdout.isTTY || session.globals.input === false) {
    throw new UsageError(
      session.globals.input === false
        ? 'review needs a person at the keyboard, and --no-input says there is none'
        : 'review needs a terminal (stdout is not one)',
      NOT_A_TERMINAL_HINT,
    );
  }
  if (options.from === undefined && ids.length === 0)
    throw new UsageError('no events to review: give ids, or --from FILE (or - for stdin)');
  const opened = openKeyStream(context);
  if ('unavailable' in opened)
    throw new UsageError(
      `review needs a terminal to ${opened.for === 'keys' ? 'read keys from' : 'draw on'} (stdin is not one, and ${opened.unavailable} cannot be opened)`,
      NOT_A_TERMINAL_HINT,
    );
  const keyStream = opened;

  let log: SessionLog | null = null;
  let model: Model | null = null;
  let restore = () => keyStream.close();
  // A terminal that hangs up takes the screen with it: the session still ends as it would on
  // Ctrl-C (SIGHUP, context.waitForShutdown), giving its claims back, with nobody left to see it.
  const keepGoingWithoutScreen = context.onStdoutClosed(() => {});
  try {
    const { entries: listed, unreadable } = await readQueue(session, ids, options);
    if (listed.length === 0) {
      throw new UsageError(
        unreadable.length > 0
          ? `no events to review: ${unreadable.length} line(s) without an id (${unreadable.slice(0, 3).join(', ')})`
          : 'no events to review in that list',
      );
    }
    if (options.log !== undefined)
      log = await openSessionLog(options.log, await logContextOf(session), (line) => context.stderr.write(line));
    const [client, output] = await Promise.all([session.client(), session.output()]);
    const { entries, eventDates } =
      options.sort === undefined
        ? { entries: listed.map(({ id }): QueueEntry => ({ id })), eventDates: new Map<string, number>() }
        : await sortQueue(session, listed, options.sort, client);
    const terminal = openTerminal(context, keyStream);
    restore = () => terminal.restore();
    const settings = await session.settings();
    const reasons = { profile: settings.profile, codes: settings.reasons, required: settings.requireReason };
    const initial = initialModel(
      entries,
      {
        claim: options.claim,
        includeClaimed: options.includeClaimed === true,
        includeDecided: options.includeDecided === true,
        sla,
        reasons,
      },
      terminal.screen.size(),
      unreadable,
      eventDates,
    );
    model = await runQueueLoop(initial, {
      keys: terminal.keys,
      screen: terminal.screen,
      style: output.style,
      runEffect: (effect) => runEffect(effect, { client, log, style: output.style }),
      interrupted: Promise.race([context.waitForShutdown(), terminal.hungUp]),
    });
    restore();
    model = await recheckClaims(model, client);
    const summaryOptions = {
      logPath: log?.path ?? null,
      serviceFlags: session.serviceFlags(),
      sla,
      now: Date.now(),
      allIds: options.allIds === true,
    };
    output.print(renderSessionSummary(model, output.style, terminal.screen.size().width, summaryOptions));
  } finally {
    restore();
    await log?.close();
    keepGoingWithoutScreen();
  }
  if (model.fatal)
    throw new CliError(`the session stopped: ${model.fatal.message}`, model.fatal.exitCode, model.fatal.hint);
  const { stillClaimed } = groupsOf(model);
  if (stillClaimed.length > 0)
    throw new CliError(
      `${stillClaimed.length} event(s) could not be given back and are still IN_REVIEW (listed above)`,
    );
  if (model.quitting === 'interrupt')
    throw new CliError('interrupted: the session summary is above', ExitCode.INTERRUPTED);
}

/**
 * The queue in the order --sort asks for, the events read first with their count on stderr (a
 * line redrawn in place on a terminal, erased once done; nothing off one).
 */
async function sortQueue(session: Session, listed: readonly SortInput[], sort: SortKey, client: ApiClient) {
  const { stderr } = session.context;
  const onTerminal = (stderr as { isTTY?: boolean }).isTTY === true;
  let drawn = false;
  const result = await orderQueue(
    listed,
    sort,
    client,
    (done, total) => {
      if (!onTerminal) return;
      drawn = true;
      stderr.write(`\r\x1b[Kreading the events to sort them by ${sort}: ${count(done)} of ${count(total)}`);
    },
    session.context.waitForShutdown(),
  );
  if (drawn) stderr.write('\r\x1b[K');
  return result;
}

/** The states now of the ids the summary would list as claimed by others (at most MAX_RECHECKED, 8 at a time); a failed read leaves an id out. */
async function recheckClaims(model: Model, client: ApiClient): Promise<Model> {
  const ids = groupsOf(model).claimedElsewhere.slice(0, MAX_RECHECKED);
  if (ids.length === 0) return model;
  const { default: pMap } = await import('p-map');
  const states = await pMap(
    ids,
    async (id) => {
      try {
        const state = stateIn((await client.getEvent(id)).body);
        return state !== null ? ([id, state] as const) : null;
      } catch {
        return null;
      }
    },
    { concurrency: 8 },
  );
  return withClaimsRechecked(model, new Map(states.filter((s) => s !== null)));
}
