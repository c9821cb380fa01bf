import { describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';

// One parser for --concurrency: every command that takes it refuses the same values the same way,
// before anything is read or sent (no service is configured here, and no sandbox starts).
describe('--concurrency', () => {
  it.each([
    ['submit', '-'],
    ['show', 'a', 'b'],
    ['set-state', 'a', 'b', '--state', 'declined', '--yes'],
  ])('%s refuses 0, 257 and 2.5 with exit 2 and the range', async (...command) => {
    for (const value of ['0', '257', '2.5']) {
      const result = await runCli([...command, '--concurrency', value], { env: cliEnv(), input: '' });
      expect(result.code, `${command.join(' ')} --concurrency ${value}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(/the concurrency is a whole number from 1 to 256/);
      expect(result.stdout).toBe('');
    }
  });
});
