import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Three workers on two cores: much of the suite waits on child processes, timers and
    // terminals rather than computing (docs/decisions/three-test-workers-on-two-cores.md).
    maxWorkers: 3,
    // Files share a worker's module graph instead of importing everything afresh for each file:
    // the suite's import time falls from ~37 s to ~9 s, a quarter of its wall time on two cores,
    // which keeps CI's four Node versions inside 10 minutes. Tests keep no state in modules that
    // another file could see (each starts its own sandboxes, processes and temp directories).
    isolate: false,
    // A Node warning fails the run; a collection after each file surfaces handles left to the
    // garbage collector (test/support/no-warnings.ts). Property tests draw from one fixed seed
    // (test/support/seeded-properties.ts).
    // The run's end lists tests skipped because a program they drive cannot run here.
    reporters: ['default', './test/support/skip-reporter.ts'],
    setupFiles: ['test/support/no-warnings.ts', 'test/support/seeded-properties.ts', 'test/support/sh-hints.ts'],
    execArgv: ['--expose-gc'],
  },
});
