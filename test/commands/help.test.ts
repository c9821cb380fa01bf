import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import type { CliContext } from '../../src/process/cli-context.js';
import { cliEnv } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';

const GLOBAL_OPTIONS = [
  '--base-url <url>',
  '--profile <name>',
  '--timeout <seconds>',
  '--json',
  '--no-color',
  '--no-input',
  '--debug',
];

describe('help', () => {
  it.each([
    'submit',
    'show',
    'alerts',
    'set-state',
    'review',
    'login',
    'logout',
    'doctor',
    'config set',
    'config list',
    'completion',
    'sandbox serve',
  ])('%s --help lists the global options it accepts, under their own heading', async (command) => {
    const result = await runInProcess([...command.split(' '), '--help'], cliEnv());
    expect(result.code).toBe(0);
    const global = result.stdout.split(/^Global Options:$/m)[1];
    expect(global, result.stdout).toBeDefined();
    for (const option of GLOBAL_OPTIONS) expect(global).toContain(option);
  });
});

/** Every command path of the tree (`config set`, `sandbox serve`), hidden ones left out. */
function commandPaths(command: Command, path: string[] = []): string[][] {
  return command.commands
    .filter((c) => c.name() !== 'help' && !c.name().startsWith('__'))
    .flatMap((c) => [[...path, c.name()], ...commandPaths(c, [...path, c.name()])]);
}

/** What `fraudctl …argv --help` prints, from the command tree in this process (a process each would cost seconds). */
async function helpOf(argv: string[]): Promise<string> {
  let text = '';
  const sink = { write: (s: string) => ((text += s), true), isTTY: false } as unknown as CliContext['stdout'];
  const context: CliContext = {
    stdin: process.stdin,
    stdout: sink,
    stderr: sink,
    env: {},
    debug: false,
    waitForShutdown: () => new Promise(() => {}),
    onStdoutClosed: () => () => {},
  };
  await buildProgram(context, [...argv, '--help'])
    .parseAsync([...argv, '--help'], { from: 'user' })
    .catch(() => {});
  return text;
}

describe("every command's help starts with examples", () => {
  const paths = commandPaths(buildProgram({ env: {} } as CliContext));

  it('the tree has the commands this walks (groups and their verbs)', () => {
    expect(paths.map((p) => p.join(' '))).toEqual(
      expect.arrayContaining([
        'submit',
        'config',
        'config set',
        'config use',
        'sandbox',
        'sandbox serve',
        'sandbox default-config',
        'completion',
      ]),
    );
  });

  it.each(paths.map((p) => [p.join(' ')]))('%s --help', async (command) => {
    const help = await helpOf(command.split(' '));
    const lines = help.split('\n').filter((l) => l.trim() !== '');
    expect(lines[0], help).toBe('Examples:');
    expect(lines[1]).toMatch(new RegExp(`^  \\$ .*fraudctl ${command}( |$)`));
  });
});
