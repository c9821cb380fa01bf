import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/*
 * The suite as .ci/windows runs it: under node.exe in Wine, where starting a process costs about
 * ten times what it does on Linux. The slowest files there, ten seconds or more each, mostly
 * processes started one after another (batches, serve, watch, Ctrl-C and hang-up runs that
 * Windows cannot take from a test anyway), are left to the Linux runs so the job stays within
 * CI's 15 minutes: about half the suite's time, a tenth of its tests. Every other file runs, new
 * ones too; FRAUDCTL_WINDOWS_SUITE=all .ci/windows runs them all.
 */
const slowUnderWine = [
  // Seconds each took under Wine (two workers, the machine shared): the whole suite took 593 s.
  'test/commands/submit-batch-faults.test.ts', // 135 s
  'test/commands/echoed-key.test.ts', // 39 (redaction is the same code on every platform)
  // Same code on every platform, measured under Wine at 6faaba3 (whole CI then: 604 s):
  'test/docs.test.ts', // 8.8 (the docs' text)
  'test/commands/evaluate/process.test.ts', // 8.7 (evaluate's exit codes; its work runs in-process here)
  'test/properties/untrusted-input.test.ts', // 7.5 (property runs of the sanitisers)
  'test/sandbox/http/raw-http.test.ts', // 7.1 (the sandbox's HTTP edges)
  'test/sandbox/http/fuzz.test.ts', // 5.8 (the sandbox under random requests)
  'test/commands/sandbox.test.ts', // 56
  'test/commands/submit-batch.test.ts', // 49
  'test/event-lists/show-list.test.ts', // 47
  'test/commands/right-service.test.ts', // 46
  'test/commands/set-state.test.ts', // 40
  'test/commands/set-state-many.test.ts', // 39
  'test/commands/history.test.ts', // 36
  'test/commands/team-log.test.ts', // 34
  'test/commands/config-concurrency.test.ts', // 32
  'test/commands/one-writer.test.ts', // 31
  'test/commands/report.test.ts', // 31
  'test/sandbox/durability.test.ts', // 27
  'test/commands/reasons.test.ts', // 27
  'test/support/prerequisites.test.ts', // 25 (a vitest of its own, started twice)
  'test/commands/client-errors.test.ts', // 25
  'test/sandbox/http/chaos.test.ts', // 23
  'test/commands/submit-batch-disk.test.ts', // 22
  'test/commands/submit-resume-id-less.test.ts', // 20
  'test/commands/submit-rejects.test.ts', // 20
  'test/commands/transport.test.ts', // 18
  'test/event-lists/show-list-faults.test.ts', // 14
  'test/commands/submit-batch-not-stored.test.ts', // 13
  'test/commands/resume-hand-edited.test.ts', // 13
  'test/commands/set-state-reread.test.ts', // 11
  'test/failures/one-meaning.test.ts', // 11
  'test/commands/waits-and-timeout.test.ts', // 10
  'test/commands/resume-binding.test.ts', // 10
  'test/performance-docs.test.ts', // 10
];

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [...configDefaults.exclude, ...slowUnderWine],
      // A process under Wine starts in about a second: tests that start several take longer.
      testTimeout: 60_000,
      hookTimeout: 60_000,
      // Two under Wine: a node.exe start there is CPU-bound, and a third worker was not measured.
      maxWorkers: 2,
    },
  }),
);
