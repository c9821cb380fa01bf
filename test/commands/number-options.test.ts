import { describe, expect, it } from 'vitest';
import { wholeNumber } from '../../src/commands/number-options.js';
import { cliEnv, runCli } from '../support/cli.js';

// One parser for --concurrency: every command that takes it refuses the same values the same way,
// before anything is read or sent (no service is configured here, and no sandbox starts).
describe('--concurrency', () => {
  it('the parser takes whole numbers within its range and names the range otherwise', () => {
    const parse = wholeNumber(1, 256, 'the concurrency');
    expect(parse('1')).toBe(1);
    expect(parse('256')).toBe(256);
    for (const bad of ['0', '257', '2.5', 'x', '', '-3'])
      expect(() => parse(bad), bad).toThrow('the concurrency is a whole number from 1 to 256');
  });

  it.each([
    ['0', 'submit', '-'],
    ['257', 'show', 'a', 'b'],
    ['2.5', 'set-state', 'a', 'b', '--state', 'declined', '--yes'],
  ])('--concurrency %s: %s refuses it with exit 2 and the range', async (value, ...command) => {
    const result = await runCli([...command, '--concurrency', value], { env: cliEnv(), input: '' });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/the concurrency is a whole number from 1 to 256/);
    expect(result.stdout).toBe('');
  });
});
