import { describe, expect, it } from 'vitest';
import type { CliContext } from '../src/process/cli-context.js';
import { buildProgram, commandToRun } from '../src/program.js';

/*
 * main builds only the command argv runs (program.ts, commandToRun): what that command says and
 * does must be what it says and does in the whole tree.
 */

function capture(): { context: CliContext; written: () => string } {
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
  return { context, written: () => text };
}

/** What commander prints, and the exit code it gives, for argv on a tree built whole or for argv. */
async function run(argv: string[], partial: boolean): Promise<{ output: string; exitCode: number | undefined }> {
  const { context, written } = capture();
  const program = buildProgram(context, partial ? argv : undefined);
  let exitCode: number | undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    exitCode = (error as { exitCode?: number }).exitCode;
  }
  return { output: written(), exitCode };
}

describe('commandToRun', () => {
  it.each<[string[], string | undefined]>([
    [['show', 'ord-1'], 'show'],
    [['--json', 'alerts', 'ord-1'], 'alerts'],
    [['--base-url', 'show', 'set-state', 'x'], 'set-state'],
    [['--base-url=http://x', '--profile', 'p', 'config', 'list'], 'config'],
    [['--timeout', '5', '--no-color', 'sandbox', 'serve'], 'sandbox'],
    [['--help', 'submit'], undefined],
    [['-h', 'show'], undefined],
    [['show', '--help'], 'show'],
    [['completion', 'bash'], undefined],
    [['help', 'show'], undefined],
    [['sho'], undefined],
    [['--', 'show'], undefined],
    [['--json'], undefined],
    [[], undefined],
  ])('%j → %s', (argv, name) => {
    expect(commandToRun(argv)).toBe(name);
  });
});

describe('a tree with only the command that runs', () => {
  it.each([
    'submit --help',
    'show --help',
    'alerts --help',
    'set-state --help',
    'review --help',
    'login --help',
    'logout --help',
    'doctor --help',
    'config --help',
    'config set --help',
    'sandbox --help',
    'sandbox serve --help',
    '--help submit',
    'show --concurrency 0',
    'show a --interval x',
    'set-state x --stat APPROVED',
    'submit f.json --concurrency 0',
    'config get colour',
    'review --limit x',
    '--bogus show x',
    '--timeout 0 show x',
    '--version show',
  ])('fraudctl %s: says the same as with the whole tree', async (line) => {
    const argv = line.split(' ');
    const whole = await run(argv, false);
    expect(whole.output).not.toBe('');
    expect(await run(argv, true)).toEqual(whole);
  });
});
