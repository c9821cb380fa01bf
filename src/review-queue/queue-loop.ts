import type { Style } from '../render/colours.js';
import type { Effect, Key, Model, Msg } from './queue-model.js';
import { update } from './queue-update.js';
import { view } from './queue-view.js';

/*
 * The loop: messages in (keys, effect results, resizes, a signal), update, effects out, and a
 * frame drawn whenever the screen would change. It knows nothing of terminals or HTTP: the key
 * source, the screen and the effect runner are handed in, so tests and the benchmark drive it
 * with their own.
 */

export interface KeySource {
  /** Starts delivering keys, and bracketed pastes whole (when the terminal sends them); returns a function that stops it. */
  start(onKey: (text: string | undefined, key: Key) => void, onPaste?: (text: string) => void): () => void;
}

export interface Screen {
  size(): { width: number; height: number };
  draw(frame: string): void;
  /** Calls back when the size changes; returns a function that stops it. */
  onResize(callback: () => void): () => void;
}

export interface LoopOptions {
  keys: KeySource;
  screen: Screen;
  style: Style;
  runEffect(effect: Effect): Promise<Msg | null>;
  /** Resolves at a SIGINT/SIGTERM from outside (Ctrl-C on the terminal arrives as a key). */
  interrupted?: Promise<unknown>;
  /** Told after each frame is drawn (the benchmark times key → frame with it). */
  onFrame?(model: Model): void;
  /** The time now (ms since the epoch), for an event's age; Date.now by default. */
  clock?: () => number;
}

/** How often the screen is drawn again while nothing happens, so that an event's age and time left stay true. */
export const AGE_REDRAW_MS = 30_000;

/** Runs the queue from `initial` until it is done and nothing it started is still running. */
export function runQueueLoop(initial: Model, options: LoopOptions): Promise<Model> {
  return new Promise<Model>((resolve, reject) => {
    let model = initial;
    let inFlight = 0;
    let lastFrame = '';
    // The event on the last frame drawn: each key and paste is tagged with it, so that keys typed
    // ahead while the next event loads never act on one the analyst has not seen.
    let shown: string | null = null;
    let settled = false;
    const stops: (() => void)[] = [];

    const end = (error?: unknown) => {
      if (settled) return;
      settled = true;
      for (const stop of stops) stop();
      if (error !== undefined) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(model);
    };

    // Keys that arrive together (a paste, keys typed ahead) give one frame, after the last of them.
    let drawScheduled = false;
    const scheduleDraw = () => {
      if (drawScheduled) return;
      drawScheduled = true;
      setImmediate(() => {
        drawScheduled = false;
        if (!settled) draw();
      });
    };

    const draw = () => {
      const { width, height } = model.screen;
      const frame = view(model, width, height, options.style, (options.clock ?? Date.now)());
      shown = model.current?.id ?? null;
      if (frame === lastFrame) return;
      lastFrame = frame;
      options.screen.draw(frame);
      options.onFrame?.(model);
    };

    const run = (effect: Effect) => {
      inFlight++;
      options.runEffect(effect).then(
        (msg) => {
          inFlight--;
          if (msg) dispatch(msg);
          else if (model.mode.name === 'done' && inFlight === 0) end();
        },
        (error: unknown) => end(error ?? new Error('an effect failed')),
      );
    };

    const dispatch = (msg: Msg) => {
      if (settled) return;
      try {
        const [next, effects] = update(model, msg);
        model = next;
        for (const effect of effects) run(effect);
        if (model.mode.name !== 'done') scheduleDraw();
        if (model.mode.name === 'done' && inFlight === 0) end();
      } catch (error) {
        end(error);
      }
    };

    const ticking = setInterval(scheduleDraw, AGE_REDRAW_MS);
    ticking.unref();
    stops.push(() => clearInterval(ticking));
    const { width, height } = options.screen.size();
    model = { ...model, screen: { width, height } };
    stops.push(options.screen.onResize(() => dispatch({ type: 'resize', ...options.screen.size() })));
    stops.push(
      options.keys.start(
        (text, key) => dispatch({ type: 'key', text, key, shown }),
        (text) => dispatch({ type: 'paste', text, shown }),
      ),
    );
    options.interrupted?.then(
      () => dispatch({ type: 'interrupt' }),
      () => {},
    );
    dispatch({ type: 'start' });
  });
}
