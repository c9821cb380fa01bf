import { CliError, ExitCode, UsageError } from '../../errors/cli-error.js';
import { readIdList } from '../../id-lists/id-list.js';
import { stateIn } from '../../contract/states.js';
import { openSessionLog, type SessionLog } from '../../action-log/action-log.js';
import { runEffect, type QueueClient } from '../../review-queue/queue-effects.js';
import { runQueueLoop } from '../../review-queue/queue-loop.js';
import { initialModel, type Model, type QueueEntry } from '../../review-queue/queue-model.js';
import { groupsOf } from '../../review-queue/queue-outcomes.js';
import { MAX_RECHECKED, renderSessionSummary, withClaimsRechecked } from '../../review-queue/queue-summary.js';
import { orderQueue, type SortInput, type SortKey } from '../../review-queue/queue-order.js';
import { count } from '../../render/counts.js';
import { outputOf } from '../room-deps.js';
import type { ReviewDeps } from './deps.js';
import type { ReviewOptions } from './options.js';

/*
 * `fraudctl review`: checks there is a person at a terminal, reads the ids, opens the log, then
 * runs the queue on the terminal and prints the session's summary. The terminal is given back
 * (raw mode off, cursor, main screen) on every way out, an error included.
 */

const NOT_A_TERMINAL_HINT =
  'review is for a person at a terminal; scripts change states with set-state (one id or many): fraudctl set-state --help';

async function readQueue(
  options: ReviewOptions,
  deps: Pick<ReviewDeps, 'stdin'>,
): Promise<{ entries: SortInput[]; unreadable: string[] }> {
  const entries: SortInput[] = [];
  const unreadable: string[] = [];
  const seen = new Set<string>();
  for await (const entry of readIdList(
    { args: options.ids, from: options.from ?? undefined, results: options.allDecisions ? 'decided' : 'review' },
    deps,
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

export async function run(options: ReviewOptions, deps: ReviewDeps): Promise<void> {
  // At once, before reading anything: without a terminal to draw on and read keys from, nothing to do.
  if (!deps.stdout.isTTY || options.noInput) {
    throw new UsageError(
      options.noInput
        ? 'review needs a person at the keyboard, and --no-input says there is none'
        : 'review needs a terminal (stdout is not one)',
      NOT_A_TERMINAL_HINT,
    );
  }
  if (options.from === null && options.ids.length === 0)
    throw new UsageError('no events to review: give ids, or --from FILE (or - for stdin)');
  const opened = deps.terminal();
  if ('unavailable' in opened)
    throw new UsageError(
      `review needs a terminal to ${opened.for === 'keys' ? 'read keys from' : 'draw on'} (stdin is not one, and ${opened.unavailable} cannot be opened)`,
      NOT_A_TERMINAL_HINT,
    );

  let log: SessionLog | null = null;
  let model: Model | null = null;
  let restore = () => opened.close();
  // A terminal that hangs up takes the screen with it: the session still ends as it would on
  // Ctrl-C (SIGHUP, waitForShutdown), giving its claims back, with nobody left to see it.
  const keepGoingWithoutScreen = deps.onStdoutClosed(() => {});
  try {
    const { entries: listed, unreadable } = await readQueue(options, deps);
    if (listed.length === 0) {
      throw new UsageError(
        unreadable.length > 0
          ? `no events to review: ${unreadable.length} line(s) without an id (${unreadable.slice(0, 3).join(', ')})`
          : 'no events to review in that list',
      );
    }
    if (options.log !== null)
      log = await openSessionLog(options.log, await deps.logContext(), (line) => deps.stderr.write(line));
    const client = await deps.client();
    const output = outputOf(deps, { json: false, noColor: options.noColor });
    const { entries, eventDates } =
      options.sort === null
        ? { entries: listed.map(({ id }): QueueEntry => ({ id })), eventDates: new Map<string, number>() }
        : await sortQueue(deps, listed, options.sort, client);
    const terminal = opened.enter();
    restore = () => terminal.restore();
    const reasons = await deps.reasons();
    const initial = initialModel(
      entries,
      {
        claim: options.claim,
        includeClaimed: options.includeClaimed,
        includeDecided: options.includeDecided,
        sla: options.slaMs,
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
      runEffect: (effect) => runEffect(effect, { client, log, style: output.style, now: deps.now }),
      interrupted: Promise.race([deps.waitForShutdown(), terminal.hungUp]),
      clock: deps.now,
    });
    restore();
    model = await recheckClaims(model, client);
    const summaryOptions = {
      logPath: log?.path ?? null,
      serviceFlags: deps.serviceFlags,
      sla: options.slaMs,
      now: deps.now(),
      allIds: options.allIds,
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
async function sortQueue(deps: ReviewDeps, listed: readonly SortInput[], sort: SortKey, client: QueueClient) {
  const { stderr } = deps;
  let drawn = false;
  const result = await orderQueue(
    listed,
    sort,
    client,
    (done, total) => {
      if (!stderr.isTTY) return;
      drawn = true;
      stderr.write(`\r\x1b[Kreading the events to sort them by ${sort}: ${count(done)} of ${count(total)}`);
    },
    deps.waitForShutdown(),
  );
  if (drawn) stderr.write('\r\x1b[K');
  return result;
}

/** The states now of the ids the summary would list as claimed by others (at most MAX_RECHECKED, 8 at a time); a failed read leaves an id out. */
async function recheckClaims(model: Model, client: Pick<QueueClient, 'getEvent'>): Promise<Model> {
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
