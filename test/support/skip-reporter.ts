import type { Reporter, TestModule } from 'vitest/node';

/*
 * At the end of a run, lists the tests skipped because a program they drive could not run here
 * (prerequisites.ts), grouped by reason, so a run on a bare machine says what it did not test; and
 * apart, by name, the tests that cannot run on Windows (or under Wine), with the reason each. A
 * skip that gives no reason at all is listed too, with a line that .ci/windows fails on.
 */

const EXPECTED_ON_WINDOWS = /^(not on Windows|not under Wine): /;
/**
 * A test of another Node release's behaviour (compile-cache.test.ts), of Windows only (run by
 * .ci/windows), or one that root defeats (a file mode keeps nobody out): not a gap of this machine.
 */
const OTHER_NODE = /^(not on this Node|only on Windows|not as root): /;

export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const byReason = new Map<string, number>();
    const onWindows: string[] = [];
    const unexplained: string[] = [];
    const otherNode: string[] = [];
    for (const module of testModules) {
      const file = module.moduleId.replace(/\\/g, '/').replace(/^.*?\/(?=test\/)/, '');
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        // A reason given at run time (skipTest), or in the title at collection (small-disk.ts).
        const why =
          result.note ??
          /\(skipped: ((?:needs|not on Windows|not under Wine|not on this Node|only on Windows|not as root)[^()]*(?:\([^()]*\)[^()]*)*)\)/.exec(
            test.fullName,
          )?.[1];
        if (why && EXPECTED_ON_WINDOWS.test(why))
          onWindows.push(`  ${file} > ${test.fullName.replace(/ \(skipped: .*\)$/, '')}: ${why}`);
        else if (why && OTHER_NODE.test(why))
          otherNode.push(`  ${file} > ${test.fullName.replace(/ \(skipped: .*\)$/, '')}: ${why}`);
        else if (why?.startsWith('needs ')) byReason.set(why, (byReason.get(why) ?? 0) + 1);
        else unexplained.push(`  ${file} > ${test.fullName}${why ? `: ${why}` : ''}`);
      }
    }
    const out: string[] = [];
    if (onWindows.length > 0)
      out.push(
        `Skipped on Windows, by name (they need what Windows or Wine does not have; the Linux runs cover them):\n${onWindows.join('\n')}`,
      );
    if (byReason.size > 0) {
      const lines = [...byReason].map(([why, n]) => `  ${n} test${n === 1 ? '' : 's'}: ${why}`);
      out.push(
        `Skipped because a program could not run here (install it to run them; FRAUDCTL_REQUIRE_ALL_TESTS=1 makes these failures):\n${lines.join('\n')}`,
      );
    }
    if (otherNode.length > 0)
      out.push(`Skipped as tests for another Node release, platform or user:\n${otherNode.join('\n')}`);
    if (unexplained.length > 0)
      out.push(`Skipped without a reason given (${unexplained.length}):\n${unexplained.join('\n')}`);
    if (out.length > 0) process.stdout.write(`\n${out.join('\n\n')}\n`);
  }
}
