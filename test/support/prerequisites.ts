import { spawnSync } from 'node:child_process';
import { beforeEach, describe, TestRunner, type TestContext } from 'vitest';

/*
 * Programs from outside npm that some tests drive for real (a terminal, shells, a proxy, a
 * keyring, an X display). `npm test` must pass on a machine with only Node and npm, so a test
 * that needs one checks that it can run it and otherwise is skipped, saying which program and
 * which package brings it — as git's own test suite treats its prerequisites. The run's end lists
 * what was skipped and why (skip-reporter.ts). FRAUDCTL_REQUIRE_ALL_TESTS=1 (set by .ci/run after
 * it installs them all) turns every such skip into a failure, so CI never skips.
 *
 * On Windows (.ci/windows runs the suite under Wine) some tests cannot run at all: they drive a
 * POSIX program, send a signal to a child (Windows has none: kill() ends the process), or look at
 * POSIX file modes. They are skipped there by name with the reason (notOnWindows, and every
 * program below), listed apart at the run's end, and are not failures under
 * FRAUDCTL_REQUIRE_ALL_TESTS: any other skip still is. What Wine (not Windows) cannot do is
 * skipped the same way under Wine only (notUnderWine), saying so.
 */

interface Program {
  /** Arguments that make it print its version and exit 0: proof that it runs, not only that it is on PATH. */
  probe: readonly string[];
  /** Where it comes from (Debian's package names; the same on Ubuntu). */
  from: string;
  /** It has no version flag: having started and exited (any status) is the proof. */
  anyStatus?: boolean;
}

const PROGRAMS = {
  tmux: { probe: ['-V'], from: 'Debian package tmux' },
  script: { probe: ['--version'], from: 'util-linux (Debian package bsdutils)' },
  bash: { probe: ['--version'], from: 'Debian package bash' },
  zsh: { probe: ['--version'], from: 'Debian package zsh' },
  fish: { probe: ['--version'], from: 'Debian package fish' },
  tinyproxy: { probe: ['-v'], from: 'Debian package tinyproxy' },
  Xvfb: { probe: ['-help'], from: 'Debian package xvfb', anyStatus: true },
  'dbus-run-session': { probe: ['--version'], from: 'Debian package dbus' },
  'gnome-keyring-daemon': { probe: ['--version'], from: 'Debian package gnome-keyring' },
  'secret-tool': { probe: ['--help'], from: 'Debian package libsecret-tools', anyStatus: true },
  man: { probe: ['--version'], from: 'Debian package man-db' },
  logrotate: { probe: ['--version'], from: 'Debian package logrotate' },
  setpriv: { probe: ['--version'], from: 'util-linux (Debian package util-linux)' },
  chromium: { probe: ['--version'], from: 'Debian package chromium' },
} satisfies Record<string, Program>;

export type ProgramName = keyof typeof PROGRAMS;

/** Whether every skip should fail instead (CI). */
export const requireAll = process.env.FRAUDCTL_REQUIRE_ALL_TESTS === '1';

export const onWindows = process.platform === 'win32';
/** Set by .ci/windows: node.exe runs under Wine, not on a Windows machine. */
const underWine = onWindows && process.env.FRAUDCTL_TEST_UNDER_WINE === '1';

/** How a skip that is expected on Windows begins (skip-reporter.ts lists these apart). */
export const WINDOWS_SKIP = 'not on Windows: ';
export const WINE_SKIP = 'not under Wine: ';

const verdicts = new Map<string, string | null>();

