import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TERMINAL_CONTROLS } from '../support/cli-against-sandbox.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { DEMO_KEY } from '../support/sandbox.js';

/*
 * --debug logs what is sent as well as what comes back, and what is sent is
 * the user's input — it may hold an 8-bit CSI (U+009B) or a bidi override (U+202E). Request
 * logs show them as inert escapes, like response logs and --json do.
 */

const cli = useSandboxInProcess();
const HOSTILE = '\u009b31m\u202eevil\u001b]0;title\u0007';

function expectInert(stderr: string): void {
  expect(stderr).toContain('→ ');
  expect(stderr).not.toMatch(TERMINAL_CONTROLS);
  expect(stderr).not.toContain('\u0007');
  // Still shown, as escapes.
  expect(stderr).toContain('\\x9b31m\\u202eevil');
  expect(stderr).not.toContain(DEMO_KEY);
}

describe('--debug request logs', () => {
  it('submit: the request body is escaped', async () => {
    const file = join(cli.dir, 'c1.json');
    writeFileSync(file, JSON.stringify({ amount: 1, currency: 'EUR', userFullName: HOSTILE }));
    const result = await cli.runProcess(['submit', file, '--debug']);
    expect(result.code, result.stderr).toBe(0);
    expectInert(result.stderr);
  });

  it('set-state --comments: the request body is escaped', async () => {
    const file = join(cli.dir, 'review.json');
    writeFileSync(
      file,
      JSON.stringify({ id: 'debug-review-1', amount: 700, currency: 'EUR', userEmail: 'a@example.com' }),
    );
    expect((await cli.run(['submit', file])).code).toBe(0);
    const result = await cli.run(['set-state', 'debug-review-1', '--comments', HOSTILE, '--debug']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('→ PATCH ');
    expectInert(result.stderr);
  });

  it("a batch: every line's request body is escaped", async () => {
    const file = join(cli.dir, 'batch.jsonl');
    const lines = [1, 2, 3].map((n) =>
      JSON.stringify({ id: `debug-batch-${n}`, amount: n, currency: 'EUR', userFullName: HOSTILE }),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const result = await cli.run(['submit', file, '--debug', '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('→ POST ').length - 1).toBe(3);
    expectInert(result.stderr);
  });
});
