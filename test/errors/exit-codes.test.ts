import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { classifyFailure } from '../../src/failures/failure-kind.js';
import { runInProcess } from '../support/in-process-cli.js';

/*
 * The exit codes as `fraudctl --help` and `fraudctl help exit-codes` list them: one table, so
 * the two say the same of each code (the topic says more), and the statuses they name under a
 * code are those a command ending on that answer exits with.
 */

const env = { HOME: '/nonexistent', NO_COLOR: '1' };

/** Each code's entry (its lines joined), in order. */
function entries(text: string): Map<number, string> {
  const table = text.slice(text.indexOf('Exit codes'));
  const found = new Map<number, string>();
  let code: number | null = null;
  for (const line of table.split('\n').slice(1)) {
    const start = /^ {2}(\d+) +(.*)$/.exec(line);
    if (start) {
      code = Number(start[1]);
      found.set(code, start[2]!);
    } else if (code !== null && /^ {7}\S/.test(line)) {
      found.set(code, `${found.get(code)} ${line.trim()}`);
    } else if (found.size > 0) {
      break;
    }
  }
  return found;
}

describe('the exit codes of --help and help exit-codes', async () => {
  const [root, topic] = await Promise.all([runInProcess(['--help'], env), runInProcess(['help', 'exit-codes'], env)]);
  const brief = entries(root.stdout);
  const full = entries(topic.stdout);

  it("list the same codes, 143 among them, and each entry of --help starts the topic's", () => {
    expect([...brief.keys()]).toEqual([0, 1, 2, 3, 4, 5, 6, 129, 130, 141, 143]);
    expect([...full.keys()]).toEqual([...brief.keys()]);
    for (const [code, said] of brief) expect(full.get(code)?.startsWith(said), `exit ${code}: ${said}`).toBe(true);
  });

  it('name each status under the code a command ending on that answer exits with', () => {
    for (let status = 400; status < 600; status++) {
      const error = new ApiError(`answered ${status}`, status, null, [], null);
      error.operation = { method: 'GET', eventId: 'e1' };
      const { exitCode } = classifyFailure(error);
      for (const [name, table] of [
        ['--help', brief],
        ['help exit-codes', full],
      ] as const) {
        const naming = [...table]
          .filter(([, said]) => new RegExp(`[(/]${status}[/ ),]`).test(said))
          .map(([code]) => code);
        // Exit 1 is "other failure": no status is listed under it.
        expect(naming, `${name}: ${status}`).toEqual(exitCode === 1 ? [] : [exitCode]);
      }
    }
  });
});
