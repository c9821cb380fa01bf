import { terminalSafe } from '../../render/terminal-text.js';
import { outputOf } from '../room-deps.js';
import type { ShowDeps } from './deps.js';
import type { ShowListOptions, ShowOneOptions, ShowOptions, ShowWatchOptions } from './options.js';
import { renderEvent } from './render-event.js';

/*
 * `show`: one event (one GET, its tables or JSON), a watch of one (src/events/watch-event.ts,
 * said by render-watch.ts), or a list of many (src/event-lists/show-list.ts). The watch's and
 * the list's code is loaded when asked for: `show ID` is the start-up to keep short. A failure of
 * a call is thrown as it is: main says it and gives its exit code.
 */

export async function run(options: ShowOptions, deps: ShowDeps): Promise<void> {
  if (options.form === 'one') return showOne(options, deps);
  if (options.form === 'watch') return watch(options, deps);
  return list(options, deps);
}

async function showOne(options: ShowOneOptions, deps: ShowDeps): Promise<void> {
  const { body } = await (await deps.client()).getEvent(options.eventId);
  await renderEvent(body, outputOf(deps, options));
}

async function watch(options: ShowWatchOptions, deps: ShowDeps): Promise<void> {
  const [{ watchEvent }, { watchView }] = await Promise.all([
    import('../../events/watch-event.js'),
    import('./render-watch.js'),
  ]);
  const output = outputOf(deps, options);
  const { clock } = deps;
  const view = watchView(output, terminalSafe(options.eventId), options, () => clock.now());
  await watchEvent(
    {
      client: (o) => deps.client(o),
      sleep: (ms, signal) => clock.sleep(ms, signal),
      waitForShutdown: () => deps.waitForShutdown(),
    },
    options.eventId,
    {
      intervalSeconds: options.intervalSeconds,
      until: options.until,
      withDecision: !options.json,
      // On a terminal the first check gives up at its first failure, so that it is said at once.
      patient: !deps.stderr.isTTY,
    },
    view,
  );
}

async function list(options: ShowListOptions, deps: ShowDeps): Promise<void> {
  const { showList } = await import('../../event-lists/show-list.js');
  const output = outputOf(deps, { json: options.format === 'json', noColor: options.noColor });
  await showList(
    {
      streams: deps.streams,
      output,
      client: (o) => deps.client(o),
      waitForShutdown: () => deps.waitForShutdown(),
    },
    { ids: options.ids, from: options.from ?? undefined, format: options.format, concurrency: options.concurrency },
  );
}