function cannotRun(name: ProgramName): string | null {
  let verdict = verdicts.get(name);
  // All of them are POSIX programs: none is on a Windows PATH (bash and man have ports, not these tests' kind).
  if (verdict === undefined && onWindows)
    verdicts.set(name, (verdict = `${WINDOWS_SKIP}needs ${name}, a POSIX program (${PROGRAMS[name].from})`));
  if (verdict === undefined) {
    const program: Program = PROGRAMS[name];
    const result = spawnSync(name, program.probe, { stdio: 'ignore', timeout: 10_000 });
    const ran =
      result.error === undefined && (result.status === 0 || (program.anyStatus === true && result.status !== null));
    verdict = ran
      ? null
      : `needs ${name} (${program.from}): ${result.error ? ((result.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found on PATH' : result.error.message) : `\`${name} ${program.probe.join(' ')}\` exited ${result.status ?? result.signal}`}`;
    verdicts.set(name, verdict);
  }
  return verdict;
}

/** Why these programs cannot be used here (the first that cannot), or null when all can. */
export function missing(...names: ProgramName[]): string | null {
  for (const name of names) {
    const why = cannotRun(name);
    if (why) return why;
  }
  return null;
}

/**
 * Skips the running test, saying why, or fails it under FRAUDCTL_REQUIRE_ALL_TESTS=1. For a
 * reason found while the test runs (a program that is there but cannot start).
 */
export function skipTest(why: string, context?: Pick<TestContext, 'skip'>): never {
  const expected = onWindows && (why.startsWith(WINDOWS_SKIP) || (underWine && why.startsWith(WINE_SKIP)));
  if (requireAll && !expected)
    throw new Error(`${why} (FRAUDCTL_REQUIRE_ALL_TESTS=1: CI installs every program a test needs)`);
  // A test of a describe.concurrent block gives its own context: the runner's "current test" is
  // whichever of the block's tests started last.
  const skip = context?.skip ?? TestRunner.getCurrentTest()?.context?.skip;
  if (!skip) throw new Error(`${why} (and no test is running to skip: call it from a test or beforeEach)`);
  return skip(why) as never;
}

/**
 * Inside a test (or its beforeEach): on Windows, skip it, saying what it needs that Windows does
 * not have (`sends SIGHUP to a child`, `POSIX file modes`). Never a failure there, even in CI.
 */
export function notOnWindows(why: string, context?: Pick<TestContext, 'skip'>): void {
  if (onWindows) skipTest(WINDOWS_SKIP + why, context);
}

/** The same for what only Wine cannot do (a real Windows can): say what, so the gap stays visible. */
export function notUnderWine(why: string): void {
  if (underWine) skipTest(WINE_SKIP + why);
}

/** The reasons a test cannot run on Windows, in one wording each (for notOnWindows). */
export const ON_WINDOWS = {
  signal:
    'sends a signal to a child (Ctrl-C, a hang-up): on Windows another process cannot, kill() ends it at once (TerminateProcess)',
  modes: 'POSIX file modes: Windows has none (Node reports 0666 for every writable file)',
  fifo: 'a FIFO (mkfifo): Windows has no FIFOs in the file system',
  sh: 'runs a command line in POSIX sh',
  symlink: 'symbolic links: making one on Windows needs administrator rights or Developer Mode',
  homeDefaults:
    'the POSIX default under HOME; on Windows it is %APPDATA% or %LOCALAPPDATA% (test/paths/xdg-paths.test.ts)',
  procStart: "a process's start time and the boot id, read from /proc: Linux only",
  pidNamespace: "a process's pid namespace (/proc/self/ns/pid): Linux only",
  directoryWrite:
    'a directory opened to be written: Windows answers with an error of its own (EISDIR only for some flags in libuv)',
} as const;

/** The reasons a test cannot pass under Wine only (for notUnderWine). */
export const UNDER_WINE = {
  deletedWhileOpen:
    'a file deleted while open keeps its name under Wine 8 until it is closed (Windows 10 removes the name at once: POSIX delete semantics), so it is not seen as deleted',
} as const;

/** A describe block whose every test cannot run on Windows (notOnWindows). */
export function describeNotOnWindows(why: string, title: string, body: () => void): void {
  describe(title, () => {
    beforeEach(() => notOnWindows(why));
    body();
  });
}

/** Inside a test (or a support function it calls): skip it unless these programs can run. */
export function need(...names: ProgramName[]): void {
  const why = missing(...names);
  if (why) skipTest(why);
}

/** need, in a test of a describe.concurrent block: skipped through its own context. */
export function needIn(context: Pick<TestContext, 'skip'>, ...names: ProgramName[]): void {
  const why = missing(...names);
  if (why) skipTest(why, context);
}

/**
 * A describe block whose every test needs these programs: each is skipped (with the reason) or,
 * under FRAUDCTL_REQUIRE_ALL_TESTS=1, failed when one cannot run. Its beforeAll hooks should
 * return early when `missing(...)` says so (they run before any test could be skipped).
 */
export function describeNeeding(names: ProgramName[], title: string, body: () => void): void {
  describe(title, () => {
    beforeEach(() => need(...names));
    body();
  });
}
