import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

const GLOBAL_OPTIONS = ['--base-url <url>', '--profile <name>', '--timeout <seconds>', '--json', '--no-color', '--no-input', '--debug'];

describe('help', () => {
  it.each(['submit', 'show', 'alerts', 'set-state', 'review', 'login', 'logout', 'doctor', 'config set', 'config list', 'completion', 'sandbox serve'])(
    '%s --help lists the global options it accepts, under their own heading',
    async (command) => {
      const result = await runCli([...command.split(' '), '--help']);
      expect(result.code).toBe(0);
      const global = result.stdout.split(/^Global Options:$/m)[1];
      expect(global, result.stdout).toBeDefined();
      for (const option of GLOBAL_OPTIONS) expect(global).toContain(option);
    },
  );
});
