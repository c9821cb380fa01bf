import { PassThrough } from 'node:stream';
import type { ReviewOptions } from '../../src/commands/review/options.js';
import type { OpenedTerminal, ReviewDeps } from '../../src/commands/review/deps.js';
import { run } from '../../src/commands/review/run.js';
import { logContextFor } from '../../src/action-log/log-context.js';
import type { Key } from '../../src/review-queue/queue-model.js';
import { onTestFinished } from 'vitest';
import { Session } from '../../src/session.js';
import { printingDeps, quietContext, ran, type Ran } from './room-deps.js';
import { DEMO_KEY } from './sandbox.js';

/*
 * `review` through its run(options, deps), as its tests call it: the service at `service` (a
 * sandbox on port 0, or a server of the test's own), a screen of the test's own that keeps every
 * frame drawn and takes the keys the test sends, stdout a terminal (as review needs), no Ctrl-C,
 * ended as main ends it. What needs a real terminal (raw mode, the alternate screen, a paste, a
 * hang-up) is tested on tmux (test/support/pty.ts).
 */

/** The options as command.ts makes them from `fraudctl review`, with `options` on top. */
export function reviewOptions(options: Partial<ReviewOptions> = {}): ReviewOptions {
  return {
    ids: [],
    from: null,
    allDecisions: false,
    claim: true,
    includeClaimed: false,
    includeDecided: false,
    log: null,
    sort: null,
    slaMs: null,
    allIds: false,
    noInput: false,
    noColor: false,
    ...options,
  };
}

/** The queue's screen, as the test sees it: every frame drawn, and keys to send. */
export interface TestScreen {
  frames: string[];
  /** Whether the terminal was given back (raw mode off, main screen). */
  readonly restored: boolean;
  /** The first frame (drawn or to come) that matches. */
  waitFor(pattern: RegExp): Promise<string>;
  /** One key, as readline names it (`q`, `return`; `c` with ctrl: Ctrl-C). */
  send(name: string, modifiers?: { ctrl?: boolean }): void;
}

function testTerminal(size: { width: number; height: number }): { opened: OpenedTerminal; screen: TestScreen } {
  const frames: string[] = [];
  const waiting: { pattern: RegExp; resolve(frame: string): void }[] = [];
  let onKey: ((text: string | undefined, key: Key) => void) | null = null;
  let restored = false;
  const screen: TestScreen = {
    frames,
    get restored() {
      return restored;
    },
    waitFor: (pattern) => {
      const drawn = frames.find((f) => pattern.test(f));
      return drawn !== undefined
        ? Promise.resolve(drawn)
        : new Promise((resolve) => waiting.push({ pattern, resolve }));
    },
    send: (name, modifiers = {}) => {
      if (!onKey) throw new Error(`key ${name} sent while the queue takes none`);
      const text = name.length === 1 && !modifiers.ctrl ? name : undefined;
      onKey(text, { name, sequence: text, ctrl: modifiers.ctrl === true });
    },
  };
  const opened: OpenedTerminal = {
    close: () => void (restored = true),
    enter: () => ({
      keys: {
        start(listener) {
          onKey = listener;
          return () => void (onKey = null);
        },
      },
      screen: {
        size: () => size,
        draw(frame) {
          frames.push(frame);
          for (const w of waiting.splice(0)) {
            if (w.pattern.test(frame)) w.resolve(frame);
            else waiting.push(w);
          }
        },
        onResize: () => () => {},
      },
      hungUp: new Promise<void>(() => {}),
      restore: () => void (restored = true),
    }),
  };
  return { opened, screen };
}

interface How {
  /** The flags that chose the service, as a hint repeats them. */
  serviceFlags?: string[];
  /** The service's key: the sandbox's demo key unless told. */
  apiKey?: string;
  /** The clock the queue's ages, deadlines and summary are drawn by: the wall clock unless told. */
  now?: () => number;
  /** The screen's size: 80×24 unless told. */
  width?: number;
  height?: number;
}

export function reviewAt(service: string, how: How = {}) {
  return (options: Partial<ReviewOptions>, input = ''): { screen: TestScreen; ended: Promise<Ran> } => {
    // Ended, as a pipe's or a file's: what --from - reads.
    const stdin = new PassThrough();
    stdin.end(input);
    const session = new Session(
      quietContext(),
      {},
      { profile: 'test', baseUrl: service, apiKey: how.apiKey ?? DEMO_KEY },
    );
    onTestFinished(() => session.close());
    const width = how.width ?? 80;
    const { opened, screen } = testTerminal({ width, height: how.height ?? 24 });
    // Without colour, as the suite's environment has it (cliEnv: NO_COLOR).
    const printing = printingDeps({ tty: true, columns: width, env: { NO_COLOR: '1' } });
    const deps: ReviewDeps = {
      ...printing,
      stdin,
      now: how.now ?? (() => Date.now()),
      waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
      onStdoutClosed: () => () => {},
      terminal: () => opened,
      client: () => session.client(),
      reasons: async () => ({ profile: 'test', codes: [], required: false }),
      logContext: async () => logContextFor(await session.settings(), session.context.env),
      serviceFlags: how.serviceFlags ?? [],
    };
    return { screen, ended: ran(run(reviewOptions(options), deps), printing) };
  };
}
