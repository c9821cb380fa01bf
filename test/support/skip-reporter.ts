import type { Reporter, TestModule } from 'vitest/node';

/*
 * At the end of a run, lists the tests skipped because a program they drive could not run here
 * (prerequisites.ts), grouped by reason, so a run on a bare machine says what it did not test.
 */
export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const byReason = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        // A reason given at run time (skipTest), or in the title at collection (small-disk.ts).
        const why = result.note?.startsWith('needs ') ? result.note : /\(skipped: (needs [^()]*(?:\([^()]*\)[^()]*)*)\)/.exec(test.fullName)?.[1];
        if (why) byReason.set(why, (byReason.get(why) ?? 0) + 1);
      }
    }
    if (byReason.size === 0) return;
    const lines = [...byReason].map(([why, n]) => `  ${n} test${n === 1 ? '' : 's'}: ${why}`);
    process.stdout.write(`\nSkipped because a program could not run here (install it to run them; FRAUDCTL_REQUIRE_ALL_TESTS=1 makes these failures):\n${lines.join('\n')}\n`);
  }
}
