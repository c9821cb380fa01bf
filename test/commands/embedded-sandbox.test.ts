import { statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';
import { tempDir } from '../support/sandbox.js';

/* A fresh machine: no config, no service. The CLI runs the sandbox itself. */
const tmp = tempDir();
afterAll(() => tmp.remove());
const env = cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: `${tmp.dir}/config`, XDG_DATA_HOME: `${tmp.dir}/data` });

describe('the embedded sandbox', () => {
  it('lets submit then show work with nothing configured, marked as sandbox, kept between runs', async () => {
    const submit = await runCli(['submit', 'examples/review.json'], { env });
    expect(submit.code).toBe(0);
    expect(submit.stdout).toContain('REVIEW');
    expect(submit.stderr).toMatch(
      /SANDBOX .*embedded local service, not production · data: .*[\\/]data[\\/]fraudctl[\\/]sandbox\.db/,
    );
    const show = await runCli(['show', 'ord-1002'], { env });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/state\s+│ PENDING_REVIEW/);
    expect(show.stderr).toContain('SANDBOX');
    // The events hold personal data: only the user may read them.
    const mode = (path: string) => statSync(path).mode & 0o777;
    if (process.platform !== 'win32') {
      expect(mode(`${tmp.dir}/data/fraudctl`)).toBe(0o700);
      expect(mode(`${tmp.dir}/data/fraudctl/sandbox.db`)).toBe(0o600);
    }
  });

  it('with FORCE_COLOR and NO_COLOR both set: no Node warning about them (Node 22+ printed one), and no colour (NO_COLOR wins)', async () => {
    // runCli fails the test on any Node warning in the process's stderr.
    const show = await runCli(['submit', 'examples/review.json'], { env: { ...env, FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stderr).not.toContain('Warning');
    expect(show.stdout).not.toContain('\u001b[');
    expect(show.stdout).toContain('REVIEW');
  });
});
