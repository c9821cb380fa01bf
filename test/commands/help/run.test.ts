import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/help/run.js';
import { TOPIC_TEXTS } from '../../../src/help-topics/topics.js';
import { buildProgram } from '../../../src/program.js';
import type { CliContext } from '../../../src/process/cli-context.js';
import { runInProcess } from '../../support/in-process-cli.js';
import { printingDeps, quietContext, ran } from '../../support/room-deps.js';
import { cliEnv } from '../../support/cli.js';

/*
 * `help` through run(options, deps): the tree is the real one (program.ts), its help written to
 * the test's stream as program.ts tells commander to write it.
 */

function helpDeps() {
  const deps = printingDeps();
  const context: CliContext = { ...quietContext(), stdout: { write: (s: string) => deps.stdout.write(s) } as never };
  return { ...deps, tree: buildProgram(context) };
}

describe('help run', () => {
  it("a topic's text; a command's help as COMMAND --help prints it", async () => {
    const topic = helpDeps();
    await run({ verb: 'topic', topic: 'environment' }, topic);
    expect(topic.written.stdout).toBe(TOPIC_TEXTS.environment);

    const serve = helpDeps();
    await run({ verb: 'command', path: ['sandbox', 'serve'] }, serve);
    expect(serve.written.stdout).toBe((await runInProcess(['sandbox', 'serve', '--help'], cliEnv())).stdout);
  });

  it('a word that is no command, a hidden one included, is a usage error naming the words up to it', async () => {
    const cases: [string[], string][] = [
      [['__complete'], '__complete'],
      [['config', 'sett', 'x'], 'config sett'],
    ];
    for (const [path, named] of cases) {
      const deps = helpDeps();
      expect(await ran(run({ verb: 'command', path }, deps), deps)).toStrictEqual({
        code: 2,
        stdout: '',
        stderr: `error: no command or help topic "${named}"\nrun fraudctl help to list the commands and the topics\n`,
      });
    }
  });
});
